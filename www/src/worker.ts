// The page's Web Worker: every engine call runs here, so typing never blocks.
// It answers the WorkerRequest messages of api.ts with WorkerResponse ones,
// calling the engine's exports (web/src/lib.rs). One engine Session keeps the
// last analysis, which every CFG drawing reads.
//
// Two builds of the engine: the lean one (pkg-lean/: everything but the
// interpreter's draw and the GPU runner) starts with the page; the full one
// (pkg/) is loaded on the first run that needs it, a draw (a request with
// `draw`) or a WebGPU run, and its sessions analyse the same texts again
// (once per text) before they run them.
import init, * as wasm from "../../pkg-lean/spvlab_web.js";
import type { AmberCheck, AmberFailure, AmberScript, Diagnostic, DotOptions, FleshOutcome, FleshRequest, GeneratedCfg, QuizQuestion, Reflection, RunFailure, RunRequest, RunResult, ShareState, WgslView, WorkerRequest, WorkerResponse } from "./api";

const ready = init();

type Engine = typeof wasm;

/** The full engine, loaded once on first use. */
function loadFull(): Promise<Engine> {
  return import("../../pkg/spvlab_web.js").then(async (m) => {
    await m.default();
    return m as unknown as Engine;
  });
}

/** A session of the full engine that follows one of the lean engine's:
 *  the text it last analysed, analysed again when it changed. */
class Follower {
  private session: wasm.Session | undefined;
  private input: string | undefined;

  /** The session, with `text` at `targetEnv` analysed. */
  get(full: Engine, text: string, targetEnv: string): wasm.Session {
    this.session ??= new full.Session();
    const key = `${targetEnv}\n${text}`;
    if (this.input !== key) {
      this.session.analyzeJson({ text, targetEnv });
      this.input = key;
    }
    return this.session;
  }
}

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
  /** What each lean session last analysed, for the full engine's copies. */
  private input: { editor?: [string, string]; flesh?: [string, string] } = {};
  private full: Promise<Engine> | undefined;
  private followers = { editor: new Follower(), flesh: new Follower() };

  /** The report as JSON text (see `analyzeJson` in web/src/lib.rs), parsed by
   *  the page's side (engine.ts): one string crosses the thread boundary
   *  instead of thousands of small objects. */
  analyze(text: string, targetEnv: string): { json: string; elapsedMs: number } {
    const t0 = performance.now();
    this.session ??= new wasm.Session();
    const json = this.session.analyzeJson({ text, targetEnv }) as string;
    this.input.editor = [text, targetEnv];
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
  async run(request: RunRequest, program?: "flesh"): Promise<{ result: RunResult; elapsedMs: number }> {
    // A draw runs on the full engine (its load is not timed).
    const session = request.draw ? await this.fullRunner(program) : this.runner(program);
    const t0 = performance.now();
    const result = session.run(request) as RunResult;
    return { result, elapsedMs: performance.now() - t0 };
  }

  /** The full engine (loaded now if it is not yet). */
  fullEngine(): Promise<Engine> {
    this.full ??= loadFull();
    return this.full;
  }

  /** The full engine's session for a program, holding what the lean
   *  engine's session of that program last analysed. */
  private async fullRunner(program: "flesh" | undefined): Promise<wasm.Session> {
    const full = await this.fullEngine();
    const which = program === "flesh" ? "flesh" : "editor";
    const [text, env] = this.input[which] ?? ["", "spv1.0"];
    return this.followers[which].get(full, text, env);
  }

  /** A function of the last analysis fleshed; the program is analysed in
   *  its own session for the runs that follow. */
  flesh(request: FleshRequest): FleshOutcome {
    this.session ??= new wasm.Session();
    const outcome = this.session.flesh(request) as FleshOutcome;
    const p = outcome.program;
    if (p) {
      this.runner("flesh").analyzeJson({ text: p.text, targetEnv: p.targetEnv });
      this.input.flesh = [p.text, p.targetEnv];
    }
    return outcome;
  }

  /** Our WGSL of the last analysis, with its source map (the WGSL tab). */
  wgsl(): WgslView {
    this.session ??= new wasm.Session();
    return this.session.wgsl() as WgslView;
  }

  /** The last analysis run on the interpreter, as an Amber file. */
  async amberExport(request: RunRequest): Promise<{ text?: string; error?: RunFailure }> {
    // A draw is drawn on the full engine, as for a run.
    const session = request.draw ? await this.fullRunner(undefined) : (this.session ??= new wasm.Session());
    return session.amberExport(request) as { text?: string; error?: RunFailure };
  }

  /** The WebGPU run of the last analysis: the module is taken when the call
   *  starts; while the GPU works, the worker answers other messages. */
  async runGpu(request: RunRequest, program?: "flesh"): Promise<{ result: RunResult; elapsedMs: number }> {
    const session = await this.fullRunner(program);
    const t0 = performance.now();
    const result = (await session.runGpu(request)) as RunResult;
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
      return { kind: "run", id: req.id, ...(await w.run(req.request, req.program)) };
    case "runGpu":
      return { kind: "runGpu", id: req.id, ...(await w.runGpu(req.request, req.program)) };
    case "generateCfg":
      return { kind: "generateCfg", id: req.id, generated: wasm.generateCfg(req.request) as GeneratedCfg };
    case "flesh":
      return { kind: "flesh", id: req.id, outcome: w.flesh(req.request) };
    case "quiz":
      return { kind: "quiz", id: req.id, question: wasm.quizQuestion(req.seed, req.blocks) as QuizQuestion };
    case "loseDevice":
      (await w.fullEngine()).loseGpuDevice();
      return { kind: "loseDevice", id: req.id };
    case "wgsl": {
      const t0 = performance.now();
      const view = w.wgsl();
      return { kind: "wgsl", id: req.id, view, elapsedMs: performance.now() - t0 };
    }
    case "amberLoad":
      return { kind: "amberLoad", id: req.id, ...(wasm.amberLoad(req.source) as { script?: AmberScript; error?: AmberFailure }) };
    case "amberCheck":
      return { kind: "amberCheck", id: req.id, check: wasm.amberCheck(req.source, req.buffers, req.image) as AmberCheck };
    case "amberExport":
      return { kind: "amberExport", id: req.id, ...(await w.amberExport(req.request)) };
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
