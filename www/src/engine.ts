// The page's side of the worker: one promise per request id.
import type { AnalyzeReport, WorkerRequest, WorkerResponse } from "./api";

type Req = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;
type Resp<K extends WorkerResponse["kind"]> = Extract<WorkerResponse, { kind: K }>;

export class Engine {
  private worker = new Worker(new URL("./worker.ts", import.meta.url), { type: "module" });
  private next = 1;
  private pending = new Map<number, { resolve: (r: WorkerResponse) => void; reject: (e: Error) => void }>();

  constructor() {
    this.worker.onmessage = (ev: MessageEvent<WorkerResponse>) => {
      const p = this.pending.get(ev.data.id);
      if (!p) return;
      this.pending.delete(ev.data.id);
      const d = ev.data;
      if (d.kind === "error") p.reject(new Error(d.message));
      else if (d.kind === "analyzeJson") {
        try {
          const report = JSON.parse(d.json) as AnalyzeReport;
          report.elapsedMs = d.elapsedMs;
          p.resolve({ kind: "analyze", id: d.id, report });
        } catch (e) {
          p.reject(e instanceof Error ? e : new Error(String(e)));
        }
      } else p.resolve(d);
    };
    this.worker.onerror = (ev) => {
      for (const p of this.pending.values()) p.reject(new Error(ev.message || "the engine worker failed"));
      this.pending.clear();
    };
  }

  /** The id the next request will get (to drop stale answers). */
  peekId(): number {
    return this.next;
  }

  send<K extends Req["kind"]>(req: Extract<Req, { kind: K }>): Promise<Resp<K>> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (r: WorkerResponse) => void, reject });
      this.worker.postMessage({ ...req, id } as WorkerRequest);
    });
  }
}
