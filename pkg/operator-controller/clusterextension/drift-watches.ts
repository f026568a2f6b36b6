/**
 * Drift watches: the trigger that brings a ClusterExtension back to its reconcile when one of
 * its managed objects is changed or deleted. Upstream uses one cluster-wide informer per kind of
 * the release, as the controller; ours watch as the extension's ServiceAccount instead. The
 * reconcile itself repairs: re-applying an unchanged release by server-side apply restores the
 * fields operator-controller owns and recreates deleted objects, while fields other managers own
 * stay (decision 0066). What the caches hold also spares requests: an object they hold is ours
 * (`ownedUid`: no ownership read), and one whose content, status aside, is what the last apply
 * answered (`noteApplied`, `inSync`) is not applied again while the release is unchanged, so a
 * reconcile that finds nothing changed (a health change, a resync) writes no object. Until its
 * watch first lists, an object this process applied in the last minute is vouched for too: that
 * first list compares it with the apply's answer and queues a repair when they differ (a change
 * between the apply and the list, which no watch event reports), so a reconcile that comes right
 * after an install (a catalog event, an edit) applies nothing again either.
 *
 * Per extension, one informer per resource and namespace its deployed release uses
 * (drift-targets.ts), listing and watching as the extension's ServiceAccount with the owner
 * label selector; objects of the cluster-scoped kinds operator-controller may list and watch
 * itself (`shared`) are seen through one informer per kind instead (drift-shared.ts, decision
 * 0109). The watches follow the release: `track` is called with the deployed release on every
 * reconcile and after each install or upgrade, and starts, keeps or stops watches to match it;
 * `stop` ends them (uninstall, deletion); all end when leadership ends.
 *
 * - A delete, or an update that changed anything but status, enqueues the extension; creations
 *   do not (objects are created by the reconcile itself), but a watch's first list that lacks an
 *   object of the release does (deleted between the apply and the watch's start).
 * - Changes the reconcile made itself do not enqueue: an update whose last write is
 *   operator-controller's apply (its managedFields entry is the newest), and the delete of an
 *   object a new release dropped, announced with `expectDeletes` before the apply deletes it.
 *   Without this every upgrade ran a second, idle reconcile for its own writes.
 * - Server-side apply that changes nothing does not write (no new resourceVersion, no event), so
 *   the repair's own no-op re-applies cause no loop; to bound a fight with another writer anyway,
 *   one extension is enqueued by drift at most once per `minIntervalMs`.
 * - A watch the ServiceAccount may not open (403, a missing ServiceAccount) is retried by its
 *   informer with capped backoff and logged; it touches no other watch or extension.
 * - Health (health.ts): cached workloads and CRDs carry the verdict of their status; an event
 *   or first list that changes the verdicts `health` last handed out enqueues the extension
 *   (no drift: not counted, not repaired); none is enqueued before `health` is first asked,
 *   nor by a first list while another watch of the extension has not listed (that reconcile
 *   would apply again the objects no cache holds yet).
 * - An object that leaves a watch was deleted or lost its owner labels: a label-selected watch
 *   reports both as DELETED, with the object's last matching content, and a relist cannot tell
 *   them apart either. Both enqueue at once (counted as `delete`); the log line says which it
 *   was after a GET of the object (`managed object relabelled`: it still exists, same uid).
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { describeObject } from '../applier/index.ts';
import {
  Informer,
  clientListWatch,
  counterOn,
  gaugeOn,
  jitteredWatchTimeoutSeconds,
  type BackoffOptions,
  type InformerEventType,
  type InformerHandler,
  type KubeClient,
  type KubeObject,
  type ScopedClientFactory,
  type TypeRef,
} from '../../shared/kube/index.ts';
import { AppliedDigests } from './drift-applied.ts';
import { ExpectedDeletes, departure } from './drift-departures.ts';
import { SharedDriftKinds, type DriftView } from './drift-shared.ts';
import {
  changed,
  driftTargets,
  fingerprint,
  firstMissing,
  ownerSelector,
  releaseHealth,
  type DriftFingerprint,
  type DriftTarget,
} from './drift-targets.ts';
import type { ReleaseHealth } from './health.ts';

/** The deployed release whose objects are watched. */
export interface TrackedRelease {
  extension: string;
  /** `spec.namespace`: the namespace of namespaced objects that name none, and of the ServiceAccount. */
  installNamespace: string;
  serviceAccount: string;
  /** The ServiceAccount's namespace when it is not `installNamespace` (the default installer's). */
  serviceAccountNamespace?: string;
  objects: readonly KubeObject[];
}

