// Share links (`#v1/...`, core/src/share.rs): Share puts the state in the
// address bar (the text, the target, the CFG's view, the Run tab's inputs and
// the chosen invocation) and shows the link; the user's next change to anything the link
// holds (the text, the target, the CFG's function or options; `linkEdits`)
// takes the fragment out again, so that a reload never brings back a shared
// state as if it were the current one (the autosave has the current one). The
// same goes for a link the page was opened with.
import type { CfgView, DrawRequest, ShareRun, ShareState } from "./api";
import { byId } from "./dom";
import type { Engine } from "./engine";
import { DEFAULT_CFG_VIEW, PANELS, errorText, type AppStore, type Panel } from "./state";

/** A decoded link's state, checked: what the page can use of it. */
export interface SharedStart {
  text: string;
  targetEnv: string;
  function?: number;
  panel?: Panel;
  cfg?: CfgView;
  /** The Run tab's inputs and the chosen invocation. */
  run?: ShareRun;
}

const DOMINATORS = ["none", "regular", "structural"];

function checkCfg(v: unknown): CfgView {
  const o = v as Record<string, unknown> | null;
  if (!o || typeof o !== "object") throw new Error("the link's CFG options are not an object");
  const view = { ...DEFAULT_CFG_VIEW };
  for (const k of ["listing", "constructs", "hideUnreachable", "containing"] as const) {
    if (o[k] === undefined) continue;
    if (typeof o[k] !== "boolean") throw new Error(`the link's CFG option ${k} is not true or false`);
    view[k] = o[k];
  }
  if (o.dominators !== undefined) {
    if (typeof o.dominators !== "string" || !DOMINATORS.includes(o.dominators)) throw new Error("the link names an unknown dominator tree");
    view.dominators = o.dominators as CfgView["dominators"];
  }
  return view;
}

const triple = (v: unknown) => Array.isArray(v) && v.length === 3 && v.every((n) => Number.isInteger(n) && n >= 0 && n <= 0xffffffff);

function strings(v: unknown, what: string): Record<string, string> {
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new Error(`the link's ${what} are not a map`);
  for (const [k, x] of Object.entries(v)) if (typeof x !== "string") throw new Error(`the link's ${what} ${k} is not text`);
  return { ...(v as Record<string, string>) };
}

const count = (v: unknown) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 0xffffffff;

/** The draw settings of a link, checked (the engine checks their limits
 *  when it draws). */
function checkDraw(v: unknown): DrawRequest {
  const o = v as Record<string, unknown> | null;
  if (!o || typeof o !== "object" || Array.isArray(o)) throw new Error("the link's draw settings are not an object");
  const out: DrawRequest = {};
  for (const k of ["width", "height"] as const) {
    if (o[k] === undefined || o[k] === null) continue;
    if (!count(o[k])) throw new Error(`the link's draw ${k} is not a count`);
    out[k] = o[k] as number;
  }
  if (o.format !== undefined && o.format !== null) {
    if (typeof o.format !== "string") throw new Error("the link's draw format is not a name");
    out.format = o.format;
  }
  const sh = o.shape as Record<string, unknown> | null | undefined;
  if (sh !== undefined && sh !== null) {
    if (sh.kind === "rect") out.shape = { kind: "rect" };
    else if (sh.kind === "grid" && count(sh.columns) && count(sh.rows)) out.shape = { kind: "grid", columns: sh.columns as number, rows: sh.rows as number };
    else throw new Error("the link's draw shape is neither a rect nor a grid of counts");
  }
  return out;
}

/** The run part of a link, checked (the engine checked its shape too). */
function checkRun(v: unknown): ShareRun {
  const o = v as Record<string, unknown> | null;
  if (!o || typeof o !== "object" || Array.isArray(o)) throw new Error("the link's run inputs are not an object");
  const out: ShareRun = {};
  if (o.entry !== undefined && o.entry !== null) {
    if (typeof o.entry !== "string") throw new Error("the link's entry point is not a name");
    out.entry = o.entry;
  }
  for (const k of ["workgroups", "invocation"] as const) {
    if (o[k] === undefined || o[k] === null) continue;
    if (!triple(o[k])) throw new Error(`the link's ${k} are not three counts`);
    out[k] = o[k] as [number, number, number];
  }
  if (o.buffers !== undefined && o.buffers !== null) out.buffers = strings(o.buffers, "buffer inputs");
  if (o.draw !== undefined && o.draw !== null) out.draw = checkDraw(o.draw);
  if (o.spec !== undefined && o.spec !== null) out.spec = strings(o.spec, "spec constants");
  return out;
}

