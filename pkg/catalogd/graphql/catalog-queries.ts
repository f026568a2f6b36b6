/**
 * GraphQL queries against stored catalog versions (decisions 0102, 0111). A version's schema is
 * discovered on its first query, reading its blobs through the metas index one at a time and
 * keeping only the shape; objects are read per query by byte range. A query is checked against
 * upstream's complexity limits here (limits.ts), then runs in a worker thread (query-workers.ts),
 * which asks this thread for the objects it needs. Every query is bounded (`maxConcurrent` at
 * once, `maxLoadBytes` read, `maxAnswerBytes` answered, `workerHeapMb` of heap, `timeoutMs`):
 * past a bound its answer is one GraphQL error, as upstream reports its complexity limits.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import type { StoredVersion } from '../storage/index.ts';
import { type CatalogShape, addBlob } from './discovery.ts';
import { buildCatalogSchema } from './schema.ts';
import { checkQuery } from './limits.ts';
import { boundAnswer } from './answer.ts';
import { QueryWorkers, isWorkerOutOfMemory } from './query-workers.ts';
import type { FromWorker, Load, ToWorker } from './worker-protocol.ts';
import { goDuration } from '../../gocompat/gotext/index.ts';

/** The body of a request: the query, and when given its variables and the operation to run. */
export interface GraphqlRequest {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/** Bounds of one query. */
interface QueryLimits {
  timeoutMs: number;
  maxLoadBytes: number;
  maxAnswerBytes: number;
  maxConcurrent: number;
  /** Heap limit of each query's worker thread, MiB (query-workers.ts). */
  workerHeapMb: number;
  /** Idle worker threads end after this long. */
  workerIdleMs: number;
}

/**
 * Upstream's 5 s query timeout; the byte bounds keep a query's memory to tens of megabytes, the
 * worker's heap limit bounds what they do not count (decision 0111).
 */
const DEFAULT_QUERY_LIMITS: QueryLimits = {
  timeoutMs: 5_000,
  maxLoadBytes: 16 << 20,
  maxAnswerBytes: 16 << 20,
  maxConcurrent: 2,
  workerHeapMb: 64,
  workerIdleMs: 30_000,
};

// Discovery reads catalog.jsonl in chunks of this many bytes, yielding to the event loop between them.
const DISCOVERY_CHUNK = 1 << 20;

/** A query stopped by one of its bounds; its message is the answer's error. */
class QueryBoundError extends Error {}

/** The GraphQL queries of all catalogs served. */
export class CatalogQueries {
  readonly #limits: QueryLimits;
  readonly #schemas = new WeakMap<StoredVersion, Promise<Discovered>>();
  readonly #workers: QueryWorkers;
  #versions = 0;
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(limits: Partial<QueryLimits> = {}) {
    this.#limits = { ...DEFAULT_QUERY_LIMITS, ...limits };
    this.#workers = new QueryWorkers({ heapMb: this.#limits.workerHeapMb, idleMs: this.#limits.workerIdleMs });
  }

  /** Worker threads waiting for a query (for tests). */
  get idleWorkers(): number {
    return this.#workers.idle;
  }

  /** The schema of `v` and where its blobs lie, discovered once: a failure is kept too (the content does not change). */
  #discovered(v: StoredVersion): Promise<Discovered> {
    let discovered = this.#schemas.get(v);
    if (discovered === undefined) {
      discovered = discover(v, ++this.#versions);
      this.#schemas.set(v, discovered);
    }
    return discovered;
  }

