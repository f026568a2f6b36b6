/**
 * The API server's OpenAPI v3 as a schema source for pruning objects before server-side apply.
 * `GET /openapi/v3` lists one document per group-version with a content hash in its URL; each
 * is fetched once, compiled (openapi-schema.ts) and dropped, and fetched again after
 * `refresh()` when its hash moved (CRDs created, changed or deleted).
 */
import { compileSchemas, type ObjectSchema } from './openapi-schema.ts';
import type { Transport } from './transport.ts';
import { errorMessage } from '../errors/index.ts';

/** Schemas of kinds as the API server publishes them. */
export interface OpenApiSchemas {
  /**
   * The schema of `kind` in `apiVersion`; undefined when the server publishes none (a miss
   * re-reads the index first). Throws an Error with `cause`, or the abort reason.
   */
  schemaFor(apiVersion: string, kind: string, signal?: AbortSignal): Promise<ObjectSchema | undefined>;
  /** Marks the index stale: the next `schemaFor` re-reads it and refetches changed documents. */
  refresh(): void;
  /** Compiled group-versions and schema components held, for memory accounting. */
  stats(): { groupVersions: number; components: number };
}

interface IndexDoc {
  paths?: Record<string, { serverRelativeURL?: string }>;
}

interface GroupVersionDoc {
  components?: { schemas?: Record<string, unknown> };
}

interface Compiled {
  /** The document URL (with its hash) this entry was compiled from. */
  url: string;
  kinds: Promise<Map<string, ObjectSchema>>;
  /** Components compiled, once the document is in. */
  components: number;
}

/** `apis/apps/v1` or `api/v1`: the key of a group-version in the OpenAPI v3 index. */
function indexKey(apiVersion: string): string {
  return apiVersion.includes('/') ? `apis/${apiVersion}` : `api/${apiVersion}`;
}

function gvkMatches(raw: unknown, group: string, version: string): string[] {
  if (typeof raw !== 'object' || raw === null) return [];
  const gvks = (raw as Record<string, unknown>)['x-kubernetes-group-version-kind'];
  if (!Array.isArray(gvks)) return [];
  const kinds: string[] = [];
  for (const gvk of gvks as { group?: unknown; version?: unknown; kind?: unknown }[]) {
    if ((gvk.group ?? '') === group && gvk.version === version && typeof gvk.kind === 'string') kinds.push(gvk.kind);
  }
  return kinds;
}

function asJson<T>(body: unknown): T | undefined {
  if (typeof body !== 'string') return body as T | undefined;
  try {
    return JSON.parse(body) as T;
  } catch (err) {
    throw new Error(`the server sent malformed OpenAPI JSON: ${errorMessage(err)}`, { cause: err });
  }
}

// Waits for `promise` unless `signal` aborts first (the shared fetch itself goes on).
async function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  signal.throwIfAborted();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}

// A miss (group-version or kind not published) re-reads the index at most this often.
const MISS_REREAD_MS = 1000;

/**
 * A schema source over `transport`. Concurrent callers share one fetch per document; a failed
 * fetch is retried by the next call. A kind not published re-reads the index (at most once a
 * second) first, so CRDs created since are found once published (shortly after Established).
 */
export function createOpenApiSchemas(transport: Transport, options: { now?: () => number } = {}): OpenApiSchemas {
  let index: Promise<Map<string, string>> | undefined;
  let indexReadAt = 0;
  const now = options.now ?? Date.now;
  const docs = new Map<string, Compiled>();

  function readIndex(): Promise<Map<string, string>> {
    indexReadAt = now();
    const pending = (async () => {
      // The index is served as text/plain; documents as application/json.
      const doc = asJson<IndexDoc>(await transport.request<unknown>('GET', '/openapi/v3'));
      const urls = new Map<string, string>();
      for (const [key, entry] of Object.entries(doc?.paths ?? {})) {
        if (typeof entry?.serverRelativeURL === 'string') urls.set(key, entry.serverRelativeURL);
      }
      return urls;
    })();
    pending.catch(() => {
      if (index === pending) index = undefined;
    });
    index = pending;
    return pending;
  }

  // Fetches one document and compiles the schemas of the group-version's kinds; the raw
  // document is garbage once this returns.
  async function fetchKinds(apiVersion: string, url: string): Promise<{ byKind: Map<string, ObjectSchema>; components: number }> {
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = apiVersion.slice(slash + 1);
    const parsed = new URL(url, 'http://openapi.invalid');
    const query = Object.fromEntries(parsed.searchParams);
    const doc = asJson<GroupVersionDoc>(await transport.request<unknown>('GET', parsed.pathname, { query, timeoutMs: 60_000 }));
    const components = doc?.components?.schemas ?? {};
    const names = new Map<string, string>();
    for (const [name, raw] of Object.entries(components)) for (const kind of gvkMatches(raw, group, version)) names.set(kind, name);
    const table = compileSchemas(components, [...names.values()]);
    const byKind = new Map<string, ObjectSchema>();
    for (const [kind, name] of names) {
      const schema = table.get(name);
      if (schema !== undefined) byKind.set(kind, schema);
    }
    return { byKind, components: table.size };
  }

  function compile(apiVersion: string, url: string): Compiled {
    const entry: Compiled = {
      url,
      components: 0,
      kinds: fetchKinds(apiVersion, url).then(({ byKind, components }) => {
        entry.components = components;
        return byKind;
      }),
    };
    entry.kinds.catch(() => {
      if (docs.get(apiVersion) === entry) docs.delete(apiVersion);
    });
    return entry;
  }

  async function lookup(apiVersion: string, kind: string, signal: AbortSignal | undefined): Promise<ObjectSchema | undefined> {
    const urls = await unlessAborted(index ?? readIndex(), signal);
    const url = urls.get(indexKey(apiVersion));
    if (url === undefined) {
      docs.delete(apiVersion);
      return undefined;
    }
    let entry = docs.get(apiVersion);
    if (entry === undefined || entry.url !== url) {
      entry = compile(apiVersion, url);
      docs.set(apiVersion, entry);
    }
    return (await unlessAborted(entry.kinds, signal)).get(kind);
  }

  async function schemaFor(apiVersion: string, kind: string, signal?: AbortSignal): Promise<ObjectSchema | undefined> {
    try {
      const found = await lookup(apiVersion, kind, signal);
      if (found !== undefined || now() - indexReadAt < MISS_REREAD_MS) return found;
      // A miss on an index read a while ago: a CRD created since may be published by now.
      readIndex();
      return await lookup(apiVersion, kind, signal);
    } catch (err) {
      if (signal?.aborted === true) throw signal.reason;
      throw new Error(`reading the OpenAPI schema of ${apiVersion}: ${errorMessage(err)}`, { cause: err });
    }
  }

  return {
    schemaFor,
    refresh() {
      index = undefined;
    },
    stats() {
      let components = 0;
      for (const entry of docs.values()) components += entry.components;
      return { groupVersions: docs.size, components };
    },
  };
}