/** Check what the engine decoded. A panel the page does not have is left
 *  out, and so is "run" without run inputs (an old link's Run tab, whose
 *  inputs the page cannot read): the page opens its default panel. */
export function checkShared(s: unknown, envs: string[]): SharedStart {
  const o = s as Record<string, unknown> | null;
  if (!o || typeof o !== "object") throw new Error("the link holds no state");
  if (typeof o.text !== "string") throw new Error("the link holds no text");
  if (typeof o.targetEnv !== "string" || !envs.includes(o.targetEnv)) throw new Error("the link names an unknown target environment");
  if (o.function !== undefined && o.function !== null && !Number.isInteger(o.function)) throw new Error("the link's function is not an id");
  if (o.panel !== undefined && o.panel !== null && typeof o.panel !== "string") throw new Error("the link's panel is not a name");
  const out: SharedStart = { text: o.text, targetEnv: o.targetEnv };
  if (typeof o.function === "number") out.function = o.function;
  if (o.run !== undefined && o.run !== null) out.run = checkRun(o.run);
  if (typeof o.panel === "string" && (o.panel !== "run" || out.run) && (PANELS as readonly string[]).includes(o.panel)) out.panel = o.panel as Panel;
  if (o.cfg !== undefined && o.cfg !== null) out.cfg = checkCfg(o.cfg);
  return out;
}

/** The state of the link in the address bar, if there is one. Throws with
 *  the reason when it cannot be opened. */
export async function readLink(engine: Engine, envs: string[]): Promise<SharedStart | null> {
  const hash = location.hash.slice(1);
  if (!hash) return null;
  if (!hash.startsWith("v1/")) throw new Error("it is not a spvlab v1 link");
  const r = await engine.send({ kind: "decodeShare", fragment: hash });
  if (r.error !== undefined || !r.state) throw new Error(r.error ?? "it holds nothing");
  return checkShared(r.state, envs);
}

/** The address without its fragment. */
export function plainUrl(): string {
  return location.href.split("#")[0];
}

export function mountShare(store: AppStore, engine: Engine, text: () => string, save: () => void, runInputs?: () => ShareRun | undefined) {
  const box = byId("share-box");
  const input = byId<HTMLInputElement>("share-link");
  const msg = byId("share-msg");
  byId("share-close").addEventListener("click", () => store.update({ share: null }));

  byId("share-btn").addEventListener("click", async () => {
    const s = store.get();
    const state: ShareState = { text: text(), targetEnv: s.targetEnv, panel: s.panel, cfg: s.cfgView };
    if (s.cfgFunction !== undefined) state.function = s.cfgFunction;
    const run = runInputs?.();
    if (run) state.run = run;
    try {
      const r = await engine.send({ kind: "encodeShare", state });
      const url = `${plainUrl()}#${r.fragment}`;
      history.replaceState(null, "", url);
      let copied = false;
      try {
        await navigator.clipboard.writeText(url);
        copied = true;
      } catch (e) {
        // No clipboard (no permission, or not a secure page): the link is
        // shown selected for the user to copy.
        console.info("spvlab: the link was not copied to the clipboard", e);
      }
      store.update({ sharedHash: `#${r.fragment}`, share: { url, copied } });
      input.focus();
      input.select();
    } catch (e) {
      store.update({ banner: `could not make a link: ${errorText(e)}` });
    }
  });

  store.watch(
    (s) => [s.share],
    (s) => {
      box.hidden = s.share === null;
      input.value = s.share?.url ?? "";
      msg.textContent = s.share?.copied ? "Link copied:" : "Copy this link:";
    },
  );

  // Anything the link holds changed: the address no longer shows it.
  store.subscribe((s, prev) => {
    if (!s.sharedHash || s.linkEdits === prev.linkEdits) return;
    if (location.hash === s.sharedHash) history.replaceState(null, "", plainUrl());
    store.update({ sharedHash: "", share: null });
  });

  // A link pasted into this tab's address bar only changes the hash: load it.
  addEventListener("hashchange", () => {
    if (location.hash !== store.get().sharedHash && location.hash.startsWith("#v1/")) {
      save();
      location.reload();
    }
  });
}
