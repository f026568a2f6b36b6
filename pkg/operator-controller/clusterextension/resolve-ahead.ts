/**
 * Resolution ahead of the upgrade (decision 0100). When catalog content changes, every affected
 * ClusterExtension is queued for its reconcile, which resolves, pulls, renders, pre-authorizes
 * and applies in one pass with a few workers: with hundreds of extensions the last one learns
 * what it will be upgraded to minutes later. This resolves each of them at once instead (the
 * same resolver over the same cached catalog content, a few ms each) and, where the result is a
 * different bundle than the installed one, says so in status before the reconcile gets there:
 * `Progressing` True, reason `RollingOut` (upstream's reason for a new revision not yet rolled
 * out), naming the bundle and the installed version. The reconcile then writes its own outcome
 * over it, as always.
 *
 * It reports only what the reconcile is sure to act on next, and never hides what a reconcile
 * said:
 * - only an extension whose last reconcile succeeded for its current spec (`Progressing`
 *   `Succeeded` at the current generation) with a bundle installed, not being deleted, under
 *   the Automatic update policy (other policies hold upgrades and report them themselves);
 * - only a successful resolution to another bundle than `status.install.bundle`, made with the
 *   resolve step's dependency and minKubeVersion checks and its hold for installed dependents
 *   (resolution.ts), so a bundle the reconcile will pass over or hold back is never announced;
 * - the write is a status update guarded by the resourceVersion the informer holds (a
 *   conflict means someone wrote since: nothing is reported), run beside the reconciles
 *   (`besideReconcile`): never while a reconcile of that extension runs, and one that starts
 *   meanwhile waits for the write.
 *
 * Failures are logged and counted; nothing is retried: the queued reconcile reports anyway.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import {
  ClusterExtensionConditionType as Type,
  ClusterExtensionReason as Reason,
  UpdatePolicy,
  findCondition,
  parseClusterExtension,
  type ClusterExtension,
} from '../../shared/api/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import { counterOn, isConflict, isNotFound, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import { metadataFor } from '../resolve/index.ts';
import { policySetting } from '../upgradepolicy/index.ts';
import { selectedCatalogs } from '../dependencyview/index.ts';
import { setCondition } from './status.ts';
import { dependentsHold, resolveChecked, type CheckedResolvePorts } from './resolution.ts';

/** What was done for one extension (the metric's `outcome`). */
type AheadOutcome = 'reported' | 'unchanged' | 'held' | 'skipped' | 'unresolved' | 'superseded' | 'failed';

/** Construction options of ResolveAhead. */
interface ResolveAheadOptions extends CheckedResolvePorts {
  /** The ClusterExtension informer (objects by name). */
  extensions: { get(key: string): Readonly<KubeObject> | undefined };
  /** Writes status as operator-controller. */
  client: Pick<KubeClient, 'updateStatus'>;
  /** Runs a write unless a reconcile of the extension runs (Controller.besideReconcile). */
  beside: <T>(extension: string, fn: () => Promise<T>) => Promise<T | undefined>;
  log: Logger;
  registry?: Registry;
  /** Extensions resolved at once (default 8): resolution waits on catalogd's first answers. */
  concurrency?: number;
  /** Ends the work: queued extensions are dropped. */
  signal: AbortSignal;
}

/** `Resolved bundle "<name>" with version "<version>", upgrading from version "<installed>"`. */
export function rollingOutMessage(bundle: { name: string; version: string }, installedVersion: string): string {
  return `Resolved bundle ${JSON.stringify(bundle.name)} with version ${JSON.stringify(bundle.version)}, upgrading from version ${JSON.stringify(installedVersion)}`;
}

/** See the module comment. */
export class ResolveAhead {
  readonly #o: ResolveAheadOptions;
  /** Extensions waiting, in order, without duplicates. */
  readonly #queue = new Set<string>();
  /** Extensions being resolved: one offered again waits for its current turn to end. */
  readonly #active = new Set<string>();
  #running = 0;
  readonly #outcomes: ReturnType<typeof counterOn> | undefined;
  #idle: Promise<void> = Promise.resolve();
  #wake: (() => void) | undefined;

  constructor(o: ResolveAheadOptions) {
    this.#o = o;
    this.#outcomes =
      o.registry === undefined
        ? undefined
        : counterOn(
            o.registry,
            'operator_controller_resolve_ahead_total',
            'Extensions resolved ahead of their reconcile after a catalog change, by outcome (reported: an upgrade reported in status).',
            ['outcome'],
          );
  }

