// The CodeMirror editor and its SPIR-V help: squiggles, id hover, go to
// definition (F12, Ctrl/Cmd-click), find references (Shift+F12), completion,
// and the lines of the CFG block hovered or selected in the graph.
import { EditorState, StateEffect, StateField, type Extension, type Range } from "@codemirror/state";
import {
  EditorView, Decoration, type DecorationSet, keymap, lineNumbers, highlightActiveLine,
  highlightActiveLineGutter, drawSelection, hoverTooltip, highlightSpecialChars,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab, isolateHistory } from "@codemirror/commands";
import { autocompletion, completionKeymap, type CompletionContext } from "@codemirror/autocomplete";
import { setDiagnostics, lintGutter, lintKeymap, type Diagnostic as CmDiagnostic } from "@codemirror/lint";
import { searchKeymap, highlightSelectionMatches } from "@codemirror/search";
import { bracketMatching } from "@codemirror/language";
import type { AnalyzeReport, IdInfo, TextRange } from "../api";
import { spirvLanguage, spirvHighlight } from "./spirv";

export interface EditorHooks {
  onChange(text: string): void;
  onCursor(pos: number): void;
  /** Words to complete (grammar names), or null to use what the report shows. */
  grammarWords(): string[] | null;
  /** A message for the status line (e.g. "3 references"). */
  say(msg: string): void;
}

const setRefs = StateEffect.define<{ from: number; to: number }[]>();
const setBlockLines = StateEffect.define<{ hover: TextRange | null; selected: TextRange | null }>();

const refsField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(deco, tr) {
    for (const e of tr.effects) {
      if (e.is(setRefs)) {
        const len = tr.state.doc.length;
        const marks = e.value
          .filter((r) => r.from < r.to && r.to <= len)
          .sort((a, b) => a.from - b.from)
          .map((r) => Decoration.mark({ class: "cm-ref" }).range(r.from, r.to));
        return Decoration.set(marks, true);
      }
    }
    return tr.docChanged ? Decoration.none : deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});

function lineDecos(state: EditorState, r: TextRange | null, cls: string): Range<Decoration>[] {
  if (!r) return [];
  const len = state.doc.length;
  const a = state.doc.lineAt(Math.min(r.from, len)).number;
  const b = state.doc.lineAt(Math.min(Math.max(r.to, r.from), len)).number;
  const out: Range<Decoration>[] = [];
  for (let l = a; l <= b && l - a < 5000; l++) out.push(Decoration.line({ class: cls }).range(state.doc.line(l).from));
  return out;
}

const blockField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(deco, tr) {
    deco = deco.map(tr.changes);
    for (const e of tr.effects) {
      if (e.is(setBlockLines)) {
        const all = [
          ...lineDecos(tr.state, e.value.selected, "cm-block-selected"),
          ...lineDecos(tr.state, e.value.hover, "cm-block-hover"),
        ];
        return Decoration.set(all, true);
      }
    }
    return deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});

/** The `%id` token at a position, if any. */
function idTokenAt(state: EditorState, pos: number): { from: number; to: number; text: string } | null {
  const line = state.doc.lineAt(pos);
  for (const m of line.text.matchAll(/%[A-Za-z0-9_.-]+/g)) {
    const from = line.from + (m.index ?? 0);
    const to = from + m[0].length;
    if (pos >= from && pos <= to) return { from, to, text: m[0] };
  }
  return null;
}

export class SpirvEditor {
  readonly view: EditorView;
  private report: AnalyzeReport | null = null;
  private refIndex = new Map<number, IdInfo>();
  private nameIndex = new Map<string, IdInfo>();
  private hoverBlock: TextRange | null = null;
  private selectedBlock: TextRange | null = null;
  /** Without grammar words: the opcodes and enumerants of every disassembly seen. */
  private seenWords = new Set<string>();

