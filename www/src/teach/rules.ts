// The Problems panel's links for a structured-control-flow diagnostic: to
// its rule's explanation (rules-data.ts, shown with the problem) and to the
// gallery example that shows the rule.
import { EXAMPLES } from "../gallery";
import { openExample } from "./index";
import { ruleTeaching } from "./rules-data";

function button(className: string, text: string, title: string): HTMLButtonElement {
  const b = document.createElement("button");
  b.type = "button";
  b.className = className;
  b.textContent = text;
  b.title = title;
  return b;
}

function exampleButton(id: string): HTMLButtonElement | undefined {
  const ex = EXAMPLES.find((e) => e.id === id);
  if (!ex) return undefined;
  const b = button("example-link", `example: ${ex.title.replace(/:.*/, "")}`, `Open the gallery example “${ex.title}”`);
  b.dataset.example = id;
  b.addEventListener("click", () => openExample(id));
  return b;
}

/** The links after a problem in the list (none for other rules). */
export function ruleLinks(code: string, index: number): HTMLElement[] {
  const t = ruleTeaching(code);
  if (!t) return [];
  const span = document.createElement("span");
  span.className = "teach-links";
  const rule = button("rule-link", "rule", "Explain this rule");
  rule.dataset.index = String(index);
  span.append(rule);
  const ex = exampleButton(t.example);
  if (ex) span.append(ex);
  return [span];
}

/** The rule's explanation, shown with the selected problem. */
export function ruleTeachingPane(code: string): HTMLElement | undefined {
  const t = ruleTeaching(code);
  if (!t) return undefined;
  const box = document.createElement("section");
  box.className = "rule-teaching";
  box.dataset.code = code;
  const h = document.createElement("h4");
  h.textContent = "The rule, for a learner";
  const p = document.createElement("p");
  p.textContent = t.text;
  box.append(h, p);
  const ex = exampleButton(t.example);
  if (ex) box.append(ex);
  return box;
}
