// Guided lessons (the data is lessons-data.ts): the card that says what to
// look at and the edit to try, and the check, on each analysis, of whether
// the learner's edit reached the lesson's expected outcome.
import type { AnalyzeReport } from "../api";
import { el } from "../dom";
import { EXAMPLES } from "../gallery";
import { LESSONS, type Expectation, type Lesson } from "./lessons-data";

export { LESSONS };
export type { Lesson };

/** Whether a report meets an expectation. */
export function meets(e: Expectation, r: AnalyzeReport): boolean {
  if (!r.assembled) return false;
  if (e.valid !== undefined && r.valid !== e.valid) return false;
  const codes = new Set(r.diagnostics.map((d) => d.code));
  if (e.code !== undefined && !codes.has(e.code)) return false;
  if (e.noCode !== undefined && codes.has(e.noCode)) return false;
  if (e.member) {
    const m = e.member;
    const f = r.functions[0];
    if (!f) return false;
    const byName = (n: string) => f.blocks.find((b) => b.name === n)?.id;
    const at = byName(m.at);
    const block = byName(m.block);
    if (at === undefined || block === undefined) return false;
    const c = f.constructs.find((k) => k.kind === m.kind && k.header === at);
    const holds = !!c && c.blocks.includes(block);
    if (holds !== m.holds) return false;
  }
  return true;
}

/** The text a lesson starts from (its gallery example). */
export function lessonText(l: Lesson): { text: string; targetEnv: string } | undefined {
  const ex = EXAMPLES.find((e) => e.id === l.example);
  return ex && { text: ex.text, targetEnv: ex.targetEnv };
}

/** Where the learner is: not started (the example unchanged), editing, or done. */
export type LessonState = "start" | "editing" | "done";

export function lessonState(l: Lesson, r: AnalyzeReport, text: string | undefined): LessonState {
  const start = lessonText(l)?.text;
  if (text !== undefined && start !== undefined && text.trim() === start.trim()) return "start";
  return meets(l.expect, r) ? "done" : "editing";
}

/** The lesson card. */
export function lessonCard(l: Lesson, state: LessonState, onRestart: () => void): HTMLElement {
  const card = el("section", "teach-lesson");
  card.dataset.lesson = l.id;
  card.dataset.state = state;
  card.append(el("h4", "teach-lesson-title", l.title));
  const look = el("p", "teach-look");
  look.append(el("strong", "", "Look: "), document.createTextNode(l.look));
  const edit = el("p", "teach-edit");
  edit.append(el("strong", "", "Try this edit: "), document.createTextNode(l.edit));
  card.append(look, edit);
  const status = el("p", `teach-lesson-status ${state}`);
  status.setAttribute("role", "status");
  if (state === "done") {
    status.append(el("strong", "", "Done! "), document.createTextNode(l.outcome));
  } else {
    const want: string[] = [];
    if (l.expect.valid !== undefined) want.push(l.expect.valid ? "the module becomes valid" : "the module becomes invalid");
    if (l.expect.code) want.push(`the validator reports ${l.expect.code}`);
    if (l.expect.noCode) want.push(`${l.expect.noCode} is gone`);
    if (l.expect.member) {
      const m = l.expect.member;
      want.push(`%${m.block} is ${m.holds ? "in" : "not in"} the ${m.kind} construct of %${m.at}`);
    }
    status.textContent = (state === "start" ? "Not yet edited. " : "Not there yet. ") + `Goal: ${want.join(", ")}.`;
  }
  const restart = el("button", "teach-restart", "restart lesson");
  restart.type = "button";
  restart.addEventListener("click", onRestart);
  card.append(status, restart);
  return card;
}
