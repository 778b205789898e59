// The page's frame: the status line, the banner, the theme button and the
// splitter between the editor and the panels.
import { byId } from "../dom";
import type { AppStore } from "../state";

const THEME_KEY = "spvlab.theme";
const SPLIT_KEY = "spvlab.split";

export function mountStatus(store: AppStore) {
  const status = byId("status");
  store.watch(
    (s) => [s.status],
    (s) => {
      status.textContent = s.status.text;
      status.className = s.status.tone;
    },
  );
  const download = byId<HTMLButtonElement>("download-btn");
  store.watch(
    (s) => [s.report],
    (s) => (download.disabled = !s.report?.assembled),
  );
}

export function mountBanner(store: AppStore) {
  const banner = byId("banner");
  const text = byId("banner-text");
  byId("banner-close").addEventListener("click", () => store.update({ banner: null }));
  store.watch(
    (s) => [s.banner],
    (s) => {
      banner.hidden = s.banner === null;
      text.textContent = s.banner ?? "";
    },
  );
}

/** The theme: the button flips between light and dark (starting from what is
 *  shown), and the choice is kept. The whole page follows html[data-theme],
 *  the CFG drawing included (cfg.css). */
export function mountTheme(store: AppStore) {
  const root = document.documentElement;
  const saved = localStorage.getItem(THEME_KEY);
  if (saved === "light" || saved === "dark") store.update({ theme: saved });
  byId("theme-btn").addEventListener("click", () => {
    const theme = store.get().theme;
    const dark = theme ? theme === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
    const next = dark ? "light" : "dark";
    store.update({ theme: next });
    localStorage.setItem(THEME_KEY, next);
  });
  store.watch(
    (s) => [s.theme],
    (s) => {
      if (s.theme) root.dataset.theme = s.theme;
      else delete root.dataset.theme;
      const dark = s.theme ? s.theme === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
      byId("theme-btn").setAttribute("aria-pressed", String(dark));
    },
  );
}

/** The splitter (a view setting of this browser, kept apart from the state). */
export function mountSplitter() {
  const layout = byId("layout");
  const split = byId("splitter");
  const set = (pct: number) => {
    pct = Math.min(80, Math.max(20, pct));
    layout.style.setProperty("--left", `${pct}%`);
    split.setAttribute("aria-valuenow", String(Math.round(pct)));
    localStorage.setItem(SPLIT_KEY, String(pct));
  };
  const saved = Number(localStorage.getItem(SPLIT_KEY));
  if (saved) set(saved);
  split.addEventListener("pointerdown", (ev) => {
    split.setPointerCapture(ev.pointerId);
    const move = (e: PointerEvent) => {
      const r = layout.getBoundingClientRect();
      set(((e.clientX - r.left) / r.width) * 100);
    };
    const up = () => {
      split.removeEventListener("pointermove", move);
      split.removeEventListener("pointerup", up);
    };
    split.addEventListener("pointermove", move);
    split.addEventListener("pointerup", up);
  });
  split.addEventListener("keydown", (ev) => {
    const now = Number(split.getAttribute("aria-valuenow"));
    if (ev.key === "ArrowLeft") set(now - 5);
    else if (ev.key === "ArrowRight") set(now + 5);
    else return;
    ev.preventDefault();
  });
}