  /** Queues `extension` for a resolution ahead of its reconcile. */
  offer(extension: string): void {
    if (this.#o.signal.aborted || extension === '') return;
    this.#queue.add(extension);
    if (this.#running === 0) this.#idle = new Promise((resolve) => (this.#wake = resolve));
    // A worker for each waiting extension up to the limit; one being resolved needs none (its
    // worker comes back for it).
    const waiting = [...this.#queue].filter((n) => !this.#active.has(n)).length;
    for (let n = Math.min(waiting, (this.#o.concurrency ?? 8) - this.#running); n > 0; n--) {
      this.#running++;
      void this.#drain();
    }
  }

  /** Resolves when nothing is queued or running. */
  settled(): Promise<void> {
    return this.#running === 0 ? Promise.resolve() : this.#idle;
  }

  async #drain(): Promise<void> {
    try {
      for (let next = this.#first(); next !== undefined; next = this.#first()) {
        this.#active.add(next);
        const outcome = await this.#ahead(next).catch((err: unknown) => {
          this.#o.log.warn({ extension: next, err: errorMessage(err) }, 'resolution ahead of the reconcile failed');
          return 'failed' as const;
        });
        this.#active.delete(next);
        this.#outcomes?.inc({ outcome });
      }
    } finally {
      if (--this.#running === 0) this.#wake?.();
    }
  }

  #first(): string | undefined {
    if (this.#o.signal.aborted) {
      this.#queue.clear();
      return undefined;
    }
    // One being resolved stays queued; the worker resolving it comes back for it.
    for (const name of this.#queue) {
      if (this.#active.has(name)) continue;
      this.#queue.delete(name);
      return name;
    }
    return undefined;
  }

  async #ahead(name: string): Promise<AheadOutcome> {
    const o = this.#o;
    const obj = o.extensions.get(name);
    const parsed = obj === undefined ? undefined : parseClusterExtension(obj);
    if (obj === undefined || parsed === undefined || !parsed.ok) return 'skipped';
    const ce = parsed.value;
    const installed = ce.status?.install?.bundle;
    if (installed === undefined || !settled(ce) || policySetting(ce.metadata.annotations).policy !== UpdatePolicy.Automatic) return 'skipped';

    const src = ce.spec.source.catalog;
    const selection = await selectedCatalogs(o.catalogs, src.selector, src.packageName, o.signal);
    if (!selection.ok) return 'unresolved';
    const { resolved } = await resolveChecked(o, { name, src }, installed, selection.value.inputs, o.signal);
    if (!resolved.ok) return 'unresolved';
    const r = resolved.value;
    if (r.bundle.name === installed.name) return 'unchanged';
    if ((await dependentsHold(o, { name, packageName: src.packageName }, installed, r.bundle, o.signal)) !== undefined) return 'held';
    const bundle = metadataFor(r.bundle.name, r.versionRelease, { bundleReleaseSupport: o.features.bundleReleaseSupport });

    const working: ClusterExtension = structuredClone(ce);
    setCondition(working, Type.Progressing, 'True', Reason.RollingOut, rollingOutMessage(bundle, installed.version));
    const written = await o.beside(name, async () => {
      // The informer's copy may have moved on while this resolved: report only over what was read.
      if (o.extensions.get(name)?.metadata.resourceVersion !== obj.metadata.resourceVersion) return 'superseded' as const;
      try {
        await o.client.updateStatus({ ...obj, status: working.status }, { signal: o.signal });
      } catch (err) {
        if (isConflict(err) || isNotFound(err)) return 'superseded' as const;
        throw err;
      }
      return 'reported' as const;
    });
    if (written === 'reported') o.log.debug({ extension: name, bundle: bundle.name }, 'upgrade resolved ahead of the reconcile');
    return written ?? 'superseded';
  }
}

/** The last reconcile succeeded for the current spec, and the extension is not being deleted. */
function settled(ce: ClusterExtension): boolean {
  if (ce.metadata.deletionTimestamp !== undefined) return false;
  const progressing = findCondition(ce.status?.conditions, Type.Progressing);
  return progressing?.status === 'True' && progressing.reason === Reason.Succeeded && progressing.observedGeneration === ce.metadata.generation;
}
