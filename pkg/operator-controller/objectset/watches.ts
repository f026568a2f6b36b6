/**
 * The revision controller's own watches of the objects its active revisions own (boxcutter's
 * tracking cache, upstream's `Watches` of a revision's kinds): a dynamic set of informers, one per
 * writer identity, kind and namespace that some active revision's objects need, started when the
 * first revision needs it and stopped when the last one no longer does (archived, deleted, or a
 * revision whose objects left that kind or namespace). Each runs as the identity that writes the
 * revision (its extension's installer, or the identity of user-made revisions; operator-controller
 * itself may not list most kinds), selecting the objects a revision labels (`selector`).
 *
 * An event is mapped to the revision that owns the object by its controller owner reference to a
 * ClusterObjectSet (the object's before and after the change, so a taken-over or released object
 * wakes both), and queues it when it is tracked: a deletion, or an update that changed anything
 * but the resourceVersion and managedFields (status included, so probes run again when a workload
 * becomes available). Creations queue nothing: the reconcile itself creates a revision's objects.
 * Cached objects are reduced to their identity, controller owner and a digest.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { CLUSTER_OBJECT_SET } from '../../shared/api/index.ts';
import {
  Informer,
  clientListWatch,
  counterOn,
  gaugeOn,
  jitteredWatchTimeoutSeconds,
  objectKey,
  type BackoffOptions,
  type InformerEventType,
  type KubeClient,
  type KubeObject,
  type TypeRef,
} from '../../shared/kube/index.ts';

/** Shortest server-side timeout of a watch: 30 min (30-60 min with jitter), as the drift watches. */
const WATCH_TIMEOUT_SECONDS = 1800;

/** Who lists and watches a revision's objects: a key naming the identity, its client, and the label selector of its objects. */
interface RevisionWatcher {
  identity: string;
  client: KubeClient;
  selector: string;
}

/** One informer of the set: `identity`'s objects of `type` in `namespace` ('' for cluster-wide). */
interface WatchTarget {
  key: string;
  type: TypeRef;
  namespace: string;
}

/** What an informer of the set caches per object. */
interface TrackedObject extends KubeObject {
  /** The ClusterObjectSet that controls it, if any. */
  revision?: string;
  /** sha256 of the object without status, resourceVersion and managedFields. */
  digest: string;
  /** sha256 of its status, when it has one. */
  status?: string;
}

/**
 * The watch targets covering `objects` written by `identity`: one per kind and namespace, the
 * kind's scope from `namespaced` (discovery); a namespaced object without a namespace is in
 * `defaultNamespace`. Kinds whose scope cannot be resolved yet (a CRD of an earlier phase) are left out.
 */
export async function watchTargets(
  objects: readonly KubeObject[],
  identity: string,
  namespaced: (type: TypeRef) => Promise<boolean>,
  defaultNamespace = 'default',
): Promise<Map<string, WatchTarget>> {
  const targets = new Map<string, WatchTarget>();
  const scopes = new Map<string, boolean | undefined>();
  for (const obj of objects) {
    const type = { apiVersion: obj.apiVersion, kind: obj.kind };
    const typeKey = `${type.apiVersion}/${type.kind}`;
    if (!scopes.has(typeKey)) scopes.set(typeKey, await namespaced(type).catch(() => undefined));
    const scoped = scopes.get(typeKey);
    if (scoped === undefined) continue;
    const namespace = scoped ? obj.metadata.namespace || defaultNamespace : '';
    const key = `${identity}|${typeKey}|${namespace}`;
    if (!targets.has(key)) targets.set(key, { key, type, namespace });
  }
  return targets;
}

/** The ClusterObjectSet controlling `obj` (its controller owner reference), if any. */
function controllingRevision(obj: KubeObject): string | undefined {
  const ref = (obj.metadata.ownerReferences ?? []).find((r) => r.controller === true);
  const group = CLUSTER_OBJECT_SET.apiVersion.split('/')[0] ?? '';
  return ref !== undefined && ref.kind === CLUSTER_OBJECT_SET.kind && ref.apiVersion.split('/')[0] === group ? ref.name : undefined;
}

