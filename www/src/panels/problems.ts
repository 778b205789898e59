// The Problems panel: one entry per diagnostic (location, severity, rule
// code, message), the selected one explained below, and the count on its tab
// (always shown, 0 included, so that problems are never out of sight).
import type { AnalyzeReport, Diagnostic, TextRange } from "../api";
import { byId, el } from "../dom";
import { citedSections, specLink } from "../spec";
import type { AppStore } from "../state";
import { ruleLinks, ruleTeachingPane } from "../teach/rules";

function loc(d: Diagnostic): string {
  if (d.range) return `${d.range.line}:${d.range.column}`;
  if (d.wordOffset !== undefined) return `word ${d.wordOffset}`;
  return "";
}

/** After a new analysis: the problem that was selected, if it is still there. */
export function keepSelection(old: AnalyzeReport | null, index: number | null, next: AnalyzeReport): number | null {
  const d = index === null ? undefined : old?.diagnostics[index];
  if (!d) return null;
  const i = next.diagnostics.findIndex((n) => n.code === d.code && n.message === d.message);
  return i >= 0 ? i : null;
}

export function mountProblems(store: AppStore, reveal: (r: TextRange) => void) {
  const list = byId("problems");
  const detail = byId("problem-detail");
  const count = byId("problem-count");
  const tab = byId("tab-problems");

  list.addEventListener("click", (ev) => {
    const rule = (ev.target as HTMLElement).closest<HTMLButtonElement>("button.rule-link");
    if (rule) {
      store.update({ selectedProblem: Number(rule.dataset.index) });
      return;
    }
    const b = (ev.target as HTMLElement).closest<HTMLButtonElement>("button.problem");
    if (!b) return;
    const i = Number(b.dataset.index);
    const d = store.get().report?.diagnostics[i];
    if (!d) return;
    store.update({ selectedProblem: i });
    if (d.range) reveal(d.range);
  });

  // The list and the count: once per analysis.
  store.watch(
    (s) => [s.report],
    (s) => {
      const r = s.report;
      if (!r) return;
      const items = r.diagnostics.map((d, i) => {
        const li = el("li");
        const b = el("button", `problem ${d.severity}`);
        b.type = "button";
        b.dataset.index = String(i);
        if (d.range) {
          b.dataset.line = String(d.range.line);
          b.dataset.col = String(d.range.column);
        }
        b.append(el("span", "loc", loc(d)), el("span", "sev", d.severity), el("span", "code", d.code), el("span", "msg", d.message));
        li.append(b, ...ruleLinks(d.code, i));
        return li;
      });
      if (items.length === 0) items.push(el("li", "none", r.assembled ? "No problems: the module is valid." : "No problems."));
      list.replaceChildren(...items);
      const n = r.diagnostics.length;
      const errors = r.diagnostics.filter((d) => d.severity === "error").length;
      count.textContent = String(n);
      count.className = `count ${errors ? "bad" : n ? "warn" : "zero"}`;
      tab.setAttribute("aria-label", `Problems: ${n}`);
    },
  );

  // The selection and its explanation.
  store.watch(
    (s) => [s.report, s.selectedProblem],
    (s) => {
      for (const b of list.querySelectorAll("button.selected")) b.classList.remove("selected");
      const d = s.selectedProblem === null ? undefined : s.report?.diagnostics[s.selectedProblem];
      if (!d) {
        detail.replaceChildren();
        return;
      }
      list.querySelector(`button[data-index="${s.selectedProblem}"]`)?.classList.add("selected");
      const parts: HTMLElement[] = [el("h3", "", d.summary ?? d.code)];
      parts.push(el("p", "detail-msg", `${d.severity}[${d.code}]: ${d.message}` + (d.label ? ` (${d.label})` : "")));
      if (d.explanation) {
        parts.push(el("p", "explanation", d.explanation));
        const cited = citedSections(d.explanation);
        if (cited.length) {
          const p = el("p", "spec-cited", "The specification: ");
          cited.forEach((sec, i) => p.append(...(i ? [", "] : []), specLink(sec)));
          parts.push(p);
        }
      }
      const teaching = ruleTeachingPane(d.code);
      if (teaching) parts.push(teaching);
      if (d.help) parts.push(el("p", "help", `help: ${d.help}`));
      if (d.rendered) parts.push(el("pre", "rendered", d.rendered));
      detail.replaceChildren(...parts);
    },
  );
}
