// A test page for the CFG panel alone (www/cfg-test.html, used by
// tests/e2e/cfg.test.mjs): the panel mounted on the engine in the main thread
// (no worker), or on a canned report and hand-written DOT. Exposes
// `window.cfgFixture` for the browser test.
import init, * as engine from "../../../pkg-lean/spvlab_web.js";
import type { AnalyzeReport, Diagnostic, DotOptions } from "../api";
import { EXAMPLES } from "../gallery/index";
import { mountCfgPanel, type CfgHost } from "./index";

interface HostEvent {
  kind: "hover" | "select" | "function";
  id: number | null;
}

/** Everything the fixture holds (no module-level state). */
interface FixtureState {
  events: HostEvent[];
  dotRequests: { functionId: number; options: DotOptions }[];
  source: { text: string; targetEnv: string } | undefined;
  canned: Record<number, string> | undefined;
  lastReport: AnalyzeReport | undefined;
  /** The engine's session: the last analysis, which the drawings read. */
  session: engine.Session | undefined;
}

function startFixture() {
  const st: FixtureState = { events: [], dotRequests: [], source: undefined, canned: undefined, lastReport: undefined, session: undefined };
  const { events, dotRequests } = st;

  function analyze(text: string, targetEnv: string): AnalyzeReport {
    st.session ??= new engine.Session();
    return st.session.analyze({ text, targetEnv }) as AnalyzeReport;
  }

  function cfgDot(fn: number, options: DotOptions): string {
    return st.session ? (st.session.cfgDot(fn, options) as string) : "";
  }

  const host: CfgHost = {
    requestDot(functionId, options) {
      dotRequests.push({ functionId, options: { ...options } });
      if (st.canned) {
        const dot = st.canned[functionId];
        return dot === undefined ? Promise.reject(new Error(`no DOT for ${functionId}`)) : Promise.resolve(dot);
      }
      if (!st.source) return Promise.reject(new Error("no module"));
      try {
        return Promise.resolve(cfgDot(functionId, options));
      } catch (e) {
        return Promise.reject(e instanceof Error ? e : new Error(String(e)));
      }
    },
    onHoverBlock(id) {
      events.push({ kind: "hover", id });
    },
    onSelectBlock(id) {
      events.push({ kind: "select", id });
    },
    onFunctionChange(id) {
      events.push({ kind: "function", id });
    },
  };

  const root = document.getElementById("cfg")!;
  const status = document.getElementById("fixture-status")!;
  const panel = mountCfgPanel(root, host);

  const fixture = {
    hasEngine: false,
    version: "",
    events,
    dotRequests,
    panel,
    examples: EXAMPLES,
    /** Analyse `text` with the engine and show it. */
    load(text: string, targetEnv: string) {
      st.canned = undefined;
      st.source = { text, targetEnv };
      const t0 = performance.now();
      const lastReport = analyze(text, targetEnv);
      st.lastReport = lastReport;
      const analyzeMs = performance.now() - t0;
      panel.update(lastReport);
      return {
        assembled: lastReport.assembled,
        valid: lastReport.valid,
        analyzeMs,
        functions: lastReport.functions.map((f) => ({
          id: f.id,
          name: f.name,
          blocks: f.blocks.length,
          blockNames: f.blocks.map((b) => b.name),
          constructs: f.constructs.length,
        })),
        constructs: lastReport.functions.map((f) => f.constructs.map((c) => c.kind)),
      };
    },
    loadExample(id: string) {
      const ex = EXAMPLES.find((e) => e.id === id);
      if (!ex) throw new Error(`no example ${id}`);
      return fixture.load(ex.text, ex.targetEnv);
    },
    /** Load `text` and resolve once the panel is drawn again: the time from
     *  the call (the "edit") to the redrawn graph, for the benchmark. */
    async timeLoad(text: string, targetEnv: string) {
      const before = root.dataset.renders ?? "0";
      const t0 = performance.now();
      const info = fixture.load(text, targetEnv);
      await new Promise<void>((resolve) => {
        const check = () => {
          const state = root.dataset.state;
          if (state === "error" || (state === "ready" && root.dataset.renders !== before)) {
            obs.disconnect();
            resolve();
          }
        };
        const obs = new MutationObserver(check);
        obs.observe(root, { attributes: true });
        check();
      });
      return {
        ...info,
        totalMs: performance.now() - t0,
        state: root.dataset.state,
        dotMs: Number(root.dataset.dotMs),
        layoutMs: Number(root.dataset.layoutMs),
        domMs: Number(root.dataset.domMs),
        parseMs: Number(root.dataset.parseMs),
        workerMs: Number(root.dataset.workerMs),
      };
    },
    /** Show a canned report, with DOT per function id (no engine needed). */
    loadCanned(report: AnalyzeReport, dots: Record<number, string>) {
      st.canned = dots;
      st.source = undefined;
      st.lastReport = report;
      panel.update(report);
    },
    /** The last report shown. */
    report() {
      return st.lastReport;
    },
    showDiagnostic(d: Diagnostic | null) {
      panel.showDiagnostic(d);
    },
    highlight(ids: number[]) {
      panel.highlightBlocks(ids);
    },
  };
  (window as unknown as { cfgFixture: typeof fixture }).cfgFixture = fixture;

  init()
    .then(() => {
      fixture.hasEngine = typeof engine.Session === "function";
      fixture.version = engine.version();
      status.textContent = fixture.hasEngine ? `engine ${fixture.version}` : "engine without a Session: canned reports only";
    })
    .catch((e: unknown) => {
      status.textContent = `wasm failed to load: ${String(e)}`;
    })
    .finally(() => {
      document.body.dataset.ready = "true";
    });
}

startFixture();
