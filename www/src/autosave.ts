// Autosave: what the user typed (and the target) stays in localStorage, so a
// reload never loses it. Only the user's own work is saved: the sample, an
// untouched share link or example are not.
import { Debounce } from "./debounce";
import type { AppStore } from "./state";

const KEY = "spvlab.autosave.v1";
const DELAY_MS = 300;

/** The saved text and target, if any. */
export function loadAutosave(): { text: string; targetEnv?: string } | null {
  const raw = localStorage.getItem(KEY);
  if (raw === null) return null;
  try {
    const o = JSON.parse(raw) as { text?: unknown; targetEnv?: unknown } | null;
    if (o && typeof o.text === "string") return { text: o.text, targetEnv: typeof o.targetEnv === "string" ? o.targetEnv : undefined };
  } catch (e) {
    console.warn("spvlab: the autosaved text is not readable, starting without it", e);
  }
  return null;
}

export class Autosave {
  private readonly later = new Debounce();

  constructor(
    private readonly store: AppStore,
    private readonly text: () => string,
  ) {
    addEventListener("beforeunload", () => this.now());
    addEventListener("pagehide", () => this.now());
  }

  /** Save a little later (after a burst of keystrokes). */
  soon() {
    this.later.run(DELAY_MS, () => this.now());
  }

  now() {
    this.later.cancel();
    const s = this.store.get();
    if (!s.userEdited) return;
    try {
      localStorage.setItem(KEY, JSON.stringify({ text: this.text(), targetEnv: s.targetEnv }));
    } catch (e) {
      // Full, or storage switched off: say so in the status line.
      console.warn("spvlab: autosave failed", e);
      this.store.update({ status: { text: `autosave failed: ${e instanceof Error ? e.message : String(e)}`, tone: "error" } });
    }
  }
}