const sha256 = (value: unknown): string => createHash('sha256').update(JSON.stringify(value)).digest('base64');

/** The informer transform: identity, controlling revision, digests of its content and of its status. */
function tracked(obj: KubeObject): TrackedObject {
  const { resourceVersion, managedFields: _managed, ...metadata } = obj.metadata;
  const { status, ...rest } = obj;
  const digest = sha256({ ...rest, metadata });
  const m = obj.metadata;
  const revision = controllingRevision(obj);
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: {
      name: m.name ?? '',
      ...(m.namespace === undefined ? {} : { namespace: m.namespace }),
      ...(resourceVersion === undefined ? {} : { resourceVersion }),
    },
    digest,
    ...(status === undefined ? {} : { status: sha256(status) }),
    ...(revision === undefined ? {} : { revision }),
  };
}

/**
 * What an event changed, as `operator_controller_revision_object_events_total` counts the
 * reconciles it queues: a deletion, its controller, its content, or only its status (a workload's
 * progress, which the probes read); undefined for a creation or an update that changed nothing. Pure.
 */
function changeOf(
  type: InformerEventType,
  obj: Readonly<TrackedObject>,
  old: Readonly<TrackedObject> | undefined,
): 'delete' | 'controller' | 'content' | 'status' | undefined {
  if (type === 'add') return undefined;
  if (type === 'delete' || old === undefined) return 'delete';
  if (old.revision !== obj.revision) return 'controller';
  if (old.digest !== obj.digest) return 'content';
  return old.status === obj.status ? undefined : 'status';
}

/** The revisions an event on an object concerns: its controller before and after; none for a creation or an update that changed nothing. Pure. */
export function revisionsOfEvent(type: InformerEventType, obj: Readonly<TrackedObject>, old: Readonly<TrackedObject> | undefined): string[] {
  if (changeOf(type, obj, old) === undefined) return [];
  return [...new Set([obj.revision, old?.revision].filter((r): r is string => r !== undefined))];
}

interface RunningTarget {
  informer: Informer<TrackedObject>;
  abort: AbortController;
  /** The revisions whose objects it covers. */
  revisions: Set<string>;
}

/** Construction options. */
interface RevisionObjectWatchesOptions {
  /** Queues a revision's reconcile. */
  enqueue: (revision: string) => void;
  log: Logger;
  registry?: Registry | undefined;
  /** Restart backoff of each informer (default the informer's). */
  backoff?: BackoffOptions | undefined;
}

/** See the module comment. Informers run between `run(signal)` and the signal's abort. */
export class RevisionObjectWatches {
  readonly #o: RevisionObjectWatchesOptions;
  readonly #targets = new Map<string, RunningTarget>();
  /** Per tracked revision, the keys of its targets. */
  readonly #revisions = new Map<string, Set<string>>();
  /** Times each revision was forgotten: a `track` that raced a `forget` gives up. */
  readonly #forgets = new Map<string, number>();
  readonly #running = new Set<Promise<void>>();
  readonly #gauge;
  /** `operator_controller_revision_object_events_total`: the reconciles the watches queued, by kind and change. */
  readonly #events;
  #signal: AbortSignal | undefined;

  constructor(options: RevisionObjectWatchesOptions) {
    this.#o = options;
    this.#gauge =
      options.registry === undefined
        ? undefined
        : gaugeOn(
            options.registry,
            'operator_controller_revision_object_watches',
            'Watches of active revisions objects (one per writer, kind and namespace).',
            [],
          );
    this.#events =
      options.registry === undefined
        ? undefined
        : counterOn(
            options.registry,
            'operator_controller_revision_object_events_total',
            'Revision reconciles queued by a change of one of their objects, by kind and change: delete, controller, content, or status only.',
            ['kind', 'change'],
          );
  }

  /** Informers running. */
  get size(): number {
    return this.#targets.size;
  }

