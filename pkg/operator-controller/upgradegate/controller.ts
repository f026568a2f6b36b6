/**
 * The gating controller (applier-and-bundles.md §6, deliberate difference 6): judges every
 * ClusterExtension's latest deployed release against the current cluster version and publishes
 * the verdict as metrics, and, where the OpenShift APIs exist, as the OLM `cluster` object's
 * `InstalledOLMOperatorsUpgradeable` condition and the `olm` ClusterOperator's `Upgradeable`.
 *
 * Level-triggered and coalescing: ClusterExtension adds, deletes and updates that change what
 * is installed (a deploy always ends with a status update, so a new release is seen that way;
 * see affectsGate), any ClusterVersion event and a periodic
 * resync mark the verdict stale; one evaluation runs at a time and covers every mark made
 * before it started. A failed evaluation is retried with backoff.
 *
 * An evaluation reads the release records only of extensions whose install changed since they
 * were last read (gateInputs); the others' deployed bundle and properties are kept from then.
 * Reading every extension's history on every evaluation cost one LIST (and the decoding of up
 * to ten revisions) per extension, per status burst and per minute: with 100 extensions, about
 * 1.7 requests/s at rest and hundreds per evaluation while a catalog update upgrades them all.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import {
  clusterOperatorUpgradeable,
  evaluateGate,
  olmUpgradeableCondition,
  parseClusterVersion,
  type ClusterMinor,
  type DeployedExtension,
  type GateCondition,
  type GateVerdict,
} from '../gating/index.ts';
import { jsonEqual } from '../../shared/controller/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import {
  Backoff,
  Informer,
  clientListWatch,
  sleepUnlessAborted,
  type InformerEventType,
  type KubeClient,
  type KubeObject,
} from '../../shared/kube/index.ts';
import { LogOnChange } from '../../shared/logchange/index.ts';
import { deployedRelease, type ReleaseStore } from '../release/index.ts';
import { gateMetrics, type GateMetrics } from './metrics.ts';
import { CLUSTER_VERSION, OLM_CLUSTER_OPERATOR, OLM_OPERATOR, desiredVersion, served, setCondition } from './openshift.ts';

/** Field manager of the condition writes. */
export const GATING_FIELD_MANAGER = 'olmv1-upgrade-gate';

/** Dependencies and settings of a GatingController. */
export interface GatingControllerOptions {
  client: KubeClient;
  releases: ReleaseStore;
  /** The ClusterExtension informer (shared with the extension controller; run by the caller). */
  extensions: Pick<Informer<KubeObject>, 'addHandler' | 'waitForSync' | 'list'>;
  /** `--cluster-version`: used when ClusterVersion is not served or has no desired version. */
  clusterVersion: ClusterMinor | undefined;
  log: Logger;
  registry: Registry;
  /** Re-evaluation without events (default 60 s); catches APIs installed later. */
  resyncMs?: number;
  /** Clock of condition transition times. */
  now?: () => Date;
}

/** See the module comment. `run` until the signal aborts; `lastVerdict` for tests and status. */
export class GatingController {
  readonly #o: GatingControllerOptions;
  readonly #metrics: GateMetrics;
  #stale = true;
  #wake: (() => void) | undefined;
  #clusterVersions: Informer<KubeObject> | undefined;
  #signal: AbortSignal | undefined;
  /** Per extension: its gate inputs when its records were last read, and what was deployed then. */
  readonly #deployed = new Map<string, { inputs: string; entry: DeployedExtension | undefined }>();
  /**
   * Warnings of situations every resync finds again (no cluster version, an unparsable one, an
   * unreadable release history): logged when they start and when they change, not every minute.
   */
  readonly #warned = new LogOnChange();
  /** The verdict of the last successful evaluation (undefined: none yet, or no cluster version). */
  lastVerdict: GateVerdict | undefined;

  constructor(options: GatingControllerOptions) {
    this.#o = options;
    this.#metrics = gateMetrics(options.registry);
  }