/** What the reconciler needs of the drift watches. */
export interface DriftTracker {
  /** Makes the extension's watches cover exactly `release`'s objects; never throws. */
  track(release: TrackedRelease, signal?: AbortSignal): Promise<void>;
  /** Ends every watch of the extension. */
  stop(extension: string): void;
  /**
   * The reconcile is about to delete `objects` (a new release dropped them): their delete
   * events are no drift. Each is expected once, for at most {@link EXPECTED_DELETE_MS}.
   */
  expectDeletes(extension: string, objects: readonly KubeObject[]): void;
  /**
   * The uid of `obj`'s live copy when a synced watch of the extension holds it, i.e. when that
   * copy carries the extension's owner labels (the watches select by them) and no owner
   * reference to a ClusterExtension; undefined when no synced watch has it.
   */
  ownedUid(extension: string, obj: KubeObject): string | undefined;
  /**
   * Operator-controller applied `answer` (the API server's answer to an apply: the object as
   * stored): remembered, in memory, as the content its last apply left, for `inSync`.
   */
  noteApplied(extension: string, answer: KubeObject): void;
  /**
   * True when a synced watch of the extension holds `obj` and its cached content (without
   * status) is what this process's last apply of it left (`noteApplied`), or, for an object this
   * process has not applied (after a restart), when operator-controller's apply wrote its content
   * last: nobody changed it since, so re-applying the same object would write nothing. Until the
   * watch lists, true for an object this process applied in the last minute (module comment).
   * False when unknown (no watch, not applied, referred to by an owner reference). Asked only
   * about objects the deployed revision applied as they are, with no revision recorded since.
   */
  inSync(extension: string, obj: KubeObject): boolean;
  /**
   * The objects (`Kind ns/name`) whose drift queued a reconcile of the extension since the last
   * call, and forgets them: after a successful apply of the unchanged release, what it put back.
   */
  takeDrifted(extension: string): string[];
  /** The verdicts on the release's judged objects, from the caches; their change queues a reconcile. */
  health(extension: string): ReleaseHealth;
  /**
   * Resolves once every watch of the extension has listed, or has tried to for
   * {@link FIRST_LIST_WAIT_MS} (a watch that cannot list is not waited for again); never rejects.
   * A reconcile after a restart waits here so that its apply finds the objects cached.
   */
  listed(extension: string, signal?: AbortSignal): Promise<void>;
}

/** How long an announced delete is waited for. */
const EXPECTED_DELETE_MS = 5 * 60_000;

/**
 * How long after its apply an object is vouched for while the watch that will hold it has not
 * listed yet (its first list checks it against the apply's answer and queues a repair if they
 * differ). A watch that cannot list for longer gets its objects applied again.
 */
const UNLISTED_VOUCH_MS = 60_000;

/** How long after its start a watch's first list is waited for (`listed`). */
const FIRST_LIST_WAIT_MS = 5_000;

/** Construction options of DriftWatches. */
interface DriftWatchesOptions {
  scoped: Pick<ScopedClientFactory, 'forServiceAccount'>;
  /** Queues a reconcile of the extension. */
  enqueue: (extension: string) => void;
  log: Logger;
  registry?: Registry;
  /** Leadership: every watch ends when it aborts and none starts afterwards. */
  signal: AbortSignal;
  /** Restart backoff of each watch (default the informer's: 0.8 s doubling to 30 s). */
  backoff?: BackoffOptions;
  /** Shortest interval between two drift-triggered enqueues of one extension (default 1 s). */
  minIntervalMs?: number;
  /**
   * Cluster-scoped kinds operator-controller's own `client` may list and watch cluster-wide:
   * watched once per kind for every extension (decision 0109) instead of per extension.
   */
  shared?: { client: KubeClient; kinds: readonly TypeRef[] };
}

