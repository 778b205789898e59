// The WGSL tab: our WGSL of the current module (web/src/wgsl.rs,
// `session.wgsl()` in the worker), read-only, with its two-way source map:
// hovering a WGSL line, or moving the cursor on one, marks the SPIR-V
// instruction it came from in the editor; moving the cursor in the editor
// marks the WGSL lines of the instruction under it (or, on a line that
// produced no WGSL of its own, such as an OpLabel, of its block). A module
// our lowering refuses shows the reason code and the located message, with a
// jump to the instruction. The lowering runs only while the tab is open,
// once per analysis.
import { EditorState, StateEffect, StateField, type Range } from "@codemirror/state";
import { Decoration, EditorView, lineNumbers, highlightActiveLine, type DecorationSet } from "@codemirror/view";
import { HighlightStyle, StreamLanguage, syntaxHighlighting } from "@codemirror/language";
import { tags as t } from "@lezer/highlight";
import type { AnalyzeReport, TextRange, WgslView } from "../api";
import { el } from "../dom";
import type { Engine } from "../engine";
import { errorText, type AppStore } from "../state";
import type { SpirvEditor } from "../ui/editor";

const KEYWORDS = new Set(
  ("alias break case const const_assert continue continuing default diagnostic discard else enable fn for if let loop " +
    "override requires return struct switch var while true false").split(" "),
);
const TYPES = new Set(
  ("bool f16 f32 i32 u32 vec2 vec3 vec4 mat2x2 mat2x3 mat2x4 mat3x2 mat3x3 mat3x4 mat4x2 mat4x3 mat4x4 array atomic ptr " +
    "sampler sampler_comparison texture_1d texture_2d texture_2d_array texture_3d texture_cube texture_cube_array " +
    "texture_multisampled_2d texture_depth_2d texture_depth_2d_array texture_depth_cube texture_depth_cube_array " +
    "texture_depth_multisampled_2d texture_storage_1d texture_storage_2d texture_storage_2d_array texture_storage_3d " +
    "vec2f vec3f vec4f vec2i vec3i vec4i vec2u vec3u vec4u vec2h vec3h vec4h").split(" "),
);
const SPACES = new Set("function private workgroup uniform storage read write read_write".split(" "));

