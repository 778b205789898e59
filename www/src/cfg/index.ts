// The CFG panel: draws a function's structured CFG (DOT from the engine, laid
// out by Graphviz compiled to wasm), with its merge and continue edges and its
// constructs. Owned by the CFG panel work; the page shell only calls this API.
import type { AnalyzeReport, Diagnostic, DotOptions } from "../api";

/** What the panel needs from the page. */
export interface CfgHost {
  /** DOT for one function of the current text (computed in the worker). */
  requestDot(functionId: number, options: DotOptions): Promise<string>;
  /** The user hovered a block (or left it): the page highlights its lines. */
  onHoverBlock(blockId: number | null): void;
  /** The user clicked a block: the page selects its lines. */
  onSelectBlock(blockId: number | null): void;
  /** The function shown changed (for share links). */
  onFunctionChange(functionId: number): void;
}

/** What the page can ask of the panel. */
export interface CfgPanel {
  /** A new analysis is available (after each edit). */
  update(report: AnalyzeReport): void;
  /** Highlight blocks, e.g. the block under the editor's cursor. */
  highlightBlocks(blockIds: number[]): void;
  /** Mark the blocks and edges of the selected problem (or clear). */
  showDiagnostic(d: Diagnostic | null): void;
  /** Show this function (from a share link). */
  setFunction(functionId: number): void;
  currentFunction(): number | undefined;
}

/** Placeholder until the CFG panel lands: lists the functions' block counts. */
export function mountCfgPanel(root: HTMLElement, host: CfgHost): CfgPanel {
  let current: number | undefined;
  const p = document.createElement("p");
  root.replaceChildren(p);
  return {
    update(report) {
      p.textContent = report.functions.map((f) => `${f.name}: ${f.blocks.length} blocks`).join("; ");
      if (current === undefined && report.functions.length > 0) {
        current = report.functions[0].id;
        host.onFunctionChange(current);
      }
    },
    highlightBlocks() {},
    showDiagnostic() {},
    setFunction(id) {
      current = id;
    },
    currentFunction() {
      return current;
    },
  };
}
