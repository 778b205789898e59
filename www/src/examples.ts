// The Examples dialog: the gallery (www/src/gallery), with the paper its
// figures come from.
import { byId, el } from "./dom";
import { EXAMPLES } from "./gallery";
import type { AppStore } from "./state";

/** The paper whose figures 2 to 9 the gallery draws. */
export const PAPER = {
  authors: "Vasileios Klimis, Jack Clark, Alan Baker, David Neto, John Wickerson, Alastair F. Donaldson",
  title: "Taking Back Control in an Intermediate Representation for GPU Computing",
  venue: "POPL 2023 (Proc. ACM Program. Lang. 7, POPL)",
  url: "https://doi.org/10.1145/3571253",
};

export function mountExamples(store: AppStore, load: (text: string, targetEnv: string) => void) {
  const dialog = byId<HTMLDialogElement>("examples");
  const list = byId("examples-list");
  const intro = el("p", "ex-intro");
  const link = el("a", "", `“${PAPER.title}”`);
  link.href = PAPER.url;
  link.target = "_blank";
  link.rel = "noopener";
  intro.append(
    "The paper examples are figures 2 to 9 of Klimis et al., ",
    link,
    `, ${PAPER.venue}, which defines the structured control flow rules that SPIR-V 1.6 revision 2 adopted.`,
  );
  intro.title = PAPER.authors;
  list.before(intro);
  if (EXAMPLES.length === 0) list.append(el("p", "placeholder", "No examples yet."));
  for (const ex of EXAMPLES) {
    const b = el("button", "example");
    b.type = "button";
    b.dataset.example = ex.id;
    b.append(
      el("span", "ex-title", ex.title),
      el("span", "ex-meta", `${ex.category} · ${ex.targetEnv} · ${ex.valid ? "valid" : "invalid"}`),
      el("span", "ex-caption", ex.caption),
    );
    b.addEventListener("click", () => {
      load(ex.text, ex.targetEnv);
      dialog.close();
      store.update({ status: { text: `example: ${ex.title}`, tone: "" } });
    });
    list.append(b);
  }
  byId("examples-btn").addEventListener("click", () => dialog.showModal());
}
