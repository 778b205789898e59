// Teaching structured control flow on the CFG panel: the
// "1.6r1 | 1.6r2 | compare" control (compare.ts), the construct explorer
// (explorer.ts), the guided lessons (lessons.ts, lessons-data.ts), and the
// rule explanations of the Problems panel (rules-data.ts). The panel
// (www/src/cfg/index.ts) calls these hooks; the engine's teaching view comes
// from `session.teachJson` (web/src/teach.rs, core/src/analysis/teach.rs).
import type { AnalyzeReport, DotOptions } from "../api";
import { comparePane, markCompare, markR1, modeBar, r1Pane, r2Pane } from "./compare";
import { containingPane, explorerPane, focusOf, markExplorer } from "./explorer";
import { LESSONS, lessonCard, lessonState, meets, type Lesson } from "./lessons";
import type { TeachMode, TeachView } from "./types";
import "./teach.css";

export type { TeachView, TeachMode };

/** What the teaching hooks need from the page. */
export interface TeachHost {
  /** The teaching view of a function of the last analysis. */
  request(functionId: number): Promise<TeachView | null>;
  /** The editor's text (a lesson is "not started" while it is its example's). */
  text?(): string;
}

/** What the CFG panel calls. */
export interface Teach {
  bar: HTMLElement;
  pane: HTMLElement;
  /** The mode's DOT options (1.6r1 draws no 1.6r2 regions). */
  adjust(opts: DotOptions): void;
  /** A new report, or another function drawn. */
  update(report: AnalyzeReport | undefined, functionId: number | undefined): void;
  /** A click on a block, a construct's cluster, or nothing. */
  click(block: number | null, cluster?: number): void;
  /** Put the teaching marks on the drawing (after the panel's own). */
  mark(svg: SVGSVGElement): void;
}

/** The event that asks the page to open a gallery example (main.ts). */
export const OPEN_EXAMPLE = "spvlab:open-example";

export function openExample(id: string) {
  document.dispatchEvent(new CustomEvent(OPEN_EXAMPLE, { detail: { id } }));
}

const TEACH_CLASSES = [
  "teach-diff", "teach-masked", "teach-r1-back", "teach-member", "teach-dominated", "teach-excluded",
  "teach-in", "teach-exit-ok", "teach-exit-bad", "teach-allowed-target",
];

/** What the teaching hooks ask of the panel: draw again (another DOT), put
 *  the marks again, and fit the graph to a view whose height changed. */
export interface TeachPanel {
  redraw(): void;
  remark(): void;
  refit(): void;
}

