// The page's Web Worker: every engine call runs here, so typing never blocks.
// It answers the WorkerRequest messages of api.ts with WorkerResponse ones,
// calling the engine's exports (web/src/lib.rs). One engine Session keeps the
// last analysis, which every CFG drawing reads.
import init, * as wasm from "../../pkg/spvlab_web.js";
import type { AmberCheck, AmberFailure, AmberScript, Diagnostic, DotOptions, FleshOutcome, FleshRequest, GeneratedCfg, QuizQuestion, Reflection, RunFailure, RunRequest, RunResult, ShareState, WgslView, WorkerRequest, WorkerResponse } from "./api";

const ready = init();

function post(msg: WorkerResponse) {
  (self as unknown as Worker).postMessage(msg);
}

/** The worker's state: the engine's session (made on the first analysis),
 *  which holds the last analysis that every CFG drawing reads. */
class EngineWorker {
  private session: wasm.Session | undefined;
  /** The last fleshed program's own session (the Flesh panel's runs), so
   *  that running it leaves the editor's analysis alone. */
  private fleshed: wasm.Session | undefined;

  /** The report as JSON text (see `analyzeJson` in web/src/lib.rs), parsed by
   *  the page's side (engine.ts): one string crosses the thread boundary
   *  instead of thousands of small objects. */
  analyze(text: string, targetEnv: string): { json: string; elapsedMs: number } {
    const t0 = performance.now();
    this.session ??= new wasm.Session();
    const json = this.session.analyzeJson({ text, targetEnv }) as string;
    return { json, elapsedMs: performance.now() - t0 };
  }

  dot(fn: number, options: DotOptions): string {
    return this.session ? (this.session.cfgDot(fn, options) as string) : "";
  }

  teach(fn: number): string {
    return this.session ? (this.session.teachJson(fn) as string) : "null";
  }

  reflect(): Reflection | null {
    return this.session ? ((this.session.reflect() as Reflection | undefined) ?? null) : null;
  }

  /** The session a run runs: the editor's, or the last fleshed program's. */
  private runner(program: "flesh" | undefined): wasm.Session {
    if (program === "flesh") return (this.fleshed ??= new wasm.Session());
    return (this.session ??= new wasm.Session());
  }

  /** The interpreter's run of the last analysis (synchronous: the worker is
   *  busy meanwhile, the page is not). */
  run(request: RunRequest, program?: "flesh"): { result: RunResult; elapsedMs: number } {
    const t0 = performance.now();
    const result = this.runner(program).run(request) as RunResult;
    return { result, elapsedMs: performance.now() - t0 };
  }

  /** A function of the last analysis fleshed; the program is analysed in
   *  its own session for the runs that follow. */
  flesh(request: FleshRequest): FleshOutcome {
    this.session ??= new wasm.Session();
    const outcome = this.session.flesh(request) as FleshOutcome;
    const p = outcome.program;
    if (p) this.runner("flesh").analyzeJson({ text: p.text, targetEnv: p.targetEnv });
    return outcome;
  }

  /** Our WGSL of the last analysis, with its source map (the WGSL tab). */
  wgsl(): WgslView {
    this.session ??= new wasm.Session();
    return this.session.wgsl() as WgslView;
  }

  /** The last analysis run on the interpreter, as an Amber file. */
  amberExport(request: RunRequest): { text?: string; error?: RunFailure } {
    this.session ??= new wasm.Session();
    return this.session.amberExport(request) as { text?: string; error?: RunFailure };
  }

  /** The WebGPU run of the last analysis: the module is taken when the call
   *  starts; while the GPU works, the worker answers other messages. */
  async runGpu(request: RunRequest, program?: "flesh"): Promise<{ result: RunResult; elapsedMs: number }> {
    const t0 = performance.now();
    const result = (await this.runner(program).runGpu(request)) as RunResult;
    return { result, elapsedMs: performance.now() - t0 };
  }
}

async function handle(w: EngineWorker, req: WorkerRequest): Promise<WorkerResponse> {
  await ready;
  switch (req.kind) {
    case "init":
      return {
        kind: "init",
        id: req.id,
        version: wasm.version(),
        targetEnvs: wasm.targetEnvs(),
        defaultTargetEnv: wasm.defaultTargetEnv(),
        grammarWords: wasm.grammarWords(),
      };
    case "analyze":
      return { kind: "analyzeJson", id: req.id, ...w.analyze(req.request.text, req.request.targetEnv) };
    case "dot": {
      const t0 = performance.now();
      const dot = w.dot(req.function, req.options);
      return { kind: "dot", id: req.id, dot, elapsedMs: performance.now() - t0 };
    }
    case "teach":
      return { kind: "teach", id: req.id, json: w.teach(req.function) };
    case "reflect":
      return { kind: "reflect", id: req.id, reflection: w.reflect() };
    case "run":
      return { kind: "run", id: req.id, ...w.run(req.request, req.program) };
    case "runGpu":
      return { kind: "runGpu", id: req.id, ...(await w.runGpu(req.request, req.program)) };
    case "generateCfg":
      return { kind: "generateCfg", id: req.id, generated: wasm.generateCfg(req.request) as GeneratedCfg };
    case "flesh":
      return { kind: "flesh", id: req.id, outcome: w.flesh(req.request) };
    case "quiz":
      return { kind: "quiz", id: req.id, question: wasm.quizQuestion(req.seed, req.blocks) as QuizQuestion };
    case "loseDevice":
      wasm.loseGpuDevice();
      return { kind: "loseDevice", id: req.id };
    case "wgsl": {
      const t0 = performance.now();
      const view = w.wgsl();
      return { kind: "wgsl", id: req.id, view, elapsedMs: performance.now() - t0 };
    }
    case "amberLoad":
      return { kind: "amberLoad", id: req.id, ...(wasm.amberLoad(req.source) as { script?: AmberScript; error?: AmberFailure }) };
    case "amberCheck":
      return { kind: "amberCheck", id: req.id, check: wasm.amberCheck(req.source, req.buffers) as AmberCheck };
    case "amberExport":
      return { kind: "amberExport", id: req.id, ...w.amberExport(req.request) };
    case "disassembleBinary": {
      const r = wasm.disassemble(req.bytes, undefined) as { ok: boolean; text: string; diagnostics: Diagnostic[] };
      return { kind: "disassembleBinary", id: req.id, text: r.ok ? r.text : undefined, diagnostics: r.diagnostics };
    }
    case "encodeShare": {
      const fragment = wasm.encodeShare(req.state) as string;
      return { kind: "encodeShare", id: req.id, fragment: fragment.replace(/^#/, "") };
    }
    case "decodeShare": {
      // The engine never throws on a bad link: it says what is wrong.
      const r = wasm.decodeShare(req.fragment.replace(/^#/, "")) as {
        state?: ShareState;
        error?: string;
        code?: string;
      };
      return r.state
        ? { kind: "decodeShare", id: req.id, state: r.state }
        : { kind: "decodeShare", id: req.id, error: r.error ?? "the link could not be read" };
    }
  }
}

function serve() {
  const w = new EngineWorker();
  self.onmessage = async (ev: MessageEvent<WorkerRequest>) => {
    const req = ev.data;
    try {
      post(await handle(w, req));
    } catch (e) {
      post({ kind: "error", id: req.id, message: e instanceof Error ? e.message : String(e) });
    }
  };
}

serve();