  constructor(parent: HTMLElement, text: string, private hooks: EditorHooks) {
    const extensions: Extension[] = [
      lineNumbers(),
      highlightActiveLineGutter(),
      highlightSpecialChars(),
      history(),
      drawSelection(),
      bracketMatching(),
      highlightActiveLine(),
      highlightSelectionMatches(),
      spirvLanguage,
      spirvHighlight,
      lintGutter(),
      autocompletion({ override: [(c) => this.complete(c)], activateOnTyping: true }),
      hoverTooltip((view, pos) => this.hover(view, pos), { hoverTime: 250 }),
      refsField,
      blockField,
      keymap.of([
        { key: "F12", run: () => this.gotoDefinition(this.view.state.selection.main.head) },
        { key: "Shift-F12", run: () => this.findReferences(this.view.state.selection.main.head) },
        { key: "Escape", run: () => this.clearRefs() },
        ...completionKeymap,
        ...searchKeymap,
        ...historyKeymap,
        ...lintKeymap,
        ...defaultKeymap,
        indentWithTab,
      ]),
      EditorView.domEventHandlers({
        // A dropped file opens as the whole module (files.ts), not as text
        // inserted where it fell.
        drop: (ev) => (ev.dataTransfer?.files.length ?? 0) > 0,
        mousedown: (ev, view) => {
          if (!(ev.ctrlKey || ev.metaKey) || ev.button !== 0) return false;
          const pos = view.posAtCoords({ x: ev.clientX, y: ev.clientY });
          if (pos == null) return false;
          if (this.gotoDefinition(pos)) {
            ev.preventDefault();
            return true;
          }
          return false;
        },
      }),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) this.hooks.onChange(u.state.doc.toString());
        if (u.selectionSet || u.docChanged) this.hooks.onCursor(u.state.selection.main.head);
      }),
      EditorView.contentAttributes.of({ "aria-label": "SPIR-V assembly", spellcheck: "false" }),
    ];
    this.view = new EditorView({ parent, state: EditorState.create({ doc: text, extensions }) });
  }

  text(): string {
    return this.view.state.doc.toString();
  }

  /** Replace the whole text (a load, an example, a share link). */
  setText(text: string) {
    this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: text }, selection: { anchor: 0 } });
  }

  /** Replace the whole text as one undo step of its own, never merged with
   *  the user's typing just before or after it (undo gives their text back
   *  exactly). */
  replaceText(text: string) {
    this.view.dispatch({
      changes: { from: 0, to: this.view.state.doc.length, insert: text },
      selection: { anchor: 0 },
      annotations: isolateHistory.of("full"),
    });
  }

  setReport(report: AnalyzeReport) {
    this.report = report;
    if (!this.hooks.grammarWords() && this.seenWords.size < 5000) {
      for (const m of report.disassembly.matchAll(/\b(Op[A-Za-z0-9_]+|[A-Z][A-Za-z0-9_]{2,})\b/g)) this.seenWords.add(m[1]);
    }
    this.refIndex.clear();
    this.nameIndex.clear();
    for (const info of report.ids) {
      for (const r of info.refs) this.refIndex.set(r.from, info);
      if (info.def) this.refIndex.set(this.defToken(info.def)?.from ?? info.def.from, info);
      this.nameIndex.set("%" + info.name, info);
    }
    const len = this.view.state.doc.length;
    const diags: CmDiagnostic[] = [];
    for (const d of report.diagnostics) {
      if (!d.range) continue;
      const from = Math.min(Math.max(0, d.range.from), len);
      let to = Math.min(Math.max(from, d.range.to), len);
      if (to === from) to = Math.min(this.view.state.doc.lineAt(from).to, len);
      diags.push({
        from, to,
        severity: d.severity === "note" ? "info" : d.severity,
        source: d.code,
        message: d.message + (d.label ? ` (${d.label})` : "") + (d.help ? `\nhelp: ${d.help}` : ""),
      });
    }
    this.view.dispatch(setDiagnostics(this.view.state, diags));
  }

  /** The `%x` token that starts a defining instruction's range. */
  private defToken(def: TextRange): { from: number; to: number } | null {
    const len = this.view.state.doc.length;
    if (def.from >= len) return null;
    const slice = this.view.state.doc.sliceString(def.from, Math.min(def.to, len, def.from + 400));
    const m = slice.match(/^\s*(%[A-Za-z0-9_.-]+)\s*=/);
    if (!m) return null;
    const from = def.from + slice.indexOf(m[1]);
    return { from, to: from + m[1].length };
  }

  idAt(pos: number): IdInfo | null {
    const tok = idTokenAt(this.view.state, pos);
    if (!tok) return null;
    return this.refIndex.get(tok.from) ?? this.nameIndex.get(tok.text) ?? null;
  }

  private hover(_view: EditorView, pos: number) {
    const info = this.idAt(pos);
    const tok = idTokenAt(this.view.state, pos);
    if (!info || !tok) return null;
    return {
      pos: tok.from,
      end: tok.to,
      above: true,
      create: () => {
        const dom = document.createElement("div");
        dom.className = "cm-id-hover";
        const name = document.createElement("div");
        name.className = "hover-name";
        name.textContent = `%${info.name}` + (info.type ? ` : ${info.type}` : "");
        const def = document.createElement("code");
        def.textContent = info.defText || "(no definition)";
        const refs = document.createElement("div");
        refs.className = "hover-refs";
        refs.textContent = `${info.refs.length} use${info.refs.length === 1 ? "" : "s"} · F12 definition · Shift+F12 references`;
        dom.append(name, def, refs);
        return { dom };
      },
    };
  }

  gotoDefinition(pos: number): boolean {
    const info = this.idAt(pos);
    if (!info?.def) return false;
    const at = this.defToken(info.def)?.from ?? info.def.from;
    const anchor = Math.min(at, this.view.state.doc.length);
    this.view.dispatch({ selection: { anchor }, scrollIntoView: true });
    this.view.focus();
    this.hooks.say(`definition of %${info.name} on line ${this.view.state.doc.lineAt(anchor).number}`);
    return true;
  }

  findReferences(pos: number): boolean {
    const info = this.idAt(pos);
    if (!info) return false;
    const ranges = info.refs.map((r) => ({ from: r.from, to: r.to }));
    const def = info.def && this.defToken(info.def);
    if (def) ranges.push(def);
    this.view.dispatch({ effects: setRefs.of(ranges) });
    this.hooks.say(`%${info.name}: ${info.refs.length} reference${info.refs.length === 1 ? "" : "s"} (Esc clears)`);
    return true;
  }

  clearRefs(): boolean {
    if (this.view.state.field(refsField).size === 0) return false;
    this.view.dispatch({ effects: setRefs.of([]) });
    return true;
  }

  /** Lines of the CFG block hovered (or null) in the graph. */
  setHoverBlock(r: TextRange | null) {
    this.hoverBlock = r;
    this.view.dispatch({ effects: setBlockLines.of({ hover: r, selected: this.selectedBlock }) });
  }

  setSelectedBlock(r: TextRange | null) {
    this.selectedBlock = r;
    this.view.dispatch({ effects: setBlockLines.of({ hover: this.hoverBlock, selected: r }) });
    if (r) this.view.dispatch({ effects: EditorView.scrollIntoView(Math.min(r.from, this.view.state.doc.length), { y: "center" }) });
  }

  /** Select a range and show it (a problem entry was clicked). */
  reveal(r: TextRange) {
    const len = this.view.state.doc.length;
    const from = Math.min(r.from, len);
    this.view.dispatch({ selection: { anchor: from, head: Math.min(Math.max(r.to, from), len) }, scrollIntoView: true });
    this.view.focus();
  }

  private complete(ctx: CompletionContext) {
    const word = ctx.matchBefore(/%?[A-Za-z_][A-Za-z0-9_.]*/);
    if (!word || (word.from === word.to && !ctx.explicit)) return null;
    if (word.text.startsWith("%")) {
      const ids = this.report?.ids ?? [];
      return {
        from: word.from,
        options: ids.map((i) => ({ label: "%" + i.name, type: "variable", detail: i.type })),
        validFor: /^%[A-Za-z0-9_.]*$/,
      };
    }
    const words = this.hooks.grammarWords() ?? [...this.seenWords];
    return {
      from: word.from,
      options: words.map((w) => ({ label: w, type: w.startsWith("Op") ? "keyword" : "constant" })),
      validFor: /^[A-Za-z0-9_.]*$/,
    };
  }
}
