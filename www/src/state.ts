// The page's state: one typed object in one store (www/src/store.ts). Each
// panel renders from it (www/src/panels/*.ts); event handlers only call
// `store.update`. Nothing else in www/src keeps module-level mutable state.
import type { AnalyzeReport, CfgView } from "./api";
import { Store } from "./store";

/** The tabs, in order (Alt+1 to Alt+6). */
export const PANELS = ["problems", "cfg", "disassembly", "binary", "run", "wgsl"] as const;
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
