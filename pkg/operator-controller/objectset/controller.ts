/**
 * The ClusterObjectSet controller, assembled: a StepReconciler over the parsed ClusterObjectSet
 * running deletion, load, archive, watch and rollout (steps.ts), on the shared Controller watching
 * ClusterObjectSets and, through its own RevisionObjectWatches (watches.ts), the objects of its
 * active revisions: a change or deletion of one queues the revision that owns it (its probes run
 * again, so Available follows the workload, and a drifted object is applied again). A revision
 * still rolling out is also polled, at a low priority, after a wait that grows while it makes no
 * progress (probe-wait.ts: `probeRequeueMs` doubling to `probeRequeueMaxMs`). Failures are
 * retried no later than the progress deadline (DeadlineAwareRateLimiter).
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { CLUSTER_OBJECT_SET, OWNER_NAME_LABEL, parseClusterObjectSet, type ClusterObjectSet } from '../../shared/api/index.ts';
import {
  Controller,
  ExponentialFailureRateLimiter,
  StepReconciler,
  jsonEqual,
  stepDurationTimer,
  type KeyFunc,
  type RateLimiter,
  type StatusClient,
} from '../../shared/controller/index.ts';
import { labelIndex, objectKey, type BackoffOptions, type Informer, type KubeObject } from '../../shared/kube/index.ts';
import { deadlineAwareDelay, progressDeadline } from './deadline.ts';
import {
  archiveStep,
  deletionStep,
  loadStep,
  objectSetState,
  rolloutStep,
  unwatchStep,
  watchStep,
  writerStep,
  type ObjectSetClient,
  type ObjectSetState,
} from './steps.ts';
import { AppliedObjects } from './applied.ts';
import { DEFAULT_PROBE_WAIT, ProbeWaits } from './probe-wait.ts';
import { RevisionObjectWatches } from './watches.ts';
import type { WriterFor } from './writer.ts';
import { parseWithOwners } from './authority.ts';
import { Siblings } from './siblings.ts';

/** The `controller` label and log field of the ClusterObjectSet controller (controller-runtime's name for it upstream). */
const OBJECT_SET_CONTROLLER_NAME = 'clusterobjectset';

/** The ports of the ClusterObjectSet reconciler. */
interface ObjectSetPorts {
  /** operator-controller's own identity: reads ClusterObjectSets and Secrets, writes their status and finalizers, archives previous revisions. */
  client: ObjectSetClient & StatusClient;
  /** Who writes a revision's objects (and reads the Secrets it references outside `systemNamespace`): writer.ts. */
  writerFor: WriterFor;
  /** operator-controller's namespace, where the applier's Secrets are: read with `client`. None: every Secret with `client`. */
  systemNamespace?: string;
  /** The watches of the active revisions' objects (watches.ts); none: nothing is watched (tests of the steps). */
  watches?: Pick<RevisionObjectWatches, 'track' | 'forget'>;
  /** The ClusterObjectSet informer's copies labelled with an extension's name (a labelIndex): a revision's siblings are read there (siblings.ts); none: listed. */
  cachedRevisions?: (owner: string) => readonly Readonly<KubeObject>[];
}

/** Options besides the ports. */
interface ObjectSetReconcilerOptions {
  /** First wait before a revision waiting on its probes is polled (probe-wait.ts; default 10 s). */
  probeRequeueMs?: number;
  /** Longest wait between the polls of a revision waiting on its probes (default 5 minutes). */
  probeRequeueMaxMs?: number;
  /** The waiting revisions' standing (probe-wait.ts); default: one of this reconciler's own, from the two above. */
  probeWaits?: ProbeWaits;
  /** The deadline's clock (default: the system's). */
  clock?: () => Date;
  /** Step durations are observed on it. */
  registry?: Registry;
  /** The ClusterObjectSet informer's copy by name, read instead of a GET each reconcile (StepReconciler `cached`); none: GET. */
  cached?: (name: string) => Readonly<KubeObject> | undefined;
}

