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
 * (drift/targets.ts), listing and watching as the extension's ServiceAccount with the owner
 * label selector; objects of the cluster-scoped kinds operator-controller may list and watch
 * itself (`shared`) are seen through one informer per kind instead (drift/shared.ts, decision
 * 0109). The per-extension informers are installer watches (pkg/operator-controller/installerwatch):
 * under BoxcutterRuntime the revision controller's watches of the same ServiceAccount, kind and
 * namespace are the same informer (decision 0156), selecting by the owner-name label, and each
 * extension's view keeps the objects its owner labels name. The watches follow the release: `track` is called with the deployed release on every
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
 *   the repair's own no-op re-applies cause no loop; a fight with another writer is bounded by
 *   the pacing of drift/triggers.ts, which also tells a departed object's delete from a relabel.
 * - Health (drift/health.ts): cached workloads and CRDs carry the verdict of their status, and until
 *   their watch lists, the answers of the last minute's applies do; an event or first list that
 *   changes the verdicts `health` last handed out enqueues the extension (no drift: not counted,
 *   not repaired), but not before `health` is first asked, nor while another watch of the
 *   extension has not listed (that reconcile would apply again the objects no cache holds yet).
 */
import { ownerSelector } from '../applier/index.ts';
import type { WatchSubscriber } from '../installerwatch/index.ts';
import {
  gaugeOn,
  type BackoffOptions,
  type InformerEventType,
  type KubeClient,
  type KubeObject,
  type ScopedClientFactory,
  type TypeRef,
} from '../../shared/kube/index.ts';
import { AppliedDigests } from './applied.ts';
import { ExpectedDeletes } from './departures.ts';
import { HealthReports } from './health-reports.ts';
import { ownDriftWatches } from './own.ts';
import { SharedDriftKinds, SharedView, ownedBy, type DriftView, type ViewHandler } from './shared.ts';
import { changed, driftTargets, firstMissing, releaseHealth, targetObject, type DriftFingerprint, type DriftTarget } from './targets.ts';
import type { DriftTracker, TrackedRelease } from './tracker.ts';
import { DriftTriggers, type DriftTriggersOptions } from './triggers.ts';
import type { ObjectHealth, ReleaseHealth } from './health.ts';

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

/** Construction options of DriftWatches: those of its triggers (enqueue, log, registry, pacing, leadership), and: */
interface DriftWatchesOptions extends DriftTriggersOptions {
  scoped: Pick<ScopedClientFactory, 'forServiceAccount'>;
  /** Restart backoff of each watch (default the informer's: 0.8 s doubling to 30 s). */
  backoff?: BackoffOptions;
  /**
   * Cluster-scoped kinds operator-controller's own `client` may list and watch cluster-wide:
   * watched once per kind for every extension (decision 0109) instead of per extension;
   * `lingerMs`: how long one runs on with no extension using it (drift/shared.ts; tests shorten it).
   */
  shared?: { client: KubeClient; kinds: readonly TypeRef[]; lingerMs?: number | undefined };
  /**
   * The installer watches the extensions' own drift watches subscribe to, shared with the
   * revision controller under BoxcutterRuntime (installerwatch, decision 0156), and the label
   * selector of an extension's objects there (the revision watches'); each extension's view holds
   * the objects its owner labels name. Default: a set of their own (informers named `drift`)
   * selecting by the owner labels.
   */
  watches?: { subscriber: WatchSubscriber<DriftFingerprint>; selector: (extension: string) => string } | undefined;
}

interface RunningWatch {
  target: DriftTarget;
  /** When it started (Date.now()). */
  startedAt: number;
  abort: AbortController;
  /** Its view of its installer watch, or of its kind's shared informer. */
  informer: DriftView;
  /** An installer watch of the extension (not a view of a kind's shared informer). */
  own: boolean;
}

/** An extension's own watches (not views of shared ones). */
const ownWatches = (state: ReadonlyMap<string, RunningWatch>): number => [...state.values()].filter((w) => w.own).length;

/** See the module comment. */
export class DriftWatches implements DriftTracker {
  readonly #o: DriftWatchesOptions;
  /** Per extension, its watches by target key. */
  readonly #extensions = new Map<string, Map<string, RunningWatch>>();
  /** Times each extension's watches were stopped: a `track` that raced a `stop` gives up. */
  readonly #stops = new Map<string, number>();
  readonly #running = new Set<Promise<void>>();
  /** `operator_controller_drift_watches`. */
  readonly #gauge;
  /** The deletes the reconciles announced (drift/departures.ts). */
  readonly #expectedDeletes = new ExpectedDeletes(EXPECTED_DELETE_MS);
  readonly #triggers: DriftTriggers;
  /** The health `health` handed out last, to notice when it changes. */
  readonly #reportedHealth = new HealthReports();
  /** What this process's last apply of each object left (noteApplied). */
  readonly #applied = new AppliedDigests();
  readonly #shared: SharedDriftKinds | undefined;
  readonly #watches: WatchSubscriber<DriftFingerprint>;
  readonly #selector: ((extension: string) => string) | undefined;
  /** The extensions' own informers, counted as they change (a walk per track was O(extensions)). */
  #own = 0;

