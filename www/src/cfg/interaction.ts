// The CFG panel's interaction: pan and zoom (drag, wheel, keys, buttons),
// hovering and clicking blocks. It owns the view's transform; the panel tells
// it the drawing's size and hears about hovers, clicks and Escape.

/** The label id of the block (`g.node#block-<n>`) an event happened on, or null. */
export function blockIdOf(target: EventTarget | null): number | null {
  if (!(target instanceof Element)) return null;
  const g = target.closest("g.node");
  const m = g?.id.match(/^block-(\d+)$/);
  return m ? Number(m[1]) : null;
}

/** The construct index of the cluster (`g.cluster#construct-<n>`) an event
 *  happened on, outside any block, or undefined. */
export function constructIndexOf(target: EventTarget | null): number | undefined {
  if (!(target instanceof Element) || target.closest("g.node")) return undefined;
  const m = target.closest("g.cluster")?.id.match(/^construct-(\d+)$/);
  return m ? Number(m[1]) : undefined;
}

export interface ViewEvents {
  onHover(blockId: number | null): void;
  /** `construct`: the cluster clicked, when not a block. */
  onClick(blockId: number | null, construct?: number): void;
  /** The transform changed (the panel shows the scale for the tests). */
  onTransform(scale: number): void;
}

interface Drag {
  x: number;
  y: number;
  tx: number;
  ty: number;
  moved: boolean;
  pointer: number;
}

export class ViewControl {
  private scale = 1;
  private tx = 0;
  private ty = 0;
  /** Whether the user moved the view since it was last fitted: if not, each
   *  new drawing is fitted again; if so, the view stays where they put it. */
  private moved = false;
  private size: { w: number; h: number } | undefined;
  private hovered: number | null = null;
  private drag: Drag | undefined;

  constructor(
    private readonly view: HTMLElement,
    private readonly stage: HTMLElement,
    private readonly events: ViewEvents,
  ) {
    view.addEventListener("mouseover", (e) => this.hover(blockIdOf(e.target)));
    view.addEventListener("mouseleave", () => this.hover(null));
    view.addEventListener("pointerdown", (e) => {
      if (e.button === 0) this.drag = { x: e.clientX, y: e.clientY, tx: this.tx, ty: this.ty, moved: false, pointer: e.pointerId };
    });
    view.addEventListener("pointermove", (e) => this.dragMove(e));
    view.addEventListener("pointerup", (e) => this.dragEnd(e));
    view.addEventListener("pointercancel", (e) => this.dragEnd(e));
    view.addEventListener(
      "wheel",
      (e) => {
        if (!this.size) return;
        e.preventDefault();
        const r = view.getBoundingClientRect();
        const factor = Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0015));
        this.zoomAt(factor, e.clientX - r.left, e.clientY - r.top);
      },
      { passive: false },
    );
    view.addEventListener("keydown", (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (this.key(e.key)) e.preventDefault();
    });
  }

  /** Whether the user moved the view since the last fit. */
  get userMoved(): boolean {
    return this.moved;
  }

  /** A new drawing of this size is shown. */
  setSize(size: { w: number; h: number } | undefined) {
    this.size = size;
  }

  zoomBy(factor: number) {
    this.zoomAt(factor, this.view.clientWidth / 2, this.view.clientHeight / 2);
  }

  actualSize() {
    this.zoomBy(1 / this.scale);
  }

  /** Fit the drawing to the view. `dims`: the view's size, read before the
   *  new SVG went in (reading it after would force a style pass over it). */
  fit(dims?: { vw: number; vh: number }) {
    if (!this.size) return;
    const vw = Math.max(1, dims?.vw ?? this.view.clientWidth);
    const vh = Math.max(1, dims?.vh ?? this.view.clientHeight);
    this.scale = Math.max(0.05, Math.min(1.5, (vw - 16) / this.size.w, (vh - 16) / this.size.h));
    this.tx = (vw - this.size.w * this.scale) / 2;
    this.ty = Math.max(8, (vh - this.size.h * this.scale) / 2);
    this.apply(false);
    this.moved = false;
  }

  private hover(id: number | null) {
    if (id === this.hovered) return;
    this.hovered = id;
    this.events.onHover(id);
  }

  private key(key: string): boolean {
    const step = 40;
    switch (key) {
      case "+":
      case "=":
        this.zoomBy(1.25);
        return true;
      case "-":
      case "_":
        this.zoomBy(1 / 1.25);
        return true;
      case "0":
        this.fit();
        return true;
      case "ArrowLeft":
        this.pan(step, 0);
        return true;
      case "ArrowRight":
        this.pan(-step, 0);
        return true;
      case "ArrowUp":
        this.pan(0, step);
        return true;
      case "ArrowDown":
        this.pan(0, -step);
        return true;
      case "Escape":
        this.events.onClick(null);
        return true;
      default:
        return false;
    }
  }

  private pan(dx: number, dy: number) {
    this.tx += dx;
    this.ty += dy;
    this.apply();
  }

  private dragMove(e: PointerEvent) {
    const d = this.drag;
    if (!d || e.pointerId !== d.pointer) return;
    const dx = e.clientX - d.x;
    const dy = e.clientY - d.y;
    if (!d.moved && Math.abs(dx) + Math.abs(dy) > 3) {
      d.moved = true;
      this.view.setPointerCapture(e.pointerId);
      this.view.classList.add("dragging");
    }
    if (d.moved) {
      this.tx = d.tx + dx;
      this.ty = d.ty + dy;
      this.apply();
    }
  }

  private dragEnd(e: PointerEvent) {
    const d = this.drag;
    if (!d || e.pointerId !== d.pointer) return;
    if (this.view.hasPointerCapture(e.pointerId)) this.view.releasePointerCapture(e.pointerId);
    this.view.classList.remove("dragging");
    this.drag = undefined;
    if (!d.moved && e.type === "pointerup") this.events.onClick(blockIdOf(e.target), constructIndexOf(e.target));
  }

  private zoomAt(factor: number, cx: number, cy: number) {
    const next = Math.min(8, Math.max(0.05, this.scale * factor));
    const k = next / this.scale;
    this.tx = cx - (cx - this.tx) * k;
    this.ty = cy - (cy - this.ty) * k;
    this.scale = next;
    this.apply();
  }

  private apply(byUser = true) {
    if (byUser) this.moved = true;
    this.stage.style.transform = `translate(${this.tx}px, ${this.ty}px) scale(${this.scale})`;
    this.events.onTransform(this.scale);
  }
}