/** The waiting revisions' standing, on the schedule `o` sets (probe-wait.ts). */
function probeWaitsOf(o: ObjectSetReconcilerOptions): ProbeWaits {
  return new ProbeWaits({ firstMs: o.probeRequeueMs ?? DEFAULT_PROBE_WAIT.firstMs, maxMs: o.probeRequeueMaxMs ?? DEFAULT_PROBE_WAIT.maxMs });
}

/** The ClusterObjectSet reconciler: its steps, in order, over the parsed object. */
export function clusterObjectSetReconciler(p: ObjectSetPorts, o: ObjectSetReconcilerOptions = {}): StepReconciler<ClusterObjectSet, ObjectSetState> {
  // What this controller applied: a reconcile sends no apply that would change nothing (applied.ts).
  const applied = new AppliedObjects();
  const waits = o.probeWaits ?? probeWaitsOf(o);
  // The other active revisions of a revision's extension, and the ones this controller archived (siblings.ts).
  const siblings = new Siblings(p.client, p.cachedRevisions);
  return new StepReconciler<ClusterObjectSet, ObjectSetState>({
    client: p.client,
    type: { apiVersion: CLUSTER_OBJECT_SET.apiVersion, kind: CLUSTER_OBJECT_SET.kind },
    // The owner references decide who writes the revision (authority.ts).
    parse: parseWithOwners,
    state: objectSetState(o.clock),
    steps: [
      ...(p.watches === undefined ? [] : [unwatchStep({ watches: p.watches })]),
      deletionStep(),
      writerStep({ writerFor: p.writerFor }),
      loadStep({ client: p.client, siblings, ...(p.systemNamespace === undefined ? {} : { systemNamespace: p.systemNamespace }) }),
      archiveStep(),
      ...(p.watches === undefined ? [] : [watchStep({ watches: p.watches })]),
      rolloutStep({ client: p.client, applied, siblings, waits }),
      ...(p.watches === undefined ? [] : [watchStep({ watches: p.watches }, 'rewatch')]),
    ],
    ...(o.registry === undefined ? {} : { stepTimer: stepDurationTimer(o.registry, OBJECT_SET_CONTROLLER_NAME) }),
    ...(o.cached === undefined ? {} : { cached: o.cached }),
  });
}

/** What a reconcile reads of a ClusterObjectSet: an event changing none of it (its own status write) queues nothing. */
function reconcileInputs(obj: Readonly<KubeObject>): unknown {
  const m = obj.metadata;
  return [obj['spec'], m.labels, m.annotations, m.finalizers, m.deletionTimestamp, m.generation];
}

/** Key function of the ClusterObjectSet watch: the object's name, unless only its status changed. */
export const objectSetKeys: KeyFunc = (type, obj, old) => {
  if (type === 'update' && old !== undefined && jsonEqual(reconcileInputs(obj), reconcileInputs(old))) return undefined;
  return objectKey(obj);
};

/**
 * Retries of a failed reconcile capped to the time left before the revision's progress deadline,
 * with one immediate retry once it passed (upstream's deadline-aware rate limiter). The revision
 * is read from `lookup` (the informer's cache).
 */
export class DeadlineAwareRateLimiter implements RateLimiter {
  readonly #delegate: RateLimiter;
  readonly #lookup: (name: string) => ClusterObjectSet | undefined;
  readonly #clock: () => Date;
  readonly #pastDeadline = new Set<string>();

  constructor(delegate: RateLimiter, lookup: (name: string) => ClusterObjectSet | undefined, clock: () => Date = () => new Date()) {
    this.#delegate = delegate;
    this.#lookup = lookup;
    this.#clock = clock;
  }