  constructor(options: DriftWatchesOptions) {
    this.#o = options;
    this.#gauge =
      options.registry === undefined
        ? undefined
        : gaugeOn(options.registry, 'operator_controller_drift_watches', 'Drift watches running (one per extension, resource and namespace).', []);
    this.#triggers = new DriftTriggers(options);
    this.#shared =
      options.shared === undefined || options.shared.kinds.length === 0
        ? undefined
        : new SharedDriftKinds({
            ...options.shared,
            log: options.log,
            registry: options.registry,
            backoff: options.backoff,
            onRun: (done) => this.#follow(done),
          });
    this.#watches = options.watches?.subscriber ?? ownDriftWatches(options);
    this.#selector = options.watches?.selector;
    this.#gauge?.set(0);
    options.signal.addEventListener('abort', () => this.#stopAll(), { once: true });
  }

  /** Number of drift watches (informers) running, open or waiting to retry: per extension, and shared ones in use. */
  get size(): number {
    return (this.#shared?.size ?? 0) + this.#own;
  }

  async track(release: TrackedRelease, signal?: AbortSignal): Promise<void> {
    const { extension, installNamespace, serviceAccount } = release;
    if (this.#o.signal.aborted) return;
    const stops = this.#stops.get(extension) ?? 0;
    let client: KubeClient;
    // The ServiceAccount the watches list and watch as: what keys them among the installer watches.
    const identity = `${release.serviceAccountNamespace ?? installNamespace}/${serviceAccount}`;
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
    const state = this.#extensions.get(extension) ?? new Map<string, RunningWatch>();
    this.#extensions.set(extension, state);
    const before = ownWatches(state);
    // With a kind unresolved the set is incomplete: add what is new, stop nothing.
    if (unresolved.length === 0) {
      for (const [key, w] of state) {
        if (targets.has(key)) continue;
        w.abort.abort();
        state.delete(key);
      }
    }
    for (const [key, target] of targets) {
      const running = state.get(key);
      if (running !== undefined) running.target = target;
      else state.set(key, this.#start(extension, target, identity, client));
    }
    this.#own += ownWatches(state) - before;
    if (state.size === 0) this.#forget(extension);
    this.#gauge?.set(this.size);
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

  revisionControlled(extension: string, obj: KubeObject): boolean {
    const cached = this.#cached(extension, obj);
    return cached !== undefined && cached !== 'unlisted' && cached.revisionControlled === true;
  }

  noteApplied(extension: string, answer: KubeObject): void {
    this.#applied.note(extension, answer);
  }

  inSync(extension: string, obj: KubeObject): boolean {
    const cached = this.#cached(extension, obj);
    if (cached === 'unlisted') {
      // Its watch has not listed yet (a reconcile right after the apply that started it): the
      // first list checks it (AppliedDigests.firstChanged), so a recent apply of this process vouches for it.
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
    const watches = this.#extensions.get(extension);
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
    return this.#triggers.takeDrifted(extension);
  }

  health(extension: string): ReleaseHealth {
    const watches = this.#extensions.get(extension);
    // Until its watches list (right after an install), the answers of the apply tell the verdicts.
    const recent = (t: DriftTarget, key: string): ObjectHealth | undefined =>
      this.#applied.verdict(extension, targetObject(t, key), UNLISTED_VOUCH_MS);
    const health = watches === undefined ? { observed: false as const } : releaseHealth(watches.values(), recent);
    // A watch still unlisted when they are no longer vouched for: the check queues the reconcile that says so.
    const recheck =
      health.observed && !this.#allSynced(extension) ? { afterMs: UNLISTED_VOUCH_MS, run: () => this.#checkHealth(extension) } : undefined;
    this.#reportedHealth.report(extension, health, recheck);
    return health;
  }

  async listed(extension: string, signal?: AbortSignal): Promise<void> {
    const unlisted = [...(this.#extensions.get(extension)?.values() ?? [])].filter((w) => !w.informer.hasSynced);
    const wait = Math.max(...unlisted.map((w) => w.startedAt)) + FIRST_LIST_WAIT_MS - Date.now();
    if (unlisted.length === 0 || wait <= 0 || signal?.aborted === true) return;
    const stop = AbortSignal.any([AbortSignal.timeout(wait), ...(signal === undefined ? [] : [signal])]);
    await Promise.all(unlisted.map((w) => w.informer.waitForSync(AbortSignal.any([stop, w.abort.signal])).catch(() => undefined)));
  }

  stop(extension: string): void {
    this.#expectedDeletes.forget(extension);
    this.#reportedHealth.forget(extension);
    this.#triggers.forget(extension);
    this.#applied.forget(extension);
    this.#stops.set(extension, (this.#stops.get(extension) ?? 0) + 1);
    const state = this.#extensions.get(extension);
    if (state === undefined) return;
    for (const w of state.values()) w.abort.abort();
    this.#own -= ownWatches(state);
    this.#forget(extension);
    this.#gauge?.set(this.size);
  }

  /** Resolves when every watch stopped so far has ended its list/watch loop (a shared one no extension uses lingers: drift/shared.ts). */
  async settled(): Promise<void> {
    await Promise.all([...this.#running, this.#watches.settled()]);
  }

  #stopAll(): void {
    for (const extension of [...this.#extensions.keys()]) this.stop(extension);
    this.#shared?.stopAll();
  }

  #follow(done: Promise<void>): void {
    this.#running.add(done);
    void done.finally(() => this.#running.delete(done));
  }

  #forget(extension: string): void {
    this.#triggers.cancel(extension);
    this.#extensions.delete(extension);
  }

  #start(extension: string, target: DriftTarget, identity: string, client: KubeClient): RunningWatch {
    const abort = new AbortController();
    const handler = (type: InformerEventType, obj: Readonly<DriftFingerprint>, old: Readonly<DriftFingerprint> | undefined): void => {
      // Not before every watch of the extension listed: the last first list checks then.
      if (obj.health !== undefined && this.#allSynced(extension)) this.#checkHealth(extension);
      if (!changed(type, obj, old) || (type === 'delete' && this.#expectedDeletes.take(extension, obj))) return;
      this.#trigger(extension, type === 'delete' ? 'delete' : 'update', obj, client);
    };
    const own = this.#shared === undefined || target.namespace !== '' || !this.#shared.covers(target.type);
    const informer = own
      ? this.#subscribe(extension, target, identity, client, handler, abort.signal)
      : this.#shared.view(extension, target.type, target.expected, handler, abort.signal);
    const running: RunningWatch = { target, startedAt: Date.now(), abort, informer, own };
    informer.waitForSync(abort.signal).then(
      () => {
        // The reconcile a health change queues finds every object cached (and applies none)
        // only once every watch of the extension has listed: the last to list checks.
        if (this.#allSynced(extension)) this.#checkHealth(extension);
        const missing = firstMissing(running);
        if (missing !== undefined) this.#trigger(extension, 'missing', missing, client);
        else {
          const changedSince = this.#applied.firstChanged(extension, running.target.expected, informer);
          if (changedSince !== undefined) this.#trigger(extension, 'update', changedSince, client);
        }
      },
      () => undefined,
    );
    return running;
  }

  /**
   * The extension's view of its installer watch of `target`: as a fresh informer's first list
   * comes after the apply, a view of one already synced (the revision controller's, started
   * first) waits for the release's objects its cache lacks, for a few seconds (drift/shared.ts).
   */
  #subscribe(extension: string, target: DriftTarget, identity: string, client: KubeClient, handler: ViewHandler, signal: AbortSignal): DriftView {
    // The view, once made: the cached objects an informer already synced hands a new handler at once are in its cache.
    const made: { view?: SharedView } = {};
    // A selector broader than the owner labels: an object entering or leaving them is an add or a delete, as for a watch by them.
    const broad = this.#selector !== undefined;
    const selector = this.#selector?.(extension) ?? ownerSelector(extension);
    const key = { identity, client, selector, type: target.type, namespace: target.namespace };
    const deliver: ViewHandler = (type, obj, old) => {
      if (!broad) return made.view?.deliver(type, obj, old);
      const now = ownedBy(extension, obj);
      const before = old !== undefined && ownedBy(extension, old);
      if (type === 'update' && before && !now) made.view?.deliver('delete', old, old);
      else if (type === 'update' && !before && now) made.view?.deliver('add', obj, undefined);
      else if (now) made.view?.deliver(type, obj, old);
    };
    const cache = this.#watches.subscribe(key, deliver, signal);
    const view = new SharedView(extension, cache, handler, broad);
    made.view = view;
    if (cache.hasSynced) view.awaitArrivals(target.expected);
    signal.addEventListener('abort', () => view.close(), { once: true });
    return view;
  }

  #allSynced(extension: string): boolean {
    const watches = this.#extensions.get(extension)?.values() ?? [];
    return [...watches].every((w) => w.informer.hasSynced);
  }

  /** Enqueues the extension when its health from the caches differs from what `health` handed out last. */
  #checkHealth(extension: string): void {
    const state = this.#extensions.get(extension);
    if (state !== undefined && this.#reportedHealth.differs(extension, releaseHealth(state.values()))) this.#triggers.enqueue(extension);
  }

  #trigger(extension: string, event: 'update' | 'delete' | 'missing', obj: Readonly<KubeObject>, client: KubeClient): void {
    if (this.#extensions.has(extension)) this.#triggers.trigger(extension, event, obj, client);
  }
}
