/**
 * Drift-watch test rig: a fake API server per ServiceAccount client whose watches the test
 * feeds, and DriftWatches over it (pkg/operator-controller/clusterextension drift tests).
 */
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterEach } from 'vitest';
import { DriftWatches } from '../../pkg/operator-controller/drift/index.ts';
import {
  ApiError,
  type KubeClient,
  type KubeObject,
  type ListOptions,
  type ObjectList,
  type ObjectRef,
  type TypeRef,
  type WatchEvent,
} from '../../pkg/shared/kube/index.ts';
import { fakeCluster } from './fake-cluster.ts';

const log = pino({ level: 'silent' });

const API_VERSIONS: Record<string, string> = {
  Deployment: 'apps/v1',
  StatefulSet: 'apps/v1',
  DaemonSet: 'apps/v1',
  ClusterRole: 'rbac.authorization.k8s.io/v1',
  ClusterRoleBinding: 'rbac.authorization.k8s.io/v1',
  CustomResourceDefinition: 'apiextensions.k8s.io/v1',
};
export const CLUSTER_KINDS = new Set(['ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'ValidatingWebhookConfiguration']);

export function obj(kind: string, name: string, namespace?: string, extra: Record<string, unknown> = {}): KubeObject {
  const apiVersion = API_VERSIONS[kind] ?? 'v1';
  return { apiVersion, kind, metadata: { name, ...(namespace === undefined ? {} : { namespace }), resourceVersion: '1' }, ...extra };
}

export interface OpenWatch {
  kind: string;
  namespace: string | undefined;
  labelSelector: string | undefined;
  identity: string;
  signal: AbortSignal;
  push(ev: WatchEvent): void;
}

// A fake API server per ServiceAccount client: `objects` is what lists return, watches stay
// open until aborted and deliver what the test pushes.
export class FakeCluster {
  objects: KubeObject[] = [];
  watches: OpenWatch[] = [];
  /** Every list call, with when it was made (performance.now()). */
  lists: { identity: string; kind: string; namespace: string | undefined; at: number; limit?: number | undefined; streamed: boolean }[] = [];
  forbidden = new Set<string>();
  unresolvable = new Set<string>();

  clientFor(identity: string): KubeClient {
    // What DriftWatches calls is answered here; the rest of KubeClient is fakeCluster's, less
    // the pushed watch form (optional), so the watches are the iterated ones the test feeds.
    const { watchEvents: _pushed, ...rest } = fakeCluster().client;
    return {
      ...rest,
      resourceFor: async (type: TypeRef) => {
        if (this.unresolvable.has(type.kind)) throw new Error(`no matches for kind "${type.kind}"`);
        return { group: '', version: 'v1', kind: type.kind, resource: type.kind.toLowerCase(), namespaced: !CLUSTER_KINDS.has(type.kind), verbs: [] };
      },
      list: async <T extends KubeObject>(type: TypeRef, o: ListOptions = {}) => (await this.#list(identity, type, o, false)) as ObjectList<T>,
      // The streamed form, as the real client offers it: each item handed over on its own.
      listEach: async <T extends KubeObject>(type: TypeRef, o: ListOptions, onItem: (item: T) => void) => {
        const { items, ...envelope } = await this.#list(identity, type, o, true);
        for (const item of items) onItem(item as T);
        return envelope;
      },
      watch: <T extends KubeObject>(type: TypeRef, o: Parameters<KubeClient['watch']>[1] = {}) =>
        this.#watch(identity, type, { ...o, signal: o.signal ?? new AbortController().signal }) as AsyncGenerator<WatchEvent<T>, void, undefined>,
      get: async <T extends KubeObject>(ref: ObjectRef) => {
        const found = this.objects.find((x) => x.kind === ref.kind && x.metadata.name === ref.name && x.metadata.namespace === ref.namespace);
        if (found === undefined) throw new ApiError(404, 'NotFound', `${ref.kind} "${ref.name}" not found`);
        return structuredClone(found) as T;
      },
    };
  }

  // One page as the API server gives it: `limit` items, `continue` the offset of the next.
  async #list(identity: string, type: TypeRef, o: ListOptions, streamed: boolean): Promise<ObjectList> {
    this.lists.push({ identity, kind: type.kind, namespace: o.namespace, at: performance.now(), limit: o.limit, streamed });
    if (this.forbidden.has(type.kind)) throw new ApiError(403, 'Forbidden', `${type.kind} is forbidden`);
    const items = this.objects.filter((x) => x.kind === type.kind && (o.namespace === undefined || x.metadata.namespace === o.namespace));
    const from = Number(o.continue ?? 0);
    const to = o.limit === undefined ? items.length : from + o.limit;
    const next = to < items.length ? { continue: String(to) } : {};
    return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '5', ...next }, items: structuredClone(items.slice(from, to)) };
  }

  async *#watch(identity: string, type: TypeRef, o: ListOptions & { signal: AbortSignal }): AsyncGenerator<WatchEvent, void, undefined> {
    const queue: WatchEvent[] = [];
    let wake: (() => void) | undefined;
    this.watches.push({
      kind: type.kind,
      namespace: o.namespace,
      labelSelector: o.labelSelector,
      identity,
      signal: o.signal,
      push: (ev) => {
        queue.push(structuredClone(ev));
        wake?.();
      },
    });
    o.signal.addEventListener('abort', () => wake?.());
    for (;;) {
      while (queue.length === 0 && !o.signal.aborted) await new Promise<void>((r) => (wake = r));
      if (o.signal.aborted) throw o.signal.reason;
      yield queue.shift() as WatchEvent;
    }
  }

  open(kind: string): OpenWatch[] {
    return this.watches.filter((w) => w.kind === kind && !w.signal.aborted);
  }
}

const stoppers: AbortController[] = [];
afterEach(() => {
  for (const s of stoppers.splice(0)) s.abort();
});

/**
 * `shared`: kinds watched once for all extensions, as identity `operator-controller` (decision
 * 0109); `sharedLingerMs`: how long one runs on with no extension using it (default drift/shared.ts's).
 */
export function setup(o: { minIntervalMs?: number; log?: typeof log; shared?: TypeRef[]; sharedLingerMs?: number } = {}) {
  const cluster = new FakeCluster();
  const enqueued: string[] = [];
  const leading = new AbortController();
  stoppers.push(leading);
  const registry = new Registry();
  const drift = new DriftWatches({
    scoped: { forServiceAccount: (ns, sa) => cluster.clientFor(`${ns}/${sa}`) },
    enqueue: (n) => enqueued.push(n),
    log: o.log ?? log,
    registry,
    signal: leading.signal,
    backoff: { initialMs: 20, maxMs: 40 },
    minIntervalMs: o.minIntervalMs ?? 0,
    ...(o.shared === undefined ? {} : { shared: { client: cluster.clientFor('operator-controller'), kinds: o.shared, lingerMs: o.sharedLingerMs } }),
  });
  return { cluster, enqueued, leading, registry, drift };
}
