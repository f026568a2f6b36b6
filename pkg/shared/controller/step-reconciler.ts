/**
 * The one reconciler shape of this codebase: a typed working copy of one API object, ordered
 * steps over a state built from it, status and finalizers written once at the end
 * (reconcileParsedWithStatus) even when a step failed, and what the steps held (`held`) released.
 *
 * A step returning POLL waits for a person: the object is reconciled again after its poll
 * period, doubling from `poll.initialMs` to `poll.maxMs` with each consecutive wait, starting
 * over once a reconcile ends without one (a failed reconcile counts as neither).
 */
import type { Result } from '../errors/index.ts';
import { ApiError, type KubeObject } from '../kube/index.ts';
import { ExponentialFailureRateLimiter } from './rate-limiter.ts';
import type { ReconcileContext, ReconcileResult, Reconciler } from './reconciler.ts';
import { reconcileParsedWithStatus, type StatusClient, type WorkingObject } from './status-writer.ts';
import { isPoll, runSteps, type Step, type StepTimer } from './steps.ts';

/** What a StepReconciler is made of. */
interface StepReconcilerConfig<T extends WorkingObject, S> {
  /** Reads the object and writes its status and finalizers (the controller's own identity). */
  client: StatusClient;
  /** The reconciled kind. */
  type: { apiVersion: string; kind: string };
  /** A namespaced kind: keys are `namespace/name` (objectKey). */
  namespaced?: boolean;
  /** The API module's parser; an object that does not parse fails terminally, nothing written. */
  parse: (input: unknown) => Result<T, string>;
  /**
   * The state the steps share, over the typed working copy. `held` takes what a reconcile holds
   * until it ends (memory leases, files): it is disposed then, whatever happened.
   */
  state: (working: T, ctx: ReconcileContext, held: DisposableStack) => S;
  /** The steps, in order. */
  steps: readonly Step<S>[];
  /** Per-step duration observer (e.g. stepDurationTimer). */
  stepTimer?: StepTimer;
  /** First and longest poll period of a wait (default 1 s doubling to 10 s). */
  poll?: { initialMs: number; maxMs: number };
  /** Called with the object's name when a reconcile throws (e.g. to forget what a failure made stale). */
  onError?: (name: string, err: unknown) => void;
  /**
   * The informer's copy of the object by key (`Informer.get`), read instead of the API server as
   * upstream's reconcilers read their cache (issue 74: one GET a reconcile); none: every reconcile
   * reads the object from the API server. A copy not yet past this reconciler's own last writes
   * of the object (its resourceVersion is one those writes were made on) is replaced by what the
   * API server answered the last of them, which is the object as it stood after it; when that
   * write failed, it is read from the API server. No copy is an object that is gone, as
   * controller-runtime's cache says (the watches start the workers once synced, and an object
   * created since queues itself when its copy arrives). Writes stay conditional on the
   * resourceVersion read (status PUT, finalizers' merge patch): a copy behind another writer's
   * conflicts and is retried.
   */
  cached?: (key: string) => Readonly<KubeObject> | undefined;
}

/** See the module comment. */
export class StepReconciler<T extends WorkingObject, S> implements Reconciler {
  readonly #c: StepReconcilerConfig<T, S>;
  /** Consecutive waits per object: the poll period doubles with each. */
  readonly #waits: ExponentialFailureRateLimiter;
  /**
   * By key, until the cache is past them: the resourceVersions this reconciler's writes of the
   * object were made on, and the API server's answer to the last one (none when it failed).
   */
  readonly #written = new Map<string, { on: Set<string>; answer: KubeObject | undefined }>();

  constructor(config: StepReconcilerConfig<T, S>) {
    this.#c = config;
    const { initialMs, maxMs } = config.poll ?? { initialMs: 1000, maxMs: 10_000 };
    this.#waits = new ExponentialFailureRateLimiter(initialMs, maxMs);
  }

  async reconcile(name: string, ctx: ReconcileContext): Promise<ReconcileResult | void> {
    const c = this.#c;
    // Each step's time in this reconcile, logged at debug level (where a burst's time goes, issue 60).
    const traced = ctx.log.isLevelEnabled('debug');
    const stepMs: Record<string, number> = {};
    const timer: StepTimer | undefined = !traced
      ? c.stepTimer
      : (step, seconds) => {
          stepMs[step] = Math.round(seconds * 1000);
          c.stepTimer?.(step, seconds);
        };
    const started = performance.now();
    let outcome;
    try {
      outcome = await reconcileParsedWithStatus({
        client: c.cached === undefined ? c.client : this.#cachedReads(name, c.cached),
        ref: c.namespaced === true ? { ...c.type, ...namespacedRef(name) } : { ...c.type, name },
        parse: c.parse,
        reconcile: async (working) => {
          const held = new DisposableStack();
          try {
            return await runSteps(c.steps, c.state(working, ctx, held), timer);
          } finally {
            held.dispose();
          }
        },
        signal: ctx.signal,
      });
    } catch (err) {
      // A failure between waits does not start the poll period over.
      c.onError?.(name, err);
      throw err;
    } finally {
      // `ms` includes reading the object and writing its status, which the steps do not.
      if (traced) ctx.log.debug({ steps: stepMs, ms: Math.round(performance.now() - started) }, 'reconcile steps');
    }
    if (outcome === undefined || !isPoll(outcome)) {
      this.#waits.forget(name);
      return outcome;
    }
    return { requeueAfterMs: this.#waits.when(name) };
  }

  /** The status client of one reconcile of `key` reading the cached copy (see `cached`), recording its writes. */
  #cachedReads(key: string, cached: (key: string) => Readonly<KubeObject> | undefined): StatusClient {
    const client = this.#c.client;
    const written = this.#written;
    const wrote = async (on: string | undefined, write: Promise<KubeObject>): Promise<KubeObject> => {
      const entry = written.get(key) ?? { on: new Set<string>(), answer: undefined };
      if (on !== undefined) entry.on.add(on);
      written.set(key, entry);
      try {
        entry.answer = await write;
        return entry.answer;
      } catch (err) {
        // Another writer may have come between: the next read asks the API server.
        entry.answer = undefined;
        throw err;
      }
    };
    return {
      get: ((ref, options) => {
        const copy = cached(key);
        if (copy === undefined) {
          written.delete(key);
          return Promise.reject(new ApiError(404, 'NotFound', `${ref.kind} ${JSON.stringify(key)} not found in the informer's cache`));
        }
        const entry = written.get(key);
        if (entry === undefined || !entry.on.has(copy.metadata.resourceVersion ?? '')) {
          written.delete(key);
          return Promise.resolve(copy as KubeObject);
        }
        // Behind our own write: the object as that write left it, no older than the cache will be.
        if (entry.answer !== undefined) return Promise.resolve(structuredClone(entry.answer));
        return client.get(ref, options);
      }) as StatusClient['get'],
      updateStatus: ((obj, options) => wrote(obj.metadata?.resourceVersion, client.updateStatus(obj, options))) as StatusClient['updateStatus'],
      patch: ((ref, patch, type, options) => wrote(patchedOn(patch), client.patch(ref, patch, type, options))) as StatusClient['patch'],
    };
  }
}

/** A merge patch's resourceVersion precondition, if it has one. */
function patchedOn(patch: unknown): string | undefined {
  const rv = (patch as { metadata?: { resourceVersion?: unknown } } | undefined)?.metadata?.resourceVersion;
  return typeof rv === 'string' ? rv : undefined;
}

/** `namespace/name` as a reference's two fields (a key without `/` names a cluster-scoped object). */
function namespacedRef(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
