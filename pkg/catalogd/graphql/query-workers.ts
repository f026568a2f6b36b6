/**
 * The worker threads that run GraphQL queries (execute-worker.ts, decision 0111): one query at a
 * time each, with a heap limit, kept for the next query while they are in use and ended after
 * `idleMs` without a query, so an idle catalogd holds none (decision 0087). A worker that was
 * stopped in the middle of a query (time limit, read bound, failure) is terminated, never reused.
 */
import { Worker } from 'node:worker_threads';

// Same extension as this module: `.ts` when run from source, `.js` in the built image.
const WORKER = new URL(`./execute-worker${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, import.meta.url);

/** How a query worker is bounded. */
interface WorkerLimits {
  /** V8's old-generation limit of each worker, in MiB: past it the worker, not catalogd, runs out of memory. */
  heapMb: number;
  /** Idle workers end after this long without a query. */
  idleMs: number;
}

/** True when `err` is a worker's report that it ran out of its heap. */
export function isWorkerOutOfMemory(err: unknown): boolean {
  return err instanceof Error && (err as Error & { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY';
}

/** Idle query workers, and new ones on demand. */
export class QueryWorkers {
  readonly #limits: WorkerLimits;
  readonly #idle: Worker[] = [];
  #lastUse = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(limits: WorkerLimits) {
    this.#limits = limits;
  }

  /** Workers waiting for a query (for tests). */
  get idle(): number {
    return this.#idle.length;
  }

  /** A worker for one query: give it back with `give` when it answered, else `discard` it. */
  take(): Worker {
    this.#lastUse = performance.now();
    const worker = this.#idle.pop() ?? this.#spawn();
    worker.ref();
    return worker;
  }

  /** A worker whose query is answered, for the next one. */
  give(worker: Worker): void {
    this.#lastUse = performance.now();
    worker.unref();
    this.#idle.push(worker);
    this.#scheduleDrop(this.#limits.idleMs);
  }

  /** A worker stopped in the middle of a query: terminated. */
  discard(worker: Worker): void {
    void worker.terminate();
  }

  #spawn(): Worker {
    const worker = new Worker(WORKER, {
      resourceLimits: { maxOldGenerationSizeMb: this.#limits.heapMb, maxYoungGenerationSizeMb: 8 },
    });
    // An idle worker that fails or ends leaves the pool; a busy one is watched by its query too.
    const leave = (): void => {
      const i = this.#idle.indexOf(worker);
      if (i >= 0) this.#idle.splice(i, 1);
    };
    worker.on('error', leave);
    worker.on('exit', leave);
    return worker;
  }

  // One timer at a time, armed while workers are idle; it never holds the process open.
  #scheduleDrop(ms: number): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const idleFor = performance.now() - this.#lastUse;
      if (idleFor >= this.#limits.idleMs) for (const w of this.#idle.splice(0)) void w.terminate();
      else if (this.#idle.length > 0) this.#scheduleDrop(this.#limits.idleMs - idleFor);
    }, ms);
    this.#timer.unref();
  }
}