interface RunningWatch {
  target: DriftTarget;
  /** When it started (Date.now()). */
  startedAt: number;
  abort: AbortController;
  /** Its own informer, or its view of its kind's shared one. */
  informer: DriftView;
}

interface ExtensionWatches {
  watches: Map<string, RunningWatch>;
  lastEnqueue: number;
  timer?: NodeJS.Timeout;
}

/** Shortest server-side timeout of a drift watch: 30 min (so 30-60 min with jitter). */
const WATCH_TIMEOUT_SECONDS = 1800;

/** Why a reconcile was triggered (metric label). */
type DriftEvent = 'update' | 'delete' | 'missing';

/** See the module comment. */
export class DriftWatches implements DriftTracker {
  readonly #o: DriftWatchesOptions;
  readonly #extensions = new Map<string, ExtensionWatches>();
  /** Times each extension's watches were stopped: a `track` that raced a `stop` gives up. */
  readonly #stops = new Map<string, number>();
  readonly #running = new Set<Promise<void>>();
  readonly #metrics: ReturnType<typeof driftMetrics> | undefined;
  /** The deletes the reconciles announced (drift-expected.ts). */
  readonly #expectedDeletes = new ExpectedDeletes(EXPECTED_DELETE_MS);
  /** Per extension: the objects whose drift queued a reconcile, for its DriftRepaired event. */
  readonly #drifted = new Map<string, Set<string>>();
  /** Per extension: the health `health` handed out last (JSON), to notice when it changes. */
  readonly #reportedHealth = new Map<string, string>();
  /** What this process's last apply of each object left (noteApplied). */
  readonly #applied = new AppliedDigests();
  readonly #shared: SharedDriftKinds | undefined;

