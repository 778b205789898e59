// SPIR-V assembly highlighting (a StreamLanguage: opcodes, %ids, literals,
// strings, comments, enumerants) and the highlight style, in CSS variables so
// that the light and dark themes both read well.
import { StreamLanguage, HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { tags as t } from "@lezer/highlight";

export const spirvLanguage = StreamLanguage.define<{ afterEq: boolean }>({
  name: "spirv",
  startState: () => ({ afterEq: false }),
  token(stream, state) {
    if (stream.sol()) state.afterEq = false;
    if (stream.eatSpace()) return null;
    if (stream.match(";")) {
      stream.skipToEnd();
      return "comment";
    }
    if (stream.match('"')) {
      let escaped = false;
      let ch: string | void;
      while ((ch = stream.next()) !== undefined) {
        if (ch === '"' && !escaped) break;
        escaped = !escaped && ch === "\\";
      }
      return "string";
    }
    if (stream.match(/^%[A-Za-z0-9_.-]+/)) return "variableName";
    if (stream.match("=")) {
      state.afterEq = true;
      return "operator";
    }
    if (stream.match(/^Op[A-Za-z0-9_]+/)) return "keyword";
    if (stream.match(/^-?(0x[0-9a-fA-F]+(\.[0-9a-fA-F]*)?(p[+-]?\d+)?|\d+(\.\d*)?([eE][+-]?\d+)?)/)) return "number";
    if (stream.match(/^![0-9a-fA-Fx]+/)) return "number";
    if (stream.match(/^[A-Za-z_][A-Za-z0-9_.]*(\|[A-Za-z_][A-Za-z0-9_.]*)*/)) return "atom";
    stream.next();
    return null;
  },
  languageData: { commentTokens: { line: ";" } },
});

export const spirvHighlight = syntaxHighlighting(
  HighlightStyle.define([
    { tag: t.comment, color: "var(--tok-comment)", fontStyle: "italic" },
    { tag: t.string, color: "var(--tok-string)" },
    { tag: t.variableName, color: "var(--tok-id)" },
    { tag: t.keyword, color: "var(--tok-op)", fontWeight: "600" },
    { tag: t.number, color: "var(--tok-number)" },
    { tag: t.atom, color: "var(--tok-enum)" },
    { tag: t.operator, color: "var(--fg-muted)" },
  ]),
);
