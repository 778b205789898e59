// The page's state: one typed object in one store (www/src/store.ts). Each
// panel renders from it (www/src/panels/*.ts); event handlers only call
// `store.update`. Nothing else in www/src keeps module-level mutable state.
import type { AmberCheck, AmberFailure, AmberScript, AnalyzeReport, CfgView, FleshOutcome, FleshRequest, QuizQuestion, ReflectedEntry, ReflectedSpecConstant, RunRequest, RunResult } from "./api";
import { Store } from "./store";

/** The tabs, in order (Alt+1 to Alt+7). */
export const PANELS = ["problems", "cfg", "disassembly", "binary", "run", "wgsl", "flesh"] as const;
export type Panel = (typeof PANELS)[number];

export const DEFAULT_CFG_VIEW: CfgView = {
  listing: false,
  constructs: true,
  dominators: "none",
  hideUnreachable: false,
  containing: false,
};

export type Tone = "" | "good" | "bad" | "error";

export interface EngineInfo {
  version: string;
  targetEnvs: string[];
  defaultTargetEnv: string;
  grammarWords: string[] | null;
}

/** How a Run result table shows its values: typed, each value's bytes in
 *  hex, or its bits read as a float. */
export type ValueView = "typed" | "hex" | "float";

/** One run: what was asked, and each backend's answer once it came. */
export interface RunOutcome {
  request: RunRequest;
  interp?: RunResult;
  gpu?: RunResult;
  interpMs?: number;
  gpuMs?: number;
}

/** A draw's fields as typed (a Fragment entry point): the framebuffer's
 *  size, its shape (one rectangle, or a grid of columns x rows) and the
 *  colour attachment's format. */
export interface DrawFields {
  width: string;
  height: string;
  shape: "rect" | "grid";
  columns: string;
  rows: string;
  format: string;
  /** The clear colour: R G B A from 0 to 1, spaces between. */
  clear: string;
}

export const DEFAULT_DRAW: DrawFields = { width: "256", height: "256", shape: "rect", columns: "4", rows: "4", format: "B8G8R8A8_UNORM", clear: "0 0 0 0" };

/** The Run tab (panels/run.ts). */
export interface RunState {
  /** The reflection shown: of the report at `reflectedVersion` (-1: none
   *  yet), its GLCompute and Fragment entry points, its settable spec constants, and
   *  whether that module was valid. */
  reflectedVersion: number;
  entries: ReflectedEntry[];
  specConstants: ReflectedSpecConstant[];
  reflectedValid: boolean;
  /** Each bound variable's name as the text spells it (`%buf`), by id. */
  bindingNames: Readonly<Record<number, string>>;
  /** The report version last asked for a reflection (one request each). */
  reflectAsked: number;
  /** Why the last reflection failed, or null. */
  reflectError: string | null;
  /** The entry point chosen, by name ("" or a name the module lacks: the
   *  first); and one asked for (an Amber file, a link) that waits for the
   *  module that has it. */
  entry: string;
  wantEntry: string | undefined;
  /** The fields as the user typed them: each buffer's input and runtime
   *  array length by binding key (absent: the default), spec values by
   *  SpecId (absent or empty: the module's default), the workgroups. */
  buffers: Readonly<Record<string, string>>;
  lengths: Readonly<Record<string, string>>;
  spec: Readonly<Record<string, string>>;
  workgroups: readonly [string, string, string];
  /** A Fragment entry point's draw, as typed. */
  draw: Readonly<DrawFields>;
  /** The draw view's zoom (1 to 8), and the pixel under the pointer. */
  zoom: number;
  hover: readonly [number, number] | null;
  /** A link's draw settings came in: draw once the module is reflected. */
  drawWhenReflected: boolean;
  /** Each result table's view, by binding key (absent: typed). */
  views: Readonly<Record<string, ValueView>>;
  /** The run started last, with the answers come so far (null before the
   *  first), and its number: an answer to an older run is dropped. */
  last: RunOutcome | null;
  runId: number;
  /** The last finished run (a forced dispatch keeps its interpreter result). */
  finished: RunOutcome | null;
  /** Runs finished so far (the tests wait on it). */
  runs: number;
  /** Whether a run is under way, and whether it is a forced dispatch. */
  running: boolean;
  forced: boolean;
  /** The outcome the results show (null: none, or the run under way has no
   *  answer to show yet). */
  shown: RunOutcome | null;
  /** The engine's own failure during the last run, or null. */
  engineError: string | null;
}

export function initialRunState(): RunState {
  return {
    reflectedVersion: -1,
    entries: [],
    specConstants: [],
    reflectedValid: false,
    bindingNames: {},
    reflectAsked: -1,
    reflectError: null,
    entry: "",
    wantEntry: undefined,
    buffers: {},
    lengths: {},
    spec: {},
    workgroups: ["1", "1", "1"],
    draw: DEFAULT_DRAW,
    zoom: 1,
    hover: null,
    drawWhenReflected: false,
    views: {},
    last: null,
    runId: 0,
    finished: null,
    runs: 0,
    running: false,
    forced: false,
    shown: null,
    engineError: null,
  };
}

