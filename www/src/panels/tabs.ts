// The tabs: one panel open at a time. Click, arrow keys in the tab list, and
// Alt+1 to Alt+N anywhere, in PANELS order (Alt+0: the editor).
import { byId } from "../dom";
import { PANELS, type AppStore, type Panel } from "../state";

export function mountTabs(store: AppStore, focusEditor: () => void) {
  const tabs = byId("tabs");
  /** Open a panel the user chose; `focus`: move the focus to its tab. */
  const open = (p: Panel, focus: boolean) => {
    store.update({ panel: p, panelChosen: true });
    if (focus) byId(`tab-${p}`).focus();
  };

  tabs.addEventListener("click", (ev) => {
    const t = (ev.target as HTMLElement).closest<HTMLElement>("[data-panel]");
    if (t && (PANELS as readonly string[]).includes(t.dataset.panel ?? "")) open(t.dataset.panel as Panel, false);
  });
  tabs.addEventListener("keydown", (ev) => {
    const i = PANELS.indexOf(store.get().panel);
    let j = -1;
    if (ev.key === "ArrowRight") j = (i + 1) % PANELS.length;
    else if (ev.key === "ArrowLeft") j = (i + PANELS.length - 1) % PANELS.length;
    else if (ev.key === "Home") j = 0;
    else if (ev.key === "End") j = PANELS.length - 1;
    if (j >= 0) {
      ev.preventDefault();
      open(PANELS[j], true);
    }
  });
  document.addEventListener("keydown", (ev) => {
    if (!ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const n = /^Digit(\d)$/.exec(ev.code)?.[1];
    if (n === undefined || Number(n) > PANELS.length) return;
    ev.preventDefault();
    if (n === "0") focusEditor();
    else open(PANELS[Number(n) - 1], true);
  });

  store.watch(
    (s) => [s.panel],
    (s) => {
      for (const name of PANELS) {
        const tab = byId(`tab-${name}`);
        const on = name === s.panel;
        tab.setAttribute("aria-selected", String(on));
        tab.tabIndex = on ? 0 : -1;
        byId(`panel-${name}`).hidden = !on;
      }
    },
  );
}
