// A small typed store: one state object, replaced (never mutated) by
// `update`, and renderers that run when the parts of it they read change.
// The page keeps all of its state here (www/src/state.ts); the CFG panel keeps
// its own in a second store of the same kind (www/src/cfg/index.ts).

export type Listener<S> = (state: S, previous: S) => void;

export class Store<S extends object> {
  private state: S;
  private readonly listeners: Listener<S>[] = [];
  private dispatching = false;
  private again = false;

  constructor(initial: S) {
    this.state = initial;
  }

  get(): Readonly<S> {
    return this.state;
  }

  /** Replace some fields; then every listener runs, in the order they
   *  subscribed. An update made by a listener takes effect at once, and the
   *  listeners run again (all of them, on the newest state) once the current
   *  round is over: no listener ever sees a state older than one it saw. */
  update(patch: Partial<S>) {
    const before = this.state;
    if (!(Object.keys(patch) as (keyof S)[]).some((k) => !Object.is(before[k], patch[k]))) return;
    this.state = { ...before, ...patch };
    if (this.dispatching) {
      this.again = true;
      return;
    }
    this.dispatching = true;
    try {
      let previous = before;
      do {
        this.again = false;
        const now = this.state;
        for (const l of this.listeners) {
          // One failing renderer must not stop the others: it goes to the console.
          try {
            l(now, previous);
          } catch (e) {
            console.error("spvlab: a view failed to render", e);
          }
        }
        previous = now;
      } while (this.again);
    } finally {
      this.dispatching = false;
    }
  }

  subscribe(listener: Listener<S>): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** Run `render` now and whenever one of the values `deps` picks changes
   *  (compared with Object.is, element by element). */
  watch(deps: (s: S) => readonly unknown[], render: (s: S) => void): () => void {
    let last = deps(this.state);
    render(this.state);
    return this.subscribe((s) => {
      const now = deps(s);
      if (now.length === last.length && now.every((v, i) => Object.is(v, last[i]))) return;
      last = now;
      render(s);
    });
  }
}
