// Files: a SPIR-V binary (.spv) opened or dropped is disassembled into the
// editor; an Amber file (.amber, or text starting `#!amber`) goes to the Run
// tab (panels/run-amber.ts: its shader to the editor, its inputs to the
// tab); another text file (.spvasm) opens as it is; Download saves the
// module's words as .spv.
import { byId, el } from "./dom";
import type { Engine } from "./engine";
import { errorText, type AppStore } from "./state";

const MAGIC = 0x07230203;

/** What a file holds: SPIR-V words (by the magic number, either byte order),
 *  or text. */
function isBinary(bytes: Uint8Array): boolean {
  if (bytes.length < 4) return false;
  const le = (bytes[0] | (bytes[1] << 8) | (bytes[2] << 16) | (bytes[3] << 24)) >>> 0;
  const be = ((bytes[0] << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3]) >>> 0;
  return le === MAGIC || be === MAGIC;
}

/** An Amber file, by its name or its first line. */
export function isAmber(name: string, text: string): boolean {
  return /\.amber$/i.test(name) || /^\s*#!amber\b/.test(text);
}

export function mountFiles(store: AppStore, engine: Engine, setText: (text: string) => void, openAmber?: (text: string, name: string) => Promise<boolean>) {
  const say = (text: string) => store.update({ status: { text, tone: "" } });

  async function open(file: File) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const textName = /\.(spvasm|asm|txt|spirv)$/i.test(file.name);
    if (isBinary(bytes) || (!textName && /\.spv$/i.test(file.name))) {
      const r = await engine.send({ kind: "disassembleBinary", bytes });
      if (r.text === undefined) {
        const why = r.diagnostics.map((d) => d.message).join("; ") || "unknown error";
        store.update({ banner: `${file.name} is not a SPIR-V binary: ${why}` });
        return;
      }
      store.update({ banner: null });
      setText(r.text);
    } else {
      let text: string;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      } catch (e) {
        store.update({ banner: `${file.name} is neither a SPIR-V binary nor UTF-8 text (${errorText(e)})` });
        return;
      }
      if (openAmber && isAmber(file.name, text)) {
        // It says what it loaded, or where the file is wrong.
        await openAmber(text, file.name);
        return;
      }
      store.update({ banner: null });
      setText(text);
    }
    say(`opened ${file.name}`);
  }
  const openReporting = (f: File) =>
    open(f).catch((e: unknown) => store.update({ banner: `could not open ${f.name}: ${errorText(e)}` }));

  const input = byId<HTMLInputElement>("open-file");
  byId("open-btn").addEventListener("click", () => input.click());
  input.addEventListener("change", () => {
    const f = input.files?.[0];
    if (f) void openReporting(f);
    input.value = "";
  });

  const overlay = byId("drop-overlay");
  document.addEventListener("dragover", (ev) => {
    if (!ev.dataTransfer?.types.includes("Files")) return;
    ev.preventDefault();
    overlay.hidden = false;
  });
  document.addEventListener("dragleave", (ev) => {
    if (ev.relatedTarget === null) overlay.hidden = true;
  });
  document.addEventListener("drop", (ev) => {
    overlay.hidden = true;
    const f = ev.dataTransfer?.files[0];
    if (!f) return;
    ev.preventDefault();
    void openReporting(f);
  });

  byId("download-btn").addEventListener("click", () => {
    const r = store.get().report;
    if (!r?.assembled) return;
    const bytes = new Uint8Array(r.words.length * 4);
    const view = new DataView(bytes.buffer);
    r.words.forEach((w, i) => view.setUint32(i * 4, w >>> 0, true));
    const a = el("a");
    a.href = URL.createObjectURL(new Blob([bytes], { type: "application/octet-stream" }));
    a.download = "module.spv";
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  });
}