/** WGSL highlighting: keywords, types, attributes, numbers, comments. */
const wgslLanguage = StreamLanguage.define<{ depth: number }>({
  name: "wgsl",
  startState: () => ({ depth: 0 }),
  token(stream, state) {
    if (state.depth > 0) {
      while (!stream.eol()) {
        if (stream.match("*/")) {
          state.depth--;
          if (state.depth === 0) break;
        } else if (stream.match("/*")) state.depth++;
        else stream.next();
      }
      return "comment";
    }
    if (stream.eatSpace()) return null;
    if (stream.match("//")) {
      stream.skipToEnd();
      return "comment";
    }
    if (stream.match("/*")) {
      state.depth = 1;
      return "comment";
    }
    if (stream.match(/^@[A-Za-z_][A-Za-z0-9_]*/)) return "meta";
    if (stream.match(/^(0[xX][0-9a-fA-F]+|\d+(\.\d*)?([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)[iufh]?/)) return "number";
    const w = stream.match(/^[A-Za-z_][A-Za-z0-9_]*/) as RegExpMatchArray | null;
    if (w) {
      if (KEYWORDS.has(w[0])) return "keyword";
      if (TYPES.has(w[0])) return "typeName";
      if (SPACES.has(w[0])) return "atom";
      return stream.peek() === "(" ? "variableName.function" : "variableName";
    }
    stream.next();
    return null;
  },
  languageData: { commentTokens: { line: "//" } },
});

const wgslHighlight = syntaxHighlighting(
  HighlightStyle.define([
    { tag: t.comment, color: "var(--tok-comment)", fontStyle: "italic" },
    { tag: t.keyword, color: "var(--tok-op)", fontWeight: "600" },
    { tag: t.typeName, color: "var(--tok-enum)" },
    { tag: t.atom, color: "var(--tok-enum)" },
    { tag: t.meta, color: "var(--tok-string)" },
    { tag: t.number, color: "var(--tok-number)" },
    { tag: t.function(t.variableName), color: "var(--tok-id)" },
  ]),
);

/** Mark whole lines (1-based numbers) with a class, in one editor. */
function lineMarks(cls: string) {
  const set = StateEffect.define<number[]>();
  const field = StateField.define<{ lines: number[]; deco: DecorationSet }>({
    create: () => ({ lines: [], deco: Decoration.none }),
    update(v, tr) {
      for (const e of tr.effects) {
        if (!e.is(set)) continue;
        const doc = tr.state.doc;
        const lines = [...new Set(e.value)].filter((l) => l >= 1 && l <= doc.lines).sort((a, b) => a - b);
        const marks: Range<Decoration>[] = lines.map((l) => Decoration.line({ class: cls }).range(doc.line(l).from));
        return { lines, deco: Decoration.set(marks) };
      }
      return tr.docChanged ? { lines: [], deco: Decoration.none } : v;
    },
    provide: (f) => EditorView.decorations.from(f, (v) => v.deco),
  });
  return { set, field };
}

/** What the tests read: the lines each side marks now. */
export interface WgslPanel {
  /** 1-based line numbers marked in the SPIR-V editor / in the WGSL view. */
  marked(): { spirv: number[]; wgsl: number[] };
  /** The WGSL view (its document is the WGSL text). */
  view: EditorView;
  /** The last answer shown (null before the first). */
  shown(): WgslView | null;
}

export function mountWgsl(store: AppStore, engine: Engine, editor: SpirvEditor): WgslPanel {
  const panel = document.getElementById("panel-wgsl") as HTMLElement;
  const head = el("div", "wgsl-head");
  head.id = "wgsl-status";
  head.setAttribute("aria-live", "polite");
  const refusal = el("div", "wgsl-refusal");
  refusal.id = "wgsl-refusal";
  refusal.hidden = true;
  const host = el("div", "wgsl-code");
  host.id = "wgsl-code";
  panel.append(head, refusal, host);

  // Marks in the SPIR-V editor (added to it once) and in the WGSL view.
  const src = lineMarks("cm-wgsl-src");
  editor.view.dispatch({ effects: StateEffect.appendConfig.of(src.field) });
  const dst = lineMarks("cm-wgsl-map");

  let shown: WgslView | null = null;
  /** The report `shown` belongs to (its sourceMap gives the ranges). */
  let shownFor: AnalyzeReport | null = null;
  /** Per instruction index: the WGSL lines (1-based) that came from it. */
  let byInst = new Map<number, number[]>();
  /** The WGSL line hovered, and the one under the WGSL cursor (1-based). */
  let hovered: number | null = null;
  let cursorLine: number | null = null;

  const view = new EditorView({
    parent: host,
    state: EditorState.create({
      doc: "",
      extensions: [
        lineNumbers(),
        highlightActiveLine(),
        EditorState.readOnly.of(true),
        wgslLanguage,
        wgslHighlight,
        dst.field,
        EditorView.contentAttributes.of({ "aria-label": "WGSL (read-only)", spellcheck: "false" }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) return;
          if (u.selectionSet && u.transactions.some((tr) => tr.isUserEvent("select"))) {
            cursorLine = u.state.doc.lineAt(u.state.selection.main.head).number;
            markSpirv();
          }
        }),
        EditorView.domEventHandlers({
          mousemove: (ev, v) => {
            const pos = v.posAtCoords({ x: ev.clientX, y: ev.clientY }, false);
            const line = v.state.doc.lineAt(pos).number;
            if (line !== hovered) {
              hovered = line;
              markSpirv();
            }
            return false;
          },
          mouseleave: () => {
            hovered = null;
            markSpirv();
            return false;
          },
        }),
      ],
    }),
  });

  /** The SPIR-V instruction a WGSL line (1-based) came from. */
  const instOf = (line: number | null): number | null => (line === null ? null : (shown?.lines[line - 1] ?? null));
  const rangeOf = (i: number | null): TextRange | null => (i === null ? null : (shownFor?.sourceMap[i]?.range ?? null));

  /** WGSL → SPIR-V: the hovered line's instruction, else the cursor's. */
  function markSpirv() {
    const r = rangeOf(instOf(hovered ?? cursorLine));
    const lines: number[] = [];
    if (r && store.get().report === shownFor) for (let l = r.line; l <= r.endLine; l++) lines.push(l);
    editor.view.dispatch({ effects: src.set.of(lines) });
    if (r && hovered === null && lines.length) {
      const doc = editor.view.state.doc;
      editor.view.dispatch({ effects: EditorView.scrollIntoView(doc.line(Math.min(lines[0], doc.lines)).from, { y: "nearest" }) });
    }
  }

  /** SPIR-V → WGSL: the WGSL lines of the instructions on the editor's
   *  cursor line, else of the block on that line. */
  function markWgsl() {
    const s = store.get();
    const r = s.report;
    const out: number[] = [];
    if (shown?.ok && r && r === shownFor && s.docVersion === s.reportVersion) {
      const doc = editor.view.state.doc;
      const line = doc.lineAt(Math.min(s.cursor, doc.length)).number;
      const onLine: number[] = [];
      r.sourceMap.forEach((m, i) => {
        if (m.range.line <= line && line <= m.range.endLine) onLine.push(i);
      });
      for (const i of onLine) out.push(...(byInst.get(i) ?? []));
      if (!out.length) {
        for (const f of r.functions)
          for (const b of f.blocks) {
            const br = b.range;
            if (!br || !(br.line <= line && line <= br.endLine)) continue;
            r.sourceMap.forEach((m, i) => {
              if (br.from <= m.range.from && m.range.to <= br.to) out.push(...(byInst.get(i) ?? []));
            });
          }
      }
    }
    view.dispatch({ effects: dst.set.of(out) });
    if (out.length) {
      const first = Math.min(...out);
      view.dispatch({ effects: EditorView.scrollIntoView(view.state.doc.line(first).from, { y: "nearest" }) });
    }
  }

  function show(v: WgslView, r: AnalyzeReport, ms: number) {
    shown = v;
    shownFor = r;
    hovered = null;
    cursorLine = null;
    byInst = new Map();
    v.lines.forEach((i, k) => {
      if (i === null) return;
      const list = byInst.get(i);
      if (list) list.push(k + 1);
      else byInst.set(i, [k + 1]);
    });
    const f = v.failure;
    refusal.hidden = !f || f.kind !== "refused";
    if (v.ok) {
      const n = v.lines.length;
      head.textContent = `our WGSL · ${n} line${n === 1 ? "" : "s"} · lowered in ${ms.toFixed(1)} ms · hover a line to see its SPIR-V`;
      head.className = "wgsl-head";
    } else if (f?.kind === "refused") {
      head.textContent = "our lowering refuses this module: WGSL cannot express it";
      head.className = "wgsl-head bad";
      const code = el("span", "code", f.code ?? "");
      code.id = "wgsl-refusal-code";
      const msg = el("div", "msg", f.message + (f.more ? ` (and ${f.more} more)` : ""));
      const parts: HTMLElement[] = [code, msg];
      if (f.why) parts.push(el("div", "why", `why: ${f.why}`));
      if (f.instruction !== undefined && f.line !== undefined) {
        const jump = el("button", "jump", `go to line ${f.line}:${f.column ?? 1}`);
        jump.type = "button";
        const at = f.instruction;
        jump.addEventListener("click", () => {
          const range = r.sourceMap[at]?.range;
          if (range) editor.reveal(range);
        });
        parts.push(jump);
      }
      refusal.replaceChildren(...parts);
    } else {
      head.textContent = f?.message ?? "no WGSL";
      head.className = "wgsl-head";
    }
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: v.ok ? v.text : "" }, selection: { anchor: 0 } });
    panel.dataset.wgslFor = String(store.get().reportVersion);
    markSpirv();
    markWgsl();
  }

  // One lowering at a time, of the newest report, while the tab is open.
  let busy = false;
  let again = false;
  async function refresh() {
    if (busy) {
      again = true;
      return;
    }
    const s = store.get();
    const r = s.report;
    if (s.panel !== "wgsl" || !r || r === shownFor) return;
    busy = true;
    again = false;
    try {
      const resp = await engine.send({ kind: "wgsl" });
      // The worker lowered its last analysis: the page's report must still be
      // the one asked about (else the next refresh asks again).
      if (store.get().report === r) show(resp.view, r, resp.elapsedMs);
      else again = true;
    } catch (e) {
      head.textContent = `engine error: ${errorText(e)}`;
      head.className = "wgsl-head bad";
    } finally {
      busy = false;
      if (again) void refresh();
    }
  }

  store.watch(
    (s) => [s.panel === "wgsl" ? s.report : null],
    () => void refresh(),
  );
  store.watch(
    (s) => [s.panel === "wgsl" ? s.cursor : -1, s.panel === "wgsl" ? s.report : null],
    (s) => s.panel === "wgsl" && markWgsl(),
  );
  // Leaving the tab clears the editor's marks.
  store.watch(
    (s) => [s.panel],
    (s) => {
      if (s.panel !== "wgsl") {
        hovered = null;
        cursorLine = null;
        editor.view.dispatch({ effects: src.set.of([]) });
      }
    },
  );

  return {
    marked: () => ({ spirv: editor.view.state.field(src.field).lines, wgsl: view.state.field(dst.field).lines }),
    view,
    shown: () => shown,
  };
}