/** An Amber file in the Run tab (panels/run-amber.ts), and its checks per
 *  backend after the last run. */
export interface LoadedAmber {
  name: string;
  source: string;
  script: AmberScript;
  checks: { interp?: AmberCheck; wgpu?: AmberCheck };
}

/** The Run tab's Amber part: the file loaded, or why the last one opened
 *  did not load, and the invocation a link keeps. */
export interface AmberState {
  loaded: LoadedAmber | null;
  failed: { name: string; error: AmberFailure } | null;
  /** The invocation picked (by the CFG's path view, or a link). */
  invocation: [number, number, number] | undefined;
}

/** The Flesh panel's quiz (teach/quiz.ts): the question shown, and the
 *  learner's answer once given. */
export interface QuizState {
  question: QuizQuestion | null;
  /** "invalid" was said and the block at fault is being picked. */
  picking: boolean;
  /** The answer: valid or not, and for "invalid" the block picked. */
  answer: { valid: boolean; block?: number } | null;
  /** Questions asked and answers given (the tests wait on them). */
  asked: number;
  answered: number;
  error: string | null;
}

/** The Flesh panel (panels/flesh.ts): the last fleshing, its runs on each
 *  backend, and the quiz. */
export interface FleshState {
  request: FleshRequest | null;
  outcome: FleshOutcome | null;
  interp: RunResult | null;
  gpu: RunResult | null;
  /** Whether a fleshing or its runs are under way. */
  busy: boolean;
  /** Fleshings whose runs all answered (the tests wait on it). */
  done: number;
  /** The share link of the fleshed program, once made. */
  share: string | null;
  /** The engine's own failure, or null. */
  error: string | null;
  quiz: QuizState;
}

export function initialFleshState(): FleshState {
  return {
    request: null,
    outcome: null,
    interp: null,
    gpu: null,
    busy: false,
    done: 0,
    share: null,
    error: null,
    quiz: { question: null, picking: false, answer: null, asked: 0, answered: 0, error: null },
  };
}

export interface AppState {
  /** What the engine offers (null until its worker answered). */
  engine: EngineInfo | null;
  targetEnv: string;
  /** The last analysis shown, of the text at `docVersion` `reportVersion`. */
  report: AnalyzeReport | null;
  reportVersion: number;
  /** Analyses shown so far (the tests wait on it). */
  analyses: number;
  /** Bumped by every edit of the text or the target environment. */
  docVersion: number;
  /** When the last edit happened (performance.now()), and how long after the
   *  one before it: edits closer than a moment apart are typing. */
  editedAt: number;
  editGap: number;
  /** Bumped by every change the user makes to what a share link holds (the
   *  text, the target, the CFG's function and options). */
  linkEdits: number;
  /** Whether the user changed anything (autosave only saves their work). */
  userEdited: boolean;
  panel: Panel;
  /** Whether the user chose a panel (else the page opens on the CFG once the
   *  module is valid, on Problems otherwise). */
  panelChosen: boolean;
  /** Index of the selected problem in `report.diagnostics`, or null. */
  selectedProblem: number | null;
  /** The editor's cursor (UTF-16 offset). */
  cursor: number;
  /** The CFG panel: the function drawn and the options. */
  cfgFunction: number | undefined;
  cfgView: CfgView;
  status: { text: string; tone: Tone };
  /** A message across the page (a bad link, a file that is not SPIR-V). */
  banner: string | null;
  /** The link shown after Share, or null. */
  share: { url: string; copied: boolean } | null;
  /** The fragment this page put in the address bar (Share), or "". */
  sharedHash: string;
  /** The theme chosen with the button; null follows the system. */
  theme: "light" | "dark" | null;
  /** Whether the help panel is open. */
  helpOpen: boolean;
  /** The Run tab: its inputs, runs and results; its Amber file. */
  run: RunState;
  amber: AmberState;
  /** The Flesh panel and its quiz. */
  flesh: FleshState;
}

export function initialState(): AppState {
  return {
    engine: null,
    targetEnv: "",
    report: null,
    reportVersion: -1,
    analyses: 0,
    docVersion: 0,
    linkEdits: 0,
    editedAt: -Infinity,
    editGap: Infinity,
    userEdited: false,
    panel: "problems",
    panelChosen: false,
    selectedProblem: null,
    cursor: 0,
    cfgFunction: undefined,
    cfgView: DEFAULT_CFG_VIEW,
    status: { text: "loading…", tone: "" },
    banner: null,
    share: null,
    sharedHash: "",
    theme: null,
    helpOpen: false,
    run: initialRunState(),
    amber: { loaded: null, failed: null, invocation: undefined },
    flesh: initialFleshState(),
  };
}

export type AppStore = Store<AppState>;

export function createAppStore(): AppStore {
  return new Store(initialState());
}

/** A message for the user from an exception. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
