// The page's Web Worker: every engine call runs here, so typing never blocks.
// It answers the WorkerRequest messages of api.ts with WorkerResponse ones.
//
// The engine exports (web/src/lib.rs) used when present:
//   analyze(text, targetEnv) -> AnalyzeReport
//   cfgDot(text, targetEnv, functionId, options: DotOptions) -> string
//   disassembleBinary(bytes: Uint8Array) -> { text?, diagnostics }
//   encodeShare(state: ShareState) -> string (the fragment, `v1/...`)
//   decodeShare(fragment) -> ShareState (throws on a bad link)
//   grammarWords() -> string[]
// Until an engine without them is replaced, `fallback.ts` builds what it can
// from assemble/validate/disassemble (feature-detected, per export).
import init, * as wasm from "../../pkg/spvlab_web.js";
import type { AnalyzeReport, Diagnostic, ShareState, WorkerRequest, WorkerResponse } from "./api";
import * as fb from "./fallback";

type Fn = (...args: unknown[]) => unknown;
const engine = wasm as unknown as Record<string, Fn | undefined>;
const has = (name: string) => typeof engine[name] === "function";
const call = (name: string, ...args: unknown[]) => (engine[name] as Fn)(...args);

const ready = init();

function post(msg: WorkerResponse) {
  (self as unknown as Worker).postMessage(msg);
}

function analyze(text: string, targetEnv: string): AnalyzeReport {
  const t0 = performance.now();
  const report = has("analyze")
    ? (call("analyze", text, targetEnv) as AnalyzeReport)
    : fb.analyze(engine, text, targetEnv);
  report.elapsedMs = performance.now() - t0;
  return report;
}

async function handle(req: WorkerRequest): Promise<WorkerResponse> {
  await ready;
  switch (req.kind) {
    case "init":
      return {
        kind: "init",
        id: req.id,
        version: call("version") as string,
        targetEnvs: call("targetEnvs") as string[],
        defaultTargetEnv: call("defaultTargetEnv") as string,
        grammarWords: has("grammarWords") ? (call("grammarWords") as string[]) : undefined,
      };
    case "analyze":
      return { kind: "analyze", id: req.id, report: analyze(req.request.text, req.request.targetEnv) };
    case "dot":
      if (!has("cfgDot")) return { kind: "error", id: req.id, message: "this engine cannot draw CFGs yet" };
      return {
        kind: "dot",
        id: req.id,
        dot: call("cfgDot", req.text, req.targetEnv, req.function, req.options) as string,
      };
    case "disassembleBinary": {
      const r = has("disassembleBinary")
        ? (call("disassembleBinary", req.bytes) as { text?: string; diagnostics: Diagnostic[] })
        : fb.disassembleBinary(engine, req.bytes);
      return { kind: "disassembleBinary", id: req.id, text: r.text ?? undefined, diagnostics: r.diagnostics };
    }
    case "encodeShare": {
      const fragment = has("encodeShare")
        ? (call("encodeShare", req.state) as string)
        : await fb.encodeShare(req.state);
      return { kind: "encodeShare", id: req.id, fragment: fragment.replace(/^#/, "") };
    }
    case "decodeShare": {
      const fragment = req.fragment.replace(/^#/, "");
      try {
        const state = has("decodeShare")
          ? (call("decodeShare", fragment) as ShareState)
          : await fb.decodeShare(fragment);
        return { kind: "decodeShare", id: req.id, state };
      } catch (e) {
        return { kind: "decodeShare", id: req.id, error: e instanceof Error ? e.message : String(e) };
      }
    }
  }
}

self.onmessage = async (ev: MessageEvent<WorkerRequest>) => {
  const req = ev.data;
  try {
    post(await handle(req));
  } catch (e) {
    post({ kind: "error", id: req.id, message: e instanceof Error ? e.message : String(e) });
  }
};