  when(key: string): number {
    const backoff = this.#delegate.when(key);
    const cos = this.#lookup(key);
    const deadline = cos === undefined ? undefined : progressDeadline(cos, this.#clock());
    const first = deadline !== undefined && deadline.remainingMs <= 0 && !this.#pastDeadline.has(key);
    if (first) this.#pastDeadline.add(key);
    return deadlineAwareDelay(backoff, deadline, first);
  }

  forget(key: string): void {
    this.#delegate.forget(key);
    this.#pastDeadline.delete(key);
  }

  numRequeues(key: string): number {
    return this.#delegate.numRequeues(key);
  }
}

/** What createObjectSetController needs. */
interface ObjectSetControllerOptions extends ObjectSetReconcilerOptions {
  ports: Omit<ObjectSetPorts, 'watches'>;
  /** The informer of ClusterObjectSets (the caller runs it). */
  informer: Informer<KubeObject>;
  /** Its copies by owner-name label (a labelIndex of it, shared with the ClusterExtension controller); none: indexed here. */
  revisionsOf?: (owner: string) => readonly Readonly<KubeObject>[];
  log: Logger;
  /** Restart backoff of the objects' informers (default the informer's). */
  backoff?: BackoffOptions;
  /** The installer watches the objects' watches subscribe to, shared with the drift watches (decision 0156); none: their own. */
  objectWatches?: ConstructorParameters<typeof RevisionObjectWatches>[0]['watches'];
  /** Workers (default 1). */
  concurrency?: number;
}

/** The ClusterObjectSet controller with its watches: run it once the informer runs; `enqueue` queues a revision. */
export type ObjectSetController = Pick<Controller, 'run' | 'enqueue'>;

/**
 * The ClusterObjectSet controller over `informer` and the objects of its active revisions
 * (watches.ts): run it with `run(signal)` once the informer runs. Failures back off from 5 ms to
 * 1000 s per object (controller-runtime's default), capped by the progress deadline.
 */
export function createObjectSetController(o: ObjectSetControllerOptions): ObjectSetController {
  const lookup = (name: string): ClusterObjectSet | undefined => {
    const cached = o.informer.get(name);
    if (cached === undefined) return undefined;
    const parsed = parseClusterObjectSet(cached);
    return parsed.ok ? parsed.value : undefined;
  };
  // A revision gone while it waited on its probes is forgotten by the delete handler below.
  const waits = probeWaitsOf(o);
  const objects = new RevisionObjectWatches({
    enqueue: (name) => controller.enqueue(name),
    log: o.log,
    registry: o.registry,
    backoff: o.backoff,
    watches: o.objectWatches,
  });
  const controller = new Controller({
    name: OBJECT_SET_CONTROLLER_NAME,
    // Each reconcile reads the revision from the informer, as upstream's from its cache.
    reconciler: clusterObjectSetReconciler(
      { ...o.ports, watches: objects, cachedRevisions: o.revisionsOf ?? labelIndex(o.informer, OWNER_NAME_LABEL) },
      { ...o, probeWaits: waits, cached: (name) => o.informer.get(name) },
    ),
    log: o.log,
    ...(o.registry === undefined ? {} : { registry: o.registry }),
    watches: [{ informer: o.informer, keys: objectSetKeys }],
    rateLimiter: new DeadlineAwareRateLimiter(new ExponentialFailureRateLimiter(5, 1_000_000), lookup, o.clock),
    // A revision's latest reconcile decides when it is polled: none once it succeeded (probe-wait.ts).
    replaceRequeues: true,
    ...(o.concurrency === undefined ? {} : { concurrency: o.concurrency }),
  });
  return {
    run: async (signal) => {
      // A revision gone from the cluster is watched no more.
      const unsubscribe = o.informer.addHandler((type, obj) => {
        if (type !== 'delete') return;
        objects.forget(obj.metadata.name ?? '');
        waits.forget(obj.metadata.name ?? '');
      });
      await Promise.all([controller.run(signal), objects.run(signal)]);
      unsubscribe();
    },
    enqueue: (name) => controller.enqueue(name),
  };
}
