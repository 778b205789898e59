// The Disassembly and Binary panels. Each renders only while it is the open
// panel (the text of a big module is not rebuilt per keystroke unseen); the
// binary view marks the instruction under the editor's cursor.
import type { AnalyzeReport } from "../api";
import { byId, el } from "../dom";
import type { AppStore, Panel } from "../state";

/** Render `panel` from the report while it is open (again when it opens). */
function whileOpen(store: AppStore, panel: Panel, render: (r: AnalyzeReport) => void) {
  store.watch(
    (s) => [s.panel === panel ? s.report : null],
    (s) => s.panel === panel && s.report && render(s.report),
  );
}

export function mountDisassembly(store: AppStore) {
  const pre = byId("disassembly");
  whileOpen(store, "disassembly", (r) => {
    pre.textContent = r.disassembly || (r.assembled ? "" : "(the text does not assemble)");
  });
}

const hex8 = (w: number) => (w >>> 0).toString(16).padStart(8, "0");

/** The sourceMap index of the instruction at a text position, or -1. */
export function instructionAt(r: AnalyzeReport, pos: number): number {
  const map = r.sourceMap;
  let lo = 0;
  let hi = map.length - 1;
  let best = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (map[mid].range.from <= pos) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best >= 0 && pos <= map[best].range.to ? best : -1;
}

export function mountBinary(store: AppStore) {
  const pre = byId("hex");
  const summary = byId("binary-summary");
  whileOpen(store, "binary", (r) => {
    summary.textContent = r.assembled
      ? `${r.words.length} words (${r.words.length * 4} bytes), ${r.sourceMap.length} instructions`
      : "The text does not assemble.";
    const frag = document.createDocumentFragment();
    if (r.words.length >= 5) {
      frag.append(el("span", "hdr", `${"0".padStart(6)}: ${r.words.slice(0, 5).map(hex8).join(" ")}  ; header\n`));
    }
    r.sourceMap.forEach((m, i) => {
      const words = r.words.slice(m.wordOffset, m.wordOffset + m.wordCount).map(hex8).join(" ");
      const span = el("span", "inst", `${String(m.wordOffset).padStart(6)}: ${words}\n`);
      span.dataset.i = String(i);
      frag.append(span);
    });
    pre.replaceChildren(frag);
  });
  // The instruction under the cursor (after the words above are in place).
  store.watch(
    (s) => [s.panel === "binary" ? s.report : null, s.panel === "binary" ? s.cursor : -1],
    (s) => {
      if (s.panel !== "binary" || !s.report) return;
      pre.querySelector(".inst.cur")?.classList.remove("cur");
      const i = instructionAt(s.report, s.cursor);
      if (i < 0) return;
      const span = pre.querySelector<HTMLElement>(`.inst[data-i="${i}"]`);
      if (span) {
        span.classList.add("cur");
        span.scrollIntoView({ block: "nearest" });
      }
    },
  );
}
