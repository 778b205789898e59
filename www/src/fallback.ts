// Stop-gap for an engine that only has assemble/validate/disassemble: a partial
// AnalyzeReport (no CFG, ids found by a regex), and share links compressed in
// JavaScript. Each piece is used only while the engine lacks the export (see
// worker.ts); delete this file once web/src/lib.rs has them all.
import type { AnalyzeReport, Diagnostic, IdInfo, ShareState, TextRange } from "./api";

type Fn = (...args: unknown[]) => unknown;
type Engine = Record<string, Fn | undefined>;

interface OldSpan { start: number; end: number; line: number; col: number; endLine: number; endCol: number }
interface OldDiag {
  code: string; severity: Diagnostic["severity"]; message: string; unit: string; span: OldSpan;
  label: string; help: string | null; rendered: string; summary?: string | null; explanation?: string | null;
  wordStart?: number | null;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

function range(starts: number[], line: number, col: number, endLine: number, endCol: number): TextRange {
  const at = (l: number, c: number) => (starts[Math.max(0, l - 1)] ?? 0) + Math.max(0, c - 1);
  return { from: at(line, col), to: at(endLine, endCol), line, column: col, endLine, endColumn: endCol };
}

function diag(raw: OldDiag | Map<string, unknown>, starts: number[] | null): Diagnostic {
  // validate's diagnostics are serde-flattened, so they arrive as Maps.
  const d = (raw instanceof Map ? Object.fromEntries(raw) : raw) as OldDiag;
  return {
    code: d.code,
    severity: d.severity,
    message: d.message,
    range: starts && d.unit === "text" ? range(starts, d.span.line, d.span.col, d.span.endLine, d.span.endCol) : undefined,
    wordOffset: d.unit === "binary" ? d.span.start : (d.wordStart ?? undefined),
    label: d.label,
    related: [],
    help: d.help ?? undefined,
    summary: d.summary ?? undefined,
    explanation: d.explanation ?? undefined,
    rendered: d.rendered,
    blocks: [],
    edges: [],
  };
}

function bytesOf(words: number[]): Uint8Array {
  const bytes = new Uint8Array(words.length * 4);
  const view = new DataView(bytes.buffer);
  words.forEach((w, i) => view.setUint32(i * 4, w >>> 0, true));
  return bytes;
}

export function analyze(e: Engine, text: string, targetEnv: string): AnalyzeReport {
  const starts = lineStarts(text);
  const asm = e.assemble!(text, targetEnv) as { ok: boolean; words: number[]; diagnostics: OldDiag[] };
  const report: AnalyzeReport = {
    assembled: asm.ok, valid: false, words: asm.ok ? asm.words : [], diagnostics: [],
    disassembly: "", sourceMap: [], functions: [], ids: [],
  };
  if (!asm.ok) {
    report.diagnostics = asm.diagnostics.map((d) => diag(d, starts));
    return report;
  }
  const val = e.validate!(text, targetEnv) as { valid: boolean; diagnostics: OldDiag[] };
  report.valid = val.valid;
  report.diagnostics = val.diagnostics.map((d) => diag(d, starts));
  const dis = e.disassemble!(bytesOf(asm.words), {}) as { ok: boolean; text: string };
  report.disassembly = dis.ok ? dis.text : "";
  // One instruction per non-blank, non-comment line, in order.
  const lines = text.split("\n");
  let w = 5;
  const ids = new Map<string, IdInfo>();
  lines.forEach((raw, i) => {
    const t = (raw.match(/^(?:[^;"]|"(?:[^"\\]|\\.)*"?)*/)?.[0] ?? raw).trim();
    if (!t) return;
    const col = raw.indexOf(t) + 1;
    const r = range(starts, i + 1, col, i + 1, col + t.length);
    const count = (asm.words[w] ?? 0) >>> 16;
    if (w < asm.words.length) report.sourceMap.push({ wordOffset: w, wordCount: count, range: r });
    w += Math.max(1, count);
    for (const m of t.matchAll(/%[A-Za-z0-9_.-]+/g)) {
      const name = m[0].slice(1);
      const info = ids.get(name) ?? { id: 0, name, defText: "", refs: [] };
      ids.set(name, info);
      const c = col + (m.index ?? 0);
      const rr = range(starts, i + 1, c, i + 1, c + m[0].length);
      if (m.index === 0 && /^%\S+\s*=/.test(t)) {
        info.def = r;
        info.defText = t;
        const type = t.match(/=\s*Op\w+\s+(%\S+)/);
        if (type && !/^%\S+\s*=\s*OpType/.test(t)) info.type = type[1];
      } else info.refs.push(rr);
    }
  });
  report.ids = [...ids.values()];
  return report;
}

export function disassembleBinary(e: Engine, bytes: Uint8Array) {
  const r = e.disassemble!(bytes, {}) as { ok: boolean; text: string; diagnostics: OldDiag[] };
  return { text: r.ok ? r.text : undefined, diagnostics: r.diagnostics.map((d) => diag(d, null)) };
}

const MAX_SHARE = 4 << 20;

function b64url(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

async function pipe(bytes: Uint8Array, t: CompressionStream | DecompressionStream, cap: number): Promise<Uint8Array> {
  const reader = new Blob([bytes as BlobPart]).stream().pipeThrough(t).getReader();
  const parts: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.length;
    if (n > cap) {
      await reader.cancel();
      throw new Error("the link's data is too large");
    }
    parts.push(value);
  }
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) (out.set(p, o), (o += p.length));
  return out;
}

export async function encodeShare(state: ShareState): Promise<string> {
  const json = new TextEncoder().encode(JSON.stringify(state));
  return "v1/" + b64url(await pipe(json, new CompressionStream("deflate-raw"), Infinity));
}

export async function decodeShare(fragment: string): Promise<ShareState> {
  const m = fragment.match(/^v1\/([A-Za-z0-9_-]*)$/);
  if (!m) throw new Error("not a spvlab v1 link");
  let bin: string;
  try {
    bin = atob(m[1].replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    throw new Error("the link is not valid base64url");
  }
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(await pipe(bytes, new DecompressionStream("deflate-raw"), MAX_SHARE)));
  } catch (e) {
    throw new Error(e instanceof Error && /too large/.test(e.message) ? e.message : "the link's data is corrupted");
  }
  return json as ShareState;
}