  /**
   * Answers one request to `/api/v1/graphql` of a catalog (`v` undefined: no content): a query
   * refused by the complexity limits (limits.ts) is answered whatever the catalog (as upstream),
   * otherwise undefined when there is no catalog, else the answer's JSON text as upstream writes
   * it (Go's encoding: keys sorted, HTML characters escaped, a final newline). Throws only for
   * storage failures (reading the index or the content) and failed workers, with `cause`.
   */
  async query(v: StoredVersion | undefined, request: GraphqlRequest): Promise<string | undefined> {
    const checked = checkQuery(request.query);
    if (!checked.ok) return boundAnswer(checked.message);
    if (v === undefined) return undefined;
    const { timeoutMs } = this.#limits;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new QueryBoundError(`query exceeded the time limit of ${goDuration(timeoutMs)}`)), timeoutMs);
    try {
      const discovered = await this.#discovered(v);
      await this.#acquire(abort.signal);
      try {
        return await this.#run(v, discovered, request, abort.signal);
      } finally {
        this.#release();
      }
    } catch (err) {
      const reason: unknown = abort.signal.aborted ? abort.signal.reason : err;
      if (reason instanceof QueryBoundError) return boundAnswer(reason.message);
      throw new Error(`GraphQL query of catalog ${v.catalog} failed`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs the query in a worker, serving its reads, until it answers, fails or `signal` ends it. */
  #run(v: StoredVersion, d: Discovered, request: GraphqlRequest, signal: AbortSignal): Promise<string> {
    const { maxLoadBytes, maxAnswerBytes, workerHeapMb } = this.#limits;
    const worker = this.#workers.take();
    return new Promise<string>((resolve, reject) => {
      let settled = false;
      let loaded = 0;
      const finish = (reusable: boolean, settle: () => void): void => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (reusable) this.#workers.give(worker);
        else this.#workers.discard(worker);
        settle();
      };
      const onAbort = (): void => finish(false, () => reject(signal.reason as Error));
      const onError = (err: Error): void =>
        finish(false, () => reject(isWorkerOutOfMemory(err) ? new QueryBoundError(`query exceeds the memory limit of ${workerHeapMb} MiB`) : err));
      const onExit = (code: number): void => finish(false, () => reject(new Error(`the GraphQL worker exited with code ${code}`)));
      const onMessage = (msg: FromWorker): void => {
        if (msg.kind === 'answer') return finish(true, () => resolve(msg.answer));
        const ranges = rangesOf(d, msg);
        loaded += ranges.reduce((n, r) => n + r.length, 0);
        if (loaded > maxLoadBytes)
          return finish(false, () => reject(new QueryBoundError(`query reads more than ${maxLoadBytes} bytes of catalog content`)));
        read(v, ranges).then(
          (buf) => {
            // Moved, not copied; not at all when the query is over meanwhile.
            if (!settled) post(worker, { kind: 'loaded', id: msg.id, bytes: buf, lengths: ranges.map((r) => r.length) }, [buf.buffer as ArrayBuffer]);
          },
          (err: unknown) => finish(false, () => reject(err instanceof Error ? err : new Error(String(err)))),
        );
      };
      signal.addEventListener('abort', onAbort);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      if (signal.aborted) return onAbort();
      const { query, variables, operationName } = request;
      post(worker, { kind: 'query', key: d.key, shape: d.shape, query, variables, operationName, maxAnswerBytes });
    });
  }

  async #acquire(signal: AbortSignal): Promise<void> {
    while (this.#running >= this.#limits.maxConcurrent) {
      signal.throwIfAborted();
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          signal.removeEventListener('abort', wake);
          const i = this.#waiting.indexOf(wake);
          if (i >= 0) this.#waiting.splice(i, 1);
          resolve();
        };
        this.#waiting.push(wake);
        signal.addEventListener('abort', wake);
      });
    }
    this.#running++;
  }

  #release(): void {
    this.#running--;
    this.#waiting[0]?.();
  }
}

function post(worker: Worker, msg: ToWorker, transfer?: ArrayBuffer[]): void {
  worker.postMessage(msg, transfer);
}

/** Where the objects a worker asks for lie in catalog.jsonl. */
function rangesOf(d: Discovered, { schema, offset, limit }: Load): Array<{ offset: number; length: number }> {
  const positions = d.blobs.get(schema) ?? [];
  const ranges: Array<{ offset: number; length: number }> = [];
  for (let i = offset * 2; i < positions.length && ranges.length < limit; i += 2) {
    ranges.push({ offset: positions[i] ?? 0, length: positions[i + 1] ?? 0 });
  }
  return ranges;
}

/** The bytes of `ranges`, one after another, in a buffer of their own (a pooled one cannot be moved to a worker). */
function read(v: StoredVersion, ranges: Array<{ offset: number; length: number }>): Promise<Buffer> {
  const bytes = ranges.reduce((n, r) => n + r.length, 0);
  return v.readRangesInto('jsonl', ranges, Buffer.allocUnsafeSlow(bytes), 0);
}

/** A version's schema, and where each catalog schema's blobs lie in catalog.jsonl (offset, length pairs in file order). */
interface Discovered {
  /** This version's number, for the workers' schema caches. */
  key: number;
  shape: CatalogShape;
  blobs: Map<string, number[]>;
}

/** Reads every blob with a schema in chunks, yielding to the event loop between them, recording shape and position. */
async function discover(v: StoredVersion, key: number): Promise<Discovered> {
  const shape: CatalogShape = new Map();
  const blobs = new Map<string, number[]>();
  const take = (line: string, offset: number, length: number): void => {
    const blob = JSON.parse(line) as Record<string, unknown>;
    if (typeof blob.schema !== 'string' || blob.schema === '') return;
    addBlob(shape, blob.schema, blob);
    let positions = blobs.get(blob.schema);
    if (positions === undefined) blobs.set(blob.schema, (positions = []));
    positions.push(offset, length);
  };
  for (const range of (await v.index()).lookup({ schema: '', package: '', name: '' })) {
    const end = range.offset + range.length;
    let carry: { bytes: Buffer; offset: number } | undefined;
    for (let pos = range.offset; pos < end;) {
      const n = Math.min(DISCOVERY_CHUNK, end - pos);
      const chunk = await v.readRangesInto('jsonl', [{ offset: pos, length: n }], Buffer.allocUnsafe(n), 0);
      const data = carry === undefined ? chunk : Buffer.concat([carry.bytes, chunk]);
      const dataOffset = carry === undefined ? pos : carry.offset;
      pos += n;
      let lineStart = 0;
      for (let nl = data.indexOf(10); nl >= 0; nl = data.indexOf(10, lineStart)) {
        take(data.toString('utf8', lineStart, nl), dataOffset + lineStart, nl + 1 - lineStart);
        lineStart = nl + 1;
      }
      carry = lineStart < data.length ? { bytes: data.subarray(lineStart), offset: dataOffset + lineStart } : undefined;
      await yieldToEventLoop();
    }
    if (carry !== undefined) throw new Error(`catalog ${v.catalog}: a blob does not end with a newline at byte ${carry.offset}`);
  }
  // Built here once so that a catalog whose names collide fails its queries (the workers build their own).
  buildCatalogSchema(shape);
  return { key, shape, blobs };
}
