/**
 * GraphQL queries against stored catalog versions (decision 0102). A version's schema is
 * discovered on its first query, reading its blobs through the metas index one at a time and
 * keeping only the shape; objects are read per query by byte range. Every query is bounded
 * (`maxConcurrent` at once, `maxLoadBytes` read, `maxAnswerBytes` answered, `timeoutMs`): past a
 * bound its answer is one GraphQL error, as upstream reports its complexity limits.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { GraphQLError, type GraphQLSchema, execute, validate } from 'graphql';
import type { StoredVersion } from '../storage/index.ts';
import { type CatalogShape, addBlob } from './discovery.ts';
import { type QueryContext, buildCatalogSchema, goJson } from './schema.ts';
import { checkQuery } from './limits.ts';
import type { JsonValue } from '../../shared/fbc/index.ts';
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
}

/** Upstream's 5 s query timeout; the byte bounds keep a query's memory to tens of megabytes. */
const DEFAULT_QUERY_LIMITS: QueryLimits = { timeoutMs: 5_000, maxLoadBytes: 16 << 20, maxAnswerBytes: 16 << 20, maxConcurrent: 4 };

// Discovery reads catalog.jsonl in chunks of this many bytes, yielding to the event loop between them.
const DISCOVERY_CHUNK = 1 << 20;

/** A query stopped by one of its bounds; its message is the answer's error. */
class QueryBoundError extends Error {}

/** The GraphQL queries of all catalogs served. */
export class CatalogQueries {
  readonly #limits: QueryLimits;
  readonly #schemas = new WeakMap<StoredVersion, Promise<Discovered>>();
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(limits: Partial<QueryLimits> = {}) {
    this.#limits = { ...DEFAULT_QUERY_LIMITS, ...limits };
  }

  /** The schema of `v` and where its blobs lie, discovered once: a failure is kept too (the content does not change). */
  #discovered(v: StoredVersion): Promise<Discovered> {
    let discovered = this.#schemas.get(v);
    if (discovered === undefined) {
      discovered = discover(v);
      this.#schemas.set(v, discovered);
    }
    return discovered;
  }

  /**
   * Answers one request to `/api/v1/graphql` of a catalog (`v` undefined: no content): a query
   * refused by the complexity limits (limits.ts) is answered whatever the catalog (as upstream),
   * otherwise undefined when there is no catalog, else the answer's JSON text as upstream writes
   * it (Go's encoding: keys sorted, HTML characters escaped, a final newline). Throws only for
   * storage failures (reading the index or the content), with `cause`.
   */
  async query(v: StoredVersion | undefined, request: GraphqlRequest): Promise<string | undefined> {
    const checked = checkQuery(request.query);
    if (!checked.ok) return encodeAnswer(null, [new GraphQLError(checked.message)]);
    if (v === undefined) return undefined;
    const { document } = checked;
    const { variables: variableValues, operationName } = request;
    const { timeoutMs, maxLoadBytes, maxAnswerBytes } = this.#limits;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new QueryBoundError(`query exceeded the time limit of ${goDuration(timeoutMs)}`)), timeoutMs);
    try {
      const { schema, blobs } = await this.#discovered(v);
      const errors = validate(schema, document);
      if (errors.length > 0) return encodeAnswer(null, errors);
      await this.#acquire(abort.signal);
      try {
        let loaded = 0;
        let answered = 0;
        const ctx: QueryContext = {
          load: async (schemaName, offset, limit) => {
            const positions = blobs.get(schemaName) ?? [];
            const ranges: Array<{ offset: number; length: number }> = [];
            for (let i = offset * 2; i < positions.length && ranges.length < limit; i += 2) {
              ranges.push({ offset: positions[i] ?? 0, length: positions[i + 1] ?? 0 });
            }
            const bytes = ranges.reduce((n, r) => n + r.length, 0);
            loaded += bytes;
            if (loaded > maxLoadBytes) stop(abort, `query reads more than ${maxLoadBytes} bytes of catalog content`);
            abort.signal.throwIfAborted();
            const buf = await v.readRangesInto('jsonl', ranges, Buffer.allocUnsafe(bytes), 0);
            let at = 0;
            return ranges.map((r) => JSON.parse(buf.toString('utf8', at, (at += r.length))) as Record<string, unknown>);
          },
          spend: (bytes) => {
            answered += bytes;
            if (answered > maxAnswerBytes && !abort.signal.aborted) abort.abort(new QueryBoundError(`query answer exceeds ${maxAnswerBytes} bytes`));
            return !abort.signal.aborted;
          },
        };
        const result = await execute({ schema, document, variableValues, operationName, contextValue: ctx, abortSignal: abort.signal });
        abort.signal.throwIfAborted();
        return encodeAnswer((result.data ?? null) as JsonValue, result.errors ?? []);
      } finally {
        this.#release();
      }
    } catch (err) {
      const reason: unknown = abort.signal.aborted ? abort.signal.reason : err;
      if (reason instanceof QueryBoundError) return encodeAnswer(null, [new GraphQLError(reason.message)]);
      throw new Error(`GraphQL query of catalog ${v.catalog} failed`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
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

function stop(abort: AbortController, message: string): never {
  const err = new QueryBoundError(message);
  abort.abort(err);
  throw err;
}

/** A version's schema, and where each catalog schema's blobs lie in catalog.jsonl (offset, length pairs in file order). */
interface Discovered {
  schema: GraphQLSchema;
  blobs: Map<string, number[]>;
}

/** Reads every blob with a schema in chunks, yielding to the event loop between them, recording shape and position. */
async function discover(v: StoredVersion): Promise<Discovered> {
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
  return { schema: buildCatalogSchema(shape), blobs };
}

/**
 * The answer as upstream's Go library writes it: `data` (null when the query did not run),
 * then `errors` when there are any, each with `message`, `locations` (an empty list when the
 * error has none) and `path` when it has one.
 */
function encodeAnswer(data: JsonValue, errors: readonly GraphQLError[]): string {
  const json = goJson;
  const parts = [`"data":${json(data)}`];
  if (errors.length > 0) {
    const list = errors.map((e) => {
      const fields = [
        `"message":${json(e.message)}`,
        `"locations":[${(e.locations ?? []).map((l) => `{"line":${l.line},"column":${l.column}}`).join(',')}]`,
      ];
      if (e.path !== undefined) fields.push(`"path":${json([...e.path])}`);
      return `{${fields.join(',')}}`;
    });
    parts.push(`"errors":[${list.join(',')}]`);
  }
  return `{${parts.join(',')}}\n`;
}