  /** Marks the verdict stale; the running loop re-evaluates. */
  trigger(): void {
    this.#stale = true;
    this.#wake?.();
  }

  /** Evaluates on every trigger until `signal` aborts; never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    this.#signal = signal;
    const log = this.#o.log;
    const unsubscribe = this.#o.extensions.addHandler((type, obj, old) => {
      if (affectsGate(type, obj, old)) this.trigger();
    });
    const resync = setInterval(() => this.trigger(), this.#o.resyncMs ?? 60_000);
    const backoff = new Backoff({ initialMs: 500, maxMs: 30_000 });
    const onAbort = (): void => this.#wake?.();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await this.#o.extensions.waitForSync(signal).catch(() => undefined);
      while (!signal.aborted) {
        if (!this.#stale) {
          await new Promise<void>((resolve) => {
            this.#wake = resolve;
          });
          this.#wake = undefined;
          continue;
        }
        // Coalesce a burst of events (an install writes status several times).
        await sleepUnlessAborted(50, signal);
        this.#stale = false;
        try {
          await this.evaluate(signal);
          backoff.reset();
          this.#warned.clear('evaluate');
        } catch (err) {
          if (signal.aborted) break;
          if (this.#warned.changed('evaluate', errorMessage(err))) log.warn({ err }, 'evaluating the cluster upgrade gate failed');
          this.#stale = true;
          await sleepUnlessAborted(backoff.next(), signal);
        }
      }
    } finally {
      clearInterval(resync);
      signal.removeEventListener('abort', onAbort);
      unsubscribe();
    }
  }

  /** One evaluation: verdict, metrics, and the OpenShift conditions where they exist. */
  async evaluate(signal?: AbortSignal): Promise<GateVerdict | undefined> {
    const current = await this.#currentVersion(signal);
    if (current === undefined) {
      this.lastVerdict = undefined;
      this.#metrics(undefined);
      if (this.#warned.changed('cluster-version', 'none'))
        this.#o.log.warn('no cluster version: ClusterVersion is not served or has no desired version, and --cluster-version is not set');
      return undefined;
    }
    if (this.#warned.clear('cluster-version')) this.#o.log.info({ version: `${current.major}.${current.minor}` }, 'cluster version found');
    const deployed: DeployedExtension[] = [];
    const extra: string[] = [];
    const live = new Set<string>();
    for (const obj of this.#o.extensions.list()) {
      const name = obj.metadata.name ?? '';
      live.add(name);
      try {
        const entry = await this.#deployedOf(name, JSON.stringify(gateInputs(obj)), signal);
        if (entry !== undefined) deployed.push(entry);
        this.#warned.clear(`history/${name}`);
      } catch (err) {
        if (this.#warned.changed(`history/${name}`, errorMessage(err)))
          this.#o.log.warn({ err, extension: name }, 'reading the release history failed');
        extra.push(`error returning the last deployed release for ${name}`);
      }
    }
    for (const name of [...this.#deployed.keys()]) if (!live.has(name)) this.#deployed.delete(name);
    this.#warned.retain((key) => !key.startsWith('history/') || live.has(key.slice('history/'.length)));
    const verdict = evaluateGate(current, deployed, extra);
    this.lastVerdict = verdict;
    this.#metrics(verdict);
    await this.#writeConditions(olmUpgradeableCondition(verdict), signal);
    return verdict;
  }

  /** The deployed release of `name` as last read while its gate inputs were `inputs`; read again when they changed. */
  async #deployedOf(name: string, inputs: string, signal?: AbortSignal): Promise<DeployedExtension | undefined> {
    const cached = this.#deployed.get(name);
    if (cached?.inputs === inputs) return cached.entry;
    const release = deployedRelease(await this.#o.releases.history(name, signal));
    const entry = release === undefined ? undefined : { extension: name, bundle: release.bundle.name, properties: release.properties };
    this.#deployed.set(name, { inputs, entry });
    return entry;
  }

  async #currentVersion(signal?: AbortSignal): Promise<ClusterMinor | undefined> {
    const fromCluster = desiredVersion(await this.#clusterVersionObject(signal));
    if (fromCluster !== undefined) {
      const parsed = parseClusterVersion(fromCluster);
      if (parsed.ok) {
        this.#warned.clear('unparsable-version');
        return parsed.value;
      }
      if (this.#warned.changed('unparsable-version', fromCluster))
        this.#o.log.warn({ version: fromCluster, error: parsed.error }, 'ClusterVersion desired version does not parse');
    }
    return this.#o.clusterVersion;
  }

  // Starts a ClusterVersion informer the first time the API is seen served, so version changes
  // re-trigger the gate; reads go to its cache once synced.
  async #clusterVersionObject(signal?: AbortSignal): Promise<Readonly<KubeObject> | undefined> {
    if (this.#clusterVersions === undefined) {
      if (!(await served(this.#o.client, CLUSTER_VERSION, signal))) return undefined;
      const informer = new Informer({
        name: 'clusterversions',
        source: clientListWatch(this.#o.client, CLUSTER_VERSION),
        log: this.#o.log,
        registry: this.#o.registry,
      });
      informer.addHandler(() => this.trigger());
      this.#clusterVersions = informer;
      if (this.#signal !== undefined) void informer.run(this.#signal);
      this.#o.log.info('ClusterVersion is served: the cluster version comes from it');
    }
    if (!this.#clusterVersions.hasSynced) return this.#o.client.get(CLUSTER_VERSION, signal === undefined ? {} : { signal }).catch(() => undefined);
    return this.#clusterVersions.get(CLUSTER_VERSION.name);
  }

  async #writeConditions(condition: GateCondition, signal?: AbortSignal): Promise<void> {
    const opts = {
      fieldManager: GATING_FIELD_MANAGER,
      ...(signal === undefined ? {} : { signal }),
      ...(this.#o.now === undefined ? {} : { now: this.#o.now }),
    };
    const olm = await setCondition(this.#o.client, OLM_OPERATOR, condition, opts);
    // The union covers every *Upgradeable condition of the OLM operator, ours included.
    const inputs: GateCondition[] =
      olm.outcome === 'absent'
        ? [condition]
        : olm.conditions.map((c) => ({
            type: c.type,
            status: c.status === 'True' ? 'True' : 'False',
            reason: c.reason ?? '',
            message: c.message ?? '',
          }));
    const co = await setCondition(this.#o.client, OLM_CLUSTER_OPERATOR, clusterOperatorUpgradeable(inputs), opts);
    if (olm.outcome === 'updated' || co.outcome === 'updated') {
      this.#o.log.info(
        { olm: olm.outcome, clusterOperator: co.outcome, status: condition.status, reason: condition.reason },
        'cluster upgrade gate conditions written',
      );
    }
  }
}

// What of a ClusterExtension the verdict depends on: which one it is, what is installed and
// whether that install succeeded. Every deploy changes one of these; the reconciler's other
// status writes (Progressing, deprecation) do not, and would re-read every release for nothing.
function gateInputs(obj: Readonly<KubeObject>): unknown {
  const status = (obj.status ?? {}) as { install?: unknown; conditions?: Array<{ type?: string; status?: string; lastTransitionTime?: string }> };
  const installed = status.conditions?.find((c) => c.type === 'Installed');
  return [obj.metadata.uid, status.install, installed?.status, installed?.lastTransitionTime];
}

/** True for ClusterExtension events that may change the verdict (adds, deletes, install changes). */
export function affectsGate(type: InformerEventType, obj: Readonly<KubeObject>, old: Readonly<KubeObject> | undefined): boolean {
  return type !== 'update' || old === undefined || !jsonEqual(gateInputs(obj), gateInputs(old));
}