  constructor(options: DriftWatchesOptions) {
    this.#o = options;
    this.#metrics = options.registry === undefined ? undefined : driftMetrics(options.registry);
    this.#shared =
      options.shared === undefined || options.shared.kinds.length === 0
        ? undefined
        : new SharedDriftKinds({
            ...options.shared,
            log: options.log,
            ...(options.registry === undefined ? {} : { registry: options.registry }),
            ...(options.backoff === undefined ? {} : { backoff: options.backoff }),
            onRun: (done) => this.#follow(done),
          });
    this.#metrics?.watches.set(0);
    options.signal.addEventListener('abort', () => this.#stopAll(), { once: true });
  }

  /** Number of drift watches (informers) running, open or waiting to retry: per extension, and shared. */
  get size(): number {
    let n = this.#shared?.size ?? 0;
    for (const e of this.#extensions.values()) for (const w of e.watches.values()) if (w.informer instanceof Informer) n++;
    return n;
  }

  async track(release: TrackedRelease, signal?: AbortSignal): Promise<void> {
    const { extension, installNamespace, serviceAccount } = release;
    if (this.#o.signal.aborted) return;
    const stops = this.#stops.get(extension) ?? 0;
    let client: KubeClient;
    try {
      client = this.#o.scoped.forServiceAccount(release.serviceAccountNamespace ?? installNamespace, serviceAccount);
    } catch (err) {
      this.#o.log.warn({ extension, err }, 'drift watches not started');
      return;
    }
    const { targets, unresolved } = await driftTargets(release.objects, {
      installNamespace,
      serviceAccount,
      namespaced: async (type) => (await client.resourceFor(type, signal)).namespaced,
    });
    if (this.#o.signal.aborted || (this.#stops.get(extension) ?? 0) !== stops) return;
    for (const { type, err } of unresolved) {
      this.#o.log.warn({ extension, apiVersion: type.apiVersion, kind: type.kind, err }, 'drift watch kind not resolved, keeping current watches');
    }
    this.#applied.keepOnly(extension, release.objects);
    const state = this.#extensions.get(extension) ?? { watches: new Map<string, RunningWatch>(), lastEnqueue: 0 };
    this.#extensions.set(extension, state);
    // With a kind unresolved the set is incomplete: add what is new, stop nothing.
    if (unresolved.length === 0) {
      for (const [key, w] of state.watches) {
        if (targets.has(key)) continue;
        w.abort.abort();
        state.watches.delete(key);
      }
    }
    for (const [key, target] of targets) {
      const running = state.watches.get(key);
      if (running !== undefined) running.target = target;
      else state.watches.set(key, this.#start(extension, target, client));
    }
    if (state.watches.size === 0) this.#forget(extension, state);
    this.#metrics?.watches.set(this.size);
  }

  expectDeletes(extension: string, objects: readonly KubeObject[]): void {
    this.#expectedDeletes.add(extension, objects);
  }

  ownedUid(extension: string, obj: KubeObject): string | undefined {
    const cached = this.#cached(extension, obj);
    if (cached === 'unlisted') return undefined;
    // One still referring to an extension is read by the apply, which removes the reference.
    return cached === undefined || cached.extensionReferenced === true ? undefined : (cached.metadata.uid ?? '');
  }

  noteApplied(extension: string, answer: KubeObject): void {
    this.#applied.note(extension, answer);
  }

  inSync(extension: string, obj: KubeObject): boolean {
    const cached = this.#cached(extension, obj);
    if (cached === 'unlisted') {
      // Its watch has not listed yet (a reconcile right after the apply that started it): the
      // first list checks it (#checkApplied), so a recent apply of this process vouches for it.
      const applied = this.#applied.get(extension, obj);
      return applied !== undefined && Date.now() - applied.at < UNLISTED_VOUCH_MS;
    }
    if (cached === undefined || cached.extensionReferenced === true) return false;
    const applied = this.#applied.get(extension, cached);
    // Not applied by this process (it restarted): as operator-controller's apply left it when
    // that apply wrote its content last; the callers ask only about objects the deployed
    // revision applied as they are now, with no revision recorded since.
    return applied === undefined ? cached.ownWrite === true : applied.digest === cached.digest;
  }

  /**
   * `obj`'s entry in a synced watch of the extension, if one holds it; 'unlisted' when none
   * does and the watch that covers it has not listed yet.
   */
  #cached(extension: string, obj: KubeObject): Readonly<DriftFingerprint> | 'unlisted' | undefined {
    const watches = this.#extensions.get(extension)?.watches;
    if (watches === undefined) return undefined;
    const name = obj.metadata.name ?? '';
    let unlisted = false;
    for (const { target, informer } of watches.values()) {
      if (target.type.apiVersion !== obj.apiVersion || target.type.kind !== obj.kind) continue;
      if (target.namespace !== '' && target.namespace !== obj.metadata.namespace) continue;
      if (!informer.hasSynced) {
        unlisted = true;
        continue;
      }
      // The target's namespace is '' for cluster-scoped kinds, whatever the object says.
      const cached = informer.get(target.namespace === '' ? name : `${target.namespace}/${name}`);
      if (cached !== undefined) return cached;
    }
    return unlisted ? 'unlisted' : undefined;
  }

  takeDrifted(extension: string): string[] {
    const drifted = this.#drifted.get(extension);
    this.#drifted.delete(extension);
    return drifted === undefined ? [] : [...drifted];
  }

  health(extension: string): ReleaseHealth {
    const watches = this.#extensions.get(extension)?.watches;
    const health = watches === undefined ? { observed: false as const } : releaseHealth(watches.values());
    this.#reportedHealth.set(extension, JSON.stringify(health));
    return health;
  }

  async listed(extension: string, signal?: AbortSignal): Promise<void> {
    const unlisted = [...(this.#extensions.get(extension)?.watches.values() ?? [])].filter((w) => !w.informer.hasSynced);
    const wait = Math.max(...unlisted.map((w) => w.startedAt)) + FIRST_LIST_WAIT_MS - Date.now();
    if (unlisted.length === 0 || wait <= 0 || signal?.aborted === true) return;
    const done = new AbortController();
    const timer = setTimeout(() => done.abort(), wait);
    const stop = AbortSignal.any(signal === undefined ? [done.signal] : [done.signal, signal]);
    try {
      await Promise.all(unlisted.map((w) => w.informer.waitForSync(AbortSignal.any([stop, w.abort.signal])).catch(() => undefined)));
    } finally {
      clearTimeout(timer);
    }
  }

  stop(extension: string): void {
    this.#expectedDeletes.forget(extension);
    this.#reportedHealth.delete(extension);
    this.#drifted.delete(extension);
    this.#applied.forget(extension);
    this.#stops.set(extension, (this.#stops.get(extension) ?? 0) + 1);
    const state = this.#extensions.get(extension);
    if (state === undefined) return;
    for (const w of state.watches.values()) w.abort.abort();
    this.#forget(extension, state);
    this.#metrics?.watches.set(this.size);
  }

  /** Resolves when every watch stopped so far has ended its list/watch loop. */
  async settled(): Promise<void> {
    await Promise.all(this.#running);
  }

  #stopAll(): void {
    for (const extension of [...this.#extensions.keys()]) this.stop(extension);
    this.#shared?.stopAll();
  }

  #follow(done: Promise<void>): void {
    this.#running.add(done);
    void done.finally(() => this.#running.delete(done));
  }

  #forget(extension: string, state: ExtensionWatches): void {
    clearTimeout(state.timer);
    this.#extensions.delete(extension);
  }

  #start(extension: string, target: DriftTarget, client: KubeClient): RunningWatch {
    const abort = new AbortController();
    const handler = (type: InformerEventType, obj: Readonly<DriftFingerprint>, old: Readonly<DriftFingerprint> | undefined): void => {
      // Not before every watch of the extension listed: the last first list checks then.
      if (obj.health !== undefined && this.#allSynced(extension)) this.#checkHealth(extension);
      if (!changed(type, obj, old) || (type === 'delete' && this.#expectedDeletes.take(extension, obj))) return;
      this.#trigger(extension, type === 'delete' ? 'delete' : 'update', obj, client);
    };
    const informer =
      this.#shared !== undefined && target.namespace === '' && this.#shared.covers(target.type)
        ? this.#shared.view(extension, target.type, target.expected, handler, abort.signal)
        : this.#own(extension, target, client, handler, abort.signal);
    const running: RunningWatch = { target, startedAt: Date.now(), abort, informer };
    informer.waitForSync(abort.signal).then(
      () => {
        // The reconcile a health change queues finds every object cached (and applies none)
        // only once every watch of the extension has listed: the last to list checks.
        if (this.#allSynced(extension)) this.#checkHealth(extension);
        const missing = firstMissing(running);
        if (missing !== undefined) this.#trigger(extension, 'missing', missing, client);
        else this.#checkApplied(extension, running, client);
      },
      () => undefined,
    );
    return running;
  }

  /** The extension's own informer of `target`, as its ServiceAccount (`client`), running until `signal` aborts. */
  #own(
    extension: string,
    target: DriftTarget,
    client: KubeClient,
    handler: InformerHandler<DriftFingerprint>,
    signal: AbortSignal,
  ): Informer<DriftFingerprint> {
    const source = clientListWatch<DriftFingerprint>(client, target.type, {
      labelSelector: ownerSelector(extension),
      ...(target.namespace === '' ? {} : { namespace: target.namespace }),
    });
    const informer = new Informer<DriftFingerprint>({
      name: 'drift',
      source,
      log: this.#o.log,
      ...(this.#o.registry === undefined ? {} : { registry: this.#o.registry }),
      ...(this.#o.backoff === undefined ? {} : { backoff: this.#o.backoff }),
      // The client streams list pages (KubeClient.listEach), so each object is reduced to its
      // fingerprint as it arrives: one extension's objects of a kind can be dozens of ~1 MiB
      // ConfigMaps, and a page of ten of them parsed whole was ~60 MB of objects.
      transform: (obj) => fingerprint(obj, target.type),
      resyncPeriodMs: 0,
      // Hundreds of these stay open; renewing each every 30-60 min instead of 5-10 keeps their
      // requests per second low. Bookmarks (about one a minute) keep the watchdog quiet.
      watchTimeoutSeconds: () => jitteredWatchTimeoutSeconds(WATCH_TIMEOUT_SECONDS),
    });
    informer.addHandler(handler);
    this.#follow(informer.run(signal));
    return informer;
  }

  /**
   * A first list's check of what the last apply left: an object changed since (between the apply
   * and the list, which no watch event reports) is drift, as an update would be.
   */
  #checkApplied(extension: string, { target, informer }: RunningWatch, client: KubeClient): void {
    for (const key of target.expected) {
      const cached = informer.get(key);
      const last = cached === undefined ? undefined : this.#applied.get(extension, cached);
      if (cached === undefined || last === undefined || last.digest === cached.digest || cached.ownWrite === true) continue;
      this.#trigger(extension, 'update', cached, client);
      return;
    }
  }

  #allSynced(extension: string): boolean {
    const watches = this.#extensions.get(extension)?.watches.values() ?? [];
    return [...watches].every((w) => w.informer.hasSynced);
  }

  /** Enqueues the extension when its health differs from what `health` handed out last. */
  #checkHealth(extension: string): void {
    const reported = this.#reportedHealth.get(extension);
    const state = this.#extensions.get(extension);
    if (reported === undefined || state === undefined) return;
    if (JSON.stringify(releaseHealth(state.watches.values())) !== reported) this.#enqueue(extension, state);
  }

  #trigger(extension: string, event: DriftEvent, obj: Readonly<KubeObject>, client: KubeClient): void {
    const state = this.#extensions.get(extension);
    if (state === undefined) return;
    this.#metrics?.events.inc({ event });
    const fields = { extension, event, object: describeObject(obj) };
    this.#drifted.set(extension, (this.#drifted.get(extension) ?? new Set<string>()).add(fields.object));
    if (event === 'update') this.#o.log.debug(fields, 'managed object changed, reconciling');
    else void this.#logDeparture(client, obj, fields);
    this.#enqueue(extension, state);
  }

  async #logDeparture(client: KubeClient, obj: Readonly<KubeObject>, fields: Record<string, unknown>): Promise<void> {
    const how = await departure(client, obj, this.#o.signal);
    if (how === 'relabelled') this.#o.log.info(fields, 'managed object relabelled, reconciling');
    else if (how === 'deleted') this.#o.log.info(fields, 'managed object deleted, reconciling');
    else this.#o.log.info(fields, 'managed object left its watch, reconciling');
  }

  #enqueue(extension: string, state: ExtensionWatches): void {
    const wait = state.lastEnqueue + (this.#o.minIntervalMs ?? 1000) - Date.now();
    if (wait <= 0) {
      state.lastEnqueue = Date.now();
      this.#o.enqueue(extension);
    } else if (state.timer === undefined) {
      state.timer = setTimeout(() => {
        state.timer = undefined;
        state.lastEnqueue = Date.now();
        if (this.#extensions.get(extension) === state) this.#o.enqueue(extension);
      }, wait);
      state.timer.unref();
    }
  }
}

function driftMetrics(registry: Registry) {
  return {
    watches: gaugeOn(registry, 'operator_controller_drift_watches', 'Drift watches running (one per extension, resource and namespace).', []),
    events: counterOn(
      registry,
      'operator_controller_drift_events_total',
      'Managed-object changes that queued a reconcile, by event: update, delete, or missing from a watch first list.',
      ['event'],
    ),
  };
}