export function mountTeach(root: HTMLElement, host: TeachHost | undefined, panel: TeachPanel): Teach {
  const st = {
    mode: "1.6r2" as TeachMode,
    report: undefined as AnalyzeReport | undefined,
    fn: undefined as number | undefined,
    view: undefined as TeachView | undefined,
    /** The report and function the view is of. */
    viewOf: undefined as [AnalyzeReport, number] | undefined,
    asked: undefined as [AnalyzeReport, number] | undefined,
    token: 0,
    block: undefined as number | undefined,
    cluster: undefined as number | undefined,
    hovered: undefined as number | undefined,
    lesson: undefined as Lesson | undefined,
  };

  const bar = document.createElement("div");
  bar.className = "teach-bar";
  const modes = modeBar((m) => setMode(m));
  const lessons = document.createElement("select");
  lessons.className = "teach-lesson-select";
  lessons.setAttribute("aria-label", "guided lesson");
  lessons.title = "A guided lesson on one of the paper's figures";
  lessons.add(new Option("lessons…", ""));
  for (const l of LESSONS) lessons.add(new Option(l.title, l.id));
  lessons.addEventListener("change", () => startLesson(LESSONS.find((l) => l.id === lessons.value)));
  bar.append(modes.element, lessons);
  bar.setAttribute("role", "group");
  bar.setAttribute("aria-label", "teaching");
  const pane = document.createElement("div");
  pane.className = "teach-pane";
  pane.setAttribute("aria-live", "polite");
  modes.show(st.mode);
  root.dataset.teachMode = st.mode;

  function setMode(m: TeachMode) {
    if (m === st.mode) return;
    const redraw = (m === "1.6r1") !== (st.mode === "1.6r1");
    st.mode = m;
    st.hovered = undefined;
    root.dataset.teachMode = m;
    modes.show(m);
    fetch();
    render();
    if (redraw) panel.redraw();
    else panel.remark();
  }

  function startLesson(l: Lesson | undefined) {
    st.lesson = l;
    lessons.value = l?.id ?? "";
    root.dataset.lesson = l?.id ?? "";
    if (l) {
      openExample(l.example);
      setMode(l.mode);
      fetch();
    }
    render();
  }

  const fnView = () => st.report?.functions.find((f) => f.id === st.fn);
  const name = (id: number) => fnView()?.blocks.find((b) => b.id === id)?.name ?? String(id);
  // The view is asked for only when something shows it (a mode other than
  // 1.6r2, a click, a lesson): it costs the worker O(blocks x constructs),
  // and an edit's diagnostics should not wait behind it.
  const needed = () => st.mode !== "1.6r2" || st.block !== undefined || st.cluster !== undefined || st.lesson !== undefined;

  function fetch() {
    const r = st.report;
    const fn = st.fn;
    if (!host || !r || fn === undefined || !r.assembled || !needed()) return;
    if (st.asked && st.asked[0] === r && st.asked[1] === fn) return;
    st.asked = [r, fn];
    const mine = ++st.token;
    host
      .request(fn)
      .then((v) => {
        if (mine !== st.token) return;
        st.view = v ?? undefined;
        st.viewOf = [r, fn];
        root.dataset.teachViews = String(Number(root.dataset.teachViews ?? 0) + 1);
        modes.verdicts(st.view);
        render();
        panel.remark();
      })
      .catch((e: unknown) => console.warn("spvlab: the teaching view failed", e));
  }

  function render() {
    const parts: HTMLElement[] = [];
    const r = st.report;
    if (st.lesson && r) {
      const state = lessonState(st.lesson, r, host?.text?.());
      root.dataset.lessonState = state;
      root.dataset.lessonGoal = String(meets(st.lesson.expect, r));
      parts.push(lessonCard(st.lesson, state, () => startLesson(st.lesson)));
    } else {
      delete root.dataset.lessonState;
      delete root.dataset.lessonGoal;
    }
    const v = st.view;
    if (v && st.viewOf && st.viewOf[1] === st.fn) {
      if (st.mode === "1.6r1") parts.push(r1Pane(v, name, (i) => ((st.hovered = i), panel.remark())));
      else if (st.mode === "compare") parts.push(comparePane(v));
      const focus = focusOf(v, st.block, st.cluster);
      if (focus !== undefined && st.mode !== "1.6r1") parts.push(explorerPane(v.constructs[focus], focus, name));
      if (st.block !== undefined) parts.push(containingPane(v.containing.find((c) => c.block === st.block), v, name));
      if (st.mode === "1.6r2" && focus === undefined && st.block === undefined && !v.r2.valid) parts.push(r2Pane(v));
    }
    const before = pane.offsetHeight;
    pane.replaceChildren(...parts);
    pane.hidden = parts.length === 0;
    if (pane.offsetHeight !== before) panel.refit();
  }

  return {
    bar,
    pane,
    adjust(opts) {
      if (st.mode === "1.6r1") opts.constructs = false;
    },
    update(report, fn) {
      if (report === st.report && fn === st.fn) return;
      if (fn !== st.fn) {
        st.block = st.cluster = undefined;
      }
      st.report = report;
      st.fn = fn;
      if (report && report.assembled) fetch();
      render();
    },
    click(block, cluster) {
      st.block = block ?? undefined;
      st.cluster = block === null ? cluster : undefined;
      fetch();
      render();
      panel.remark();
    },
    mark(svg) {
      for (const c of TEACH_CLASSES) svg.querySelectorAll(`.${c}`).forEach((e) => e.classList.remove(c));
      svg.querySelectorAll(".teach-overlay").forEach((e) => e.remove());
      const v = st.view;
      if (!v || !st.viewOf || st.viewOf[1] !== st.fn || v.function !== st.fn) return;
      if (st.mode === "compare") markCompare(svg, v);
      if (st.mode === "1.6r1") {
        markR1(svg, v, st.hovered);
        return;
      }
      const focus = focusOf(v, st.block, st.cluster);
      if (focus !== undefined) markExplorer(svg, v.constructs[focus]);
    },
  };
}