  /** The keys (`identity|apiVersion/kind|namespace`) of the informers `revision`'s objects use. */
  watchesOf(revision: string): string[] {
    return [...(this.#revisions.get(revision) ?? [])].sort();
  }

  /** Starts the informers; on `signal`'s abort stops them all and resolves once they ended. */
  async run(signal: AbortSignal): Promise<void> {
    this.#signal = signal;
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    for (const revision of [...this.#revisions.keys()]) this.forget(revision);
    await Promise.all(this.#running);
  }

  /** Watches `objects` of the active `revision` as `watcher`, stopping what it no longer needs. */
  async track(revision: string, watcher: RevisionWatcher, objects: readonly KubeObject[], signal?: AbortSignal): Promise<void> {
    if (this.#signal === undefined || this.#signal.aborted) return;
    const forgets = this.#forgets.get(revision) ?? 0;
    const targets = await watchTargets(objects, watcher.identity, async (type) => (await watcher.client.resourceFor(type, signal)).namespaced);
    if (this.#signal.aborted || (this.#forgets.get(revision) ?? 0) !== forgets) return;
    const mine = this.#revisions.get(revision) ?? new Set<string>();
    for (const key of mine) if (!targets.has(key)) this.#release(revision, key);
    for (const [key, target] of targets) {
      const running = this.#targets.get(key) ?? this.#start(target, watcher, this.#signal);
      running.revisions.add(revision);
      mine.add(key);
    }
    if (mine.size > 0) this.#revisions.set(revision, mine);
    else this.#revisions.delete(revision);
    this.#gauge?.set(this.size);
  }

  /** Stops watching for `revision` (archived, deleted, held); informers no other revision needs stop. */
  forget(revision: string): void {
    this.#forgets.set(revision, (this.#forgets.get(revision) ?? 0) + 1);
    for (const key of this.#revisions.get(revision) ?? []) this.#release(revision, key);
    this.#revisions.delete(revision);
    this.#gauge?.set(this.size);
  }

  #release(revision: string, key: string): void {
    this.#revisions.get(revision)?.delete(key);
    const running = this.#targets.get(key);
    if (running === undefined) return;
    running.revisions.delete(revision);
    if (running.revisions.size > 0) return;
    running.abort.abort();
    this.#targets.delete(key);
  }

  #start(target: WatchTarget, watcher: RevisionWatcher, leading: AbortSignal): RunningTarget {
    const source = clientListWatch<TrackedObject>(watcher.client, target.type, {
      labelSelector: watcher.selector,
      ...(target.namespace === '' ? {} : { namespace: target.namespace }),
    });
    const informer = new Informer<TrackedObject>({
      name: 'revision-objects',
      source,
      log: this.#o.log,
      ...(this.#o.registry === undefined ? {} : { registry: this.#o.registry }),
      ...(this.#o.backoff === undefined ? {} : { backoff: this.#o.backoff }),
      transform: (obj) => tracked({ ...obj, apiVersion: target.type.apiVersion, kind: target.type.kind }),
      resyncPeriodMs: 0,
      watchTimeoutSeconds: () => jitteredWatchTimeoutSeconds(WATCH_TIMEOUT_SECONDS),
    });
    const running: RunningTarget = { informer, abort: new AbortController(), revisions: new Set() };
    informer.addHandler((type, obj, old) => {
      const change = changeOf(type, obj, old);
      for (const revision of revisionsOfEvent(type, obj, old)) {
        if (!running.revisions.has(revision)) continue;
        this.#o.log.debug(
          { revision, object: objectKey(obj), kind: obj.kind, event: type, change },
          'revision object changed, queueing its revision',
        );
        this.#events?.inc({ kind: obj.kind, change: change ?? '' });
        this.#o.enqueue(revision);
      }
    });
    const done = informer.run(AbortSignal.any([running.abort.signal, leading]));
    this.#running.add(done);
    void done.finally(() => this.#running.delete(done));
    this.#targets.set(target.key, running);
    return running;
  }
}
