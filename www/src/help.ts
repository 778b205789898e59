// The help and about panel (a dialog, www/index.html): keyboard shortcuts,
// the spec sections the explanations cite, the engine's version and the
// SPIRV-Tools release whose verdicts it matches. F1 or the ? button.
import { byId, el } from "./dom";
import { PAPER } from "./examples";
import { SPEC_SECTIONS, specLink } from "./spec";
import type { AppStore } from "./state";

/** The SPIRV-Tools release whose spirv-val verdicts the engine matches (the
 *  oracle of tests/tests/corpus_val.rs). */
export const REFERENCE_SPIRV_TOOLS = "v2025.5";

export function mountHelp(store: AppStore) {
  const dialog = byId<HTMLDialogElement>("help");
  byId("help-spirv-tools").textContent = REFERENCE_SPIRV_TOOLS;
  byId("help-spec-links").append(...SPEC_SECTIONS.map((sec) => {
    const li = el("li");
    li.append(specLink(sec), `: ${sec.about}`);
    return li;
  }));
  const paper = byId("help-paper");
  const a = el("a", "", PAPER.title);
  a.href = PAPER.url;
  a.target = "_blank";
  a.rel = "noopener";
  paper.append("The CFG view and the structured control flow rules follow Klimis et al., “", a, `”, ${PAPER.venue}.`);

  // The dialog's own state leads: after Escape it is closed at once, but its
  // "close" event comes a task later, so the store may still say open; F1 or
  // the button in between must open it again, and the late event must not
  // close it.
  const show = (open: boolean) => {
    if (open && !dialog.open) dialog.showModal();
    else if (!open && dialog.open) dialog.close();
    store.update({ helpOpen: dialog.open });
  };
  byId("help-btn").addEventListener("click", () => show(true));
  dialog.addEventListener("close", () => {
    if (!dialog.open) store.update({ helpOpen: false });
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key !== "F1" || ev.ctrlKey || ev.altKey || ev.metaKey) return;
    ev.preventDefault();
    show(!dialog.open);
  });

  store.watch(
    (s) => [s.engine],
    (s) => (byId("help-version").textContent = s.engine?.version ?? "(loading)"),
  );
  store.watch(
    (s) => [s.helpOpen],
    (s) => {
      if (s.helpOpen && !dialog.open) dialog.showModal();
      else if (!s.helpOpen && dialog.open) dialog.close();
    },
  );
}
