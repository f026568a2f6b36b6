/**
 * Maps a kind to its REST resource through API discovery (per group-version documents, cached,
 * fetched again on a miss so kinds of CRDs created since resolve), and builds request paths.
 */
import { isNotFound } from './api-error.ts';
import type { Transport } from './transport.ts';
import type { GroupVersionKind } from '../unstructured/index.ts';
import { errorMessage } from '../errors/index.ts';

/** What discovery says about one resource. */
export interface ResourceInfo {
  group: string;
  version: string;
  kind: string;
  /** Plural resource name, e.g. `deployments`. */
  resource: string;
  namespaced: boolean;
  verbs: string[];
}

/** No resource serves the kind (apimachinery `NoKindMatchError`, same text). */
export class NoKindMatchError extends Error {
  readonly gvk: GroupVersionKind;

  constructor(gvk: GroupVersionKind) {
    super(`no matches for kind "${gvk.kind}" in version "${groupVersion(gvk.group, gvk.version)}"`);
    this.name = 'NoKindMatchError';
    this.gvk = gvk;
  }
}

/** True when `err` is a NoKindMatchError. */
export function isNoKindMatch(err: unknown): err is NoKindMatchError {
  return err instanceof NoKindMatchError;
}

/** `apps/v1`, or `v1` for the core group. */
function groupVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** Resolves kinds to resources; shared by all clients of one server. */
export interface ResourceMapper {
  /** The resource of `gvk`; throws NoKindMatchError when the server does not serve it. */
  resolve(gvk: GroupVersionKind, signal?: AbortSignal): Promise<ResourceInfo>;
  /** True when the server serves `group/version` at all (e.g. an optional OpenShift API). */
  hasGroupVersion(group: string, version: string, signal?: AbortSignal): Promise<boolean>;
  /** Drops every cached document. */
  invalidate(): void;
}

interface GroupVersionDoc {
  served: boolean;
  byKind: Map<string, ResourceInfo>;
  fetchedAt: number;
}

interface DiscoveryDoc {
  resources?: Array<{ name: string; kind: string; namespaced: boolean; verbs?: string[] }>;
}

/**
 * Creates a mapper over `transport`. A missing kind triggers at most one refetch of its
 * group-version per `minRefreshMs` (default 1 s), so a typo cannot hammer discovery.
 */
export function createResourceMapper(transport: Transport, options: { minRefreshMs?: number } = {}): ResourceMapper {
  const minRefreshMs = options.minRefreshMs ?? 1000;
  const docs = new Map<string, GroupVersionDoc>();
  const inflight = new Map<string, Promise<GroupVersionDoc>>();

  async function fetchDoc(group: string, version: string, signal?: AbortSignal): Promise<GroupVersionDoc> {
    const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    let body: DiscoveryDoc;
    try {
      body = await transport.request<DiscoveryDoc>('GET', path, signal === undefined ? {} : { signal });
    } catch (err) {
      if (!isNotFound(err)) throw new Error(`discovery of ${groupVersion(group, version)} failed: ${errorMessage(err)}`, { cause: err });
      return { served: false, byKind: new Map(), fetchedAt: Date.now() };
    }
    const byKind = new Map<string, ResourceInfo>();
    for (const r of body.resources ?? []) {
      // Subresources (`pods/status`) share the kind of their parent; skip them.
      if (r.name.includes('/')) continue;
      byKind.set(r.kind, { group, version, kind: r.kind, resource: r.name, namespaced: r.namespaced, verbs: r.verbs ?? [] });
    }
    return { served: true, byKind, fetchedAt: Date.now() };
  }

  // One fetch per group-version at a time; concurrent callers share it.
  async function load(group: string, version: string, signal?: AbortSignal): Promise<GroupVersionDoc> {
    const gv = groupVersion(group, version);
    const running = inflight.get(gv);
    if (running !== undefined) return running;
    const p = fetchDoc(group, version, signal).finally(() => inflight.delete(gv));
    inflight.set(gv, p);
    const doc = await p;
    docs.set(gv, doc);
    return doc;
  }

  async function docFor(group: string, version: string, needKind: string | undefined, signal?: AbortSignal): Promise<GroupVersionDoc> {
    const cached = docs.get(groupVersion(group, version));
    if (cached !== undefined) {
      const hit = needKind === undefined ? cached.served : cached.byKind.has(needKind);
      if (hit || Date.now() - cached.fetchedAt < minRefreshMs) return cached;
    }
    return load(group, version, signal);
  }

  return {
    async resolve(gvk, signal) {
      const doc = await docFor(gvk.group, gvk.version, gvk.kind, signal);
      const info = doc.byKind.get(gvk.kind);
      if (info === undefined) throw new NoKindMatchError(gvk);
      return info;
    },
    async hasGroupVersion(group, version, signal) {
      return (await docFor(group, version, undefined, signal)).served;
    },
    invalidate() {
      docs.clear();
    },
  };
}

/** Options of `resourcePath`. */
interface PathParts {
  namespace?: string | undefined;
  name?: string | undefined;
  subresource?: string | undefined;
}

/**
 * The REST path of a collection, object or subresource. A namespaced resource without a
 * namespace addresses all namespaces (a name then is an error); cluster-scoped ones ignore it.
 */
export function resourcePath(info: ResourceInfo, parts: PathParts = {}): string {
  const base = info.group === '' ? `/api/${info.version}` : `/apis/${info.group}/${info.version}`;
  const ns = info.namespaced ? parts.namespace : undefined;
  if (info.namespaced && parts.name !== undefined && (ns === undefined || ns === '')) {
    throw new Error(`a namespace is required to address ${info.resource} "${parts.name}"`);
  }
  let path = ns !== undefined && ns !== '' ? `${base}/namespaces/${encodeURIComponent(ns)}/${info.resource}` : `${base}/${info.resource}`;
  if (parts.name !== undefined) {
    if (parts.name === '') throw new Error(`an empty name cannot address ${info.resource}`);
    path += `/${encodeURIComponent(parts.name)}`;
    if (parts.subresource !== undefined) path += `/${parts.subresource}`;
  }
  return path;
}
