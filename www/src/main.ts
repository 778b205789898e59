// The spvlab page: assemble what is typed, show diagnostics or the words and
// their disassembly. All the work is done by the wasm build of spvlab-core
// (through the spvlab-web facade, built into ../pkg by ./x).
import init, {
  assemble,
  disassemble,
  targetEnvs,
  defaultTargetEnv,
  version,
} from "../../pkg/spvlab_web.js";
import { SAMPLE } from "./sample";

interface Span {
  start: number;
  end: number;
  line: number;
  col: number;
  endLine: number;
  endCol: number;
}

interface Diag {
  code: string;
  severity: "error" | "warning" | "note";
  message: string;
  unit: "text" | "binary";
  span: Span;
  label: string;
  help: string | null;
  rendered: string;
}

interface AsmReport {
  ok: boolean;
  words: number[];
  diagnostics: Diag[];
}

interface DisReport {
  ok: boolean;
  text: string;
  diagnostics: Diag[];
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const source = $<HTMLTextAreaElement>("source");
const envSelect = $<HTMLSelectElement>("target-env");
const status = $("status");
const summary = $("summary");
const diagnostics = $<HTMLUListElement>("diagnostics");
const hex = $("hex");
const dis = $("disassembly");

/** `line:col: severity[code]: message`, or `word N: ...` for binary spans. */
export function formatDiag(d: Diag): string {
  const at = d.unit === "text" ? `${d.span.line}:${d.span.col}` : `word ${d.span.start}`;
  let s = `${at}: ${d.severity}[${d.code}]: ${d.message}`;
  if (d.label) s += ` (${d.label})`;
  if (d.help) s += `\n  help: ${d.help}`;
  return s;
}

function hexDump(words: number[]): string {
  const lines: string[] = [];
  for (let i = 0; i < words.length; i += 4) {
    const row = words.slice(i, i + 4).map((w) => (w >>> 0).toString(16).padStart(8, "0"));
    lines.push(`${i.toString().padStart(5, " ")}: ${row.join(" ")}`);
  }
  return lines.join("\n");
}

function bytesOf(words: number[]): Uint8Array {
  const bytes = new Uint8Array(words.length * 4);
  const view = new DataView(bytes.buffer);
  words.forEach((w, i) => view.setUint32(i * 4, w >>> 0, true));
  return bytes;
}

function showDiagnostics(list: Diag[]) {
  diagnostics.replaceChildren(
    ...list.map((d) => {
      const li = document.createElement("li");
      li.className = d.severity;
      li.textContent = formatDiag(d);
      li.title = d.rendered;
      if (d.unit === "text") {
        li.addEventListener("click", () => {
          source.focus();
          source.setSelectionRange(d.span.start, Math.max(d.span.end, d.span.start));
        });
      }
      return li;
    }),
  );
}

function update() {
  let report: AsmReport;
  try {
    report = assemble(source.value, envSelect.value) as AsmReport;
  } catch (e) {
    status.textContent = `error: ${e}`;
    status.className = "error";
    return;
  }
  showDiagnostics(report.diagnostics);
  if (!report.ok) {
    const n = report.diagnostics.length;
    summary.textContent = `${n} error${n === 1 ? "" : "s"}`;
    summary.className = "failed";
    hex.textContent = "";
    dis.textContent = "";
    return;
  }
  const words = report.words;
  summary.textContent = `${words.length} words (${words.length * 4} bytes)`;
  summary.className = "ok";
  hex.textContent = hexDump(words);
  const back = disassemble(bytesOf(words), {}) as DisReport;
  dis.textContent = back.ok ? back.text : back.diagnostics.map(formatDiag).join("\n");
}

async function main() {
  await init();
  for (const name of targetEnvs()) {
    envSelect.add(new Option(name, name, false, name === defaultTargetEnv()));
  }
  source.value = SAMPLE;
  source.addEventListener("input", update);
  envSelect.addEventListener("change", update);
  update();
  status.textContent = `spvlab ${version()} ready`;
  document.body.dataset.ready = "true";
}

main().catch((e) => {
  status.textContent = `failed to load: ${e}`;
  status.className = "error";
  console.error(e);
});
