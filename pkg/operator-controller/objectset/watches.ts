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
 * Cached objects are reduced to their identity, controller owner and digests (`revisionFacts`).
 *
 * The informers are installer watches (pkg/operator-controller/installerwatch): under
 * BoxcutterRuntime the ClusterExtension controller's drift watches of the same installer, kind
 * and namespace subscribe to the same one (decision 0156), its cache holding both controllers'
 * facts of each object.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { CLUSTER_OBJECT_SET, OWNER_NAME_LABEL } from '../../shared/api/index.ts';
import { SharedWatches, type WatchSubscriber } from '../installerwatch/index.ts';
import {
  counterOn,
  gaugeOn,
  objectKey,
  untilAborted,
  type BackoffOptions,
  type InformerEventType,
  type KubeClient,
  type KubeObject,
  type TypeRef,
} from '../../shared/kube/index.ts';

/**
 * Who lists and watches a revision's objects: the identity (an installer ServiceAccount's
 * `namespace/name`, what keys the shared installer watches), its client, and the label selector of its objects.
 */
interface RevisionWatcher {
  identity: string;
  client: KubeClient;
  selector: string;
}

/**
 * The label selector of the objects of `extension`'s revisions (the label the rollout writes on
 * each); the drift watches of the extension select by it too where they share the watch (decision 0156).
 */
export function extensionSelector(extension: string): string {
  return `${OWNER_NAME_LABEL}=${extension}`;
}

/** One informer of the set: `identity`'s objects of `type` in `namespace` ('' for cluster-wide). */
interface WatchTarget {
  key: string;
  type: TypeRef;
  namespace: string;
}

/** What the revision watches need to know of an object (beside its identity). */
interface RevisionFacts {
  /** The ClusterObjectSet that controls it, if any. */
  revision?: string;
  /** sha256 of the object without status, resourceVersion and managedFields. */
  contentDigest: string;
  /** sha256 of its status, when it has one. */
  statusDigest?: string;
}

/** What an informer of the set caches per object (at least). */
type TrackedObject = KubeObject & RevisionFacts;

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

/** Of `obj`, an object of `type`: its controlling revision and the digests of its content and of its status. Pure. */
export function revisionFacts(obj: KubeObject, type: TypeRef): RevisionFacts {
  const { resourceVersion: _version, managedFields: _managed, ...metadata } = obj.metadata;
  const { status, ...rest } = obj;
  const contentDigest = sha256({ ...rest, apiVersion: type.apiVersion, kind: type.kind, metadata });
  const revision = controllingRevision(obj);
  return {
    contentDigest,
    ...(status === undefined ? {} : { statusDigest: sha256(status) }),
    ...(revision === undefined ? {} : { revision }),
  };
}

/** The transform of the revision watches alone: identity and `revisionFacts`. */
function tracked(obj: KubeObject, type: TypeRef): TrackedObject {
  const { name, namespace, resourceVersion } = obj.metadata;
  return {
    apiVersion: type.apiVersion,
    kind: type.kind,
    metadata: {
      name: name ?? '',
      ...(namespace === undefined ? {} : { namespace }),
      ...(resourceVersion === undefined ? {} : { resourceVersion }),
    },
    ...revisionFacts(obj, type),
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
  if (old.contentDigest !== obj.contentDigest) return 'content';
  return old.statusDigest === obj.statusDigest ? undefined : 'status';
}

/** The revisions an event on an object concerns: its controller before and after; none for a creation or an update that changed nothing. Pure. */
export function revisionsOfEvent(type: InformerEventType, obj: Readonly<TrackedObject>, old: Readonly<TrackedObject> | undefined): string[] {
  if (changeOf(type, obj, old) === undefined) return [];
  return [...new Set([obj.revision, old?.revision].filter((r): r is string => r !== undefined))];
}

interface RunningTarget {
  /** Ends its subscription to the installer watch. */
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
  /**
   * The installer watches to subscribe to, shared with the drift watches (decision 0156);
   * default: a set of their own, informers named `revision-objects`.
   */
  watches?: WatchSubscriber<TrackedObject> | undefined;
}

/** See the module comment. Informers run between `run(signal)` and the signal's abort. */
export class RevisionObjectWatches {
  readonly #o: RevisionObjectWatchesOptions;
  readonly #targets = new Map<string, RunningTarget>();
  /** Per tracked revision, the keys of its targets. */
  readonly #revisions = new Map<string, Set<string>>();
  /** Times each revision was forgotten: a `track` that raced a `forget` gives up. */
  readonly #forgets = new Map<string, number>();
  readonly #watches: WatchSubscriber<TrackedObject>;
  readonly #gauge;
  /** `operator_controller_revision_object_events_total`: the reconciles the watches queued, by kind and change. */
  readonly #events;
  #signal: AbortSignal | undefined;

  constructor(options: RevisionObjectWatchesOptions) {
    this.#o = options;
    this.#watches =
      options.watches ??
      new SharedWatches({ name: 'revision-objects', transform: tracked, log: options.log, registry: options.registry, backoff: options.backoff });
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
    await untilAborted(signal);
    for (const revision of [...this.#revisions.keys()]) this.forget(revision);
    await this.#watches.settled();
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
      const running = this.#targets.get(key) ?? this.#start(target, watcher);
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

  #start(target: WatchTarget, watcher: RevisionWatcher): RunningTarget {
    const running: RunningTarget = { abort: new AbortController(), revisions: new Set() };
    const key = { identity: watcher.identity, client: watcher.client, selector: watcher.selector, type: target.type, namespace: target.namespace };
    this.#watches.subscribe(
      key,
      (type, obj, old) => {
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
      },
      running.abort.signal,
    );
    this.#targets.set(target.key, running);
    return running;
  }
}
