/**
 * The steps of one upgrade gate evaluation (cluster-version -> deployed -> verdict ->
 * conditions), listed by cmd/operator-controller/upgradegate.ts over a shared GateState. Without
 * a cluster version nothing is judged. Each factory's closure keeps what outlives an evaluation
 * (the ClusterVersion cache, deployed releases, warnings logged only when they change).
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import {
  clusterOperatorUpgradeable,
  evaluateGate,
  memoizedBundleCheck,
  olmUpgradeableCondition,
  parseClusterVersion,
  type ClusterMinor,
  type DeployedExtension,
  type GateCondition,
  type GateVerdict,
  type UpgradeHold,
  UPGRADEABLE_ANNOTATION,
  UPGRADEABLE_MESSAGE_ANNOTATION,
} from '../gating/index.ts';
import type { ReconcileContext, Step } from '../../shared/controller/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import { gaugeOn, type Informer, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import { LogOnChange } from '../../shared/logchange/index.ts';
import type { RevisionReader } from '../revisions/index.ts';
import { HOLDS_CONDITION_TYPE, holdsCondition } from './holds-condition.ts';
import { CLUSTER_VERSION, OLM_CLUSTER_OPERATOR, OLM_OPERATOR, desiredVersion, served, setCondition, type ApiWatch } from './openshift.ts';

/** Field manager of the condition writes. */
export const GATING_FIELD_MANAGER = 'olmv1-upgrade-gate';

/** What the steps of one evaluation share. */
export interface GateState {
  /** The reconcile's logger (controller, key, reconcileID). */
  log: Logger;
  signal: AbortSignal;
  /** The cluster version the verdict is about (step "cluster-version"); undefined: none known. */
  current?: ClusterMinor | undefined;
  /** The deployed release of every extension that has one (step "deployed"). */
  deployed: DeployedExtension[];
  /** Verdict errors besides the bundles' own: the extensions whose history could not be read. */
  extra: string[];
  /** Extensions whose operator reports Upgradeable=False (step "holds", holds.ts; decision 0118). */
  holds?: UpgradeHold[];
  /** The verdict (step "verdict"); undefined when there is no cluster version to judge against. */
  verdict?: GateVerdict | undefined;
  /**
   * Set by a step that found a kind's CRD established but the kind not yet in discovery (which
   * follows the CRD by a moment): the evaluation is repeated after the retry delay.
   */
  pending?: boolean;
  /**
   * Set by a step that cannot rely on events to be run again: an OpenShift API whose presence is
   * unknown (its CRD not watched) or a condition written to an object of another controller,
   * which may overwrite it. The evaluation is repeated after the resync period.
   */
  resync?: boolean;
}

/** The state an evaluation starts from. */
export function gateState(ctx: ReconcileContext): GateState {
  return { log: ctx.log, signal: ctx.signal, deployed: [], extra: [] };
}

/** Reads of the ClusterVersion informer's cache. */
export type ClusterVersionCache = Pick<Informer<KubeObject>, 'hasSynced' | 'get'>;

/** Starts the ClusterVersion informer (its events queue an evaluation) when the API is seen served; `stop`: it went away. */
interface ClusterVersionInformers {
  start(stop: AbortSignal): ClusterVersionCache;
}

/** Ports of clusterVersionStep. */
export interface ClusterVersionStepPorts {
  /** Discovery of ClusterVersion, and its direct read until the informer synced. */
  client: Pick<KubeClient, 'resourceFor' | 'get'>;
  /** `--cluster-version`: used when ClusterVersion is not served, has no desired version or one that does not parse. */
  clusterVersion: ClusterMinor | undefined;
  informers: ClusterVersionInformers;
  /** The CRD watch; undefined: not watched, discovery alone tells (asked at every evaluation). */
  apis?: ApiWatch;
}

/**
 * Step "cluster-version": sets `current` from ClusterVersion's desired version when served and
 * parsable, else from `--cluster-version` (undefined, with a warning, when neither). Runs the
 * ClusterVersion informer while the API is served (reads go to its cache once synced); asks
 * discovery only while the CRD watch does not say absent.
 */
export function clusterVersionStep(ports: ClusterVersionStepPorts): Step<GateState> {
  let cache: ClusterVersionCache | undefined;
  let stopInformer: AbortController | undefined;
  const warned = new LogOnChange();

  async function clusterVersionObject(state: GateState): Promise<Readonly<KubeObject> | undefined> {
    const presence = ports.apis?.presence(CLUSTER_VERSION) ?? 'unknown';
    if (presence === 'absent') {
      if (cache !== undefined) state.log.info('ClusterVersion is no longer served');
      stopInformer?.abort(new Error('ClusterVersion is no longer served'));
      cache = undefined;
      stopInformer = undefined;
      return undefined;
    }
    if (presence === 'unknown') state.resync = true;
    if (cache === undefined) {
      if (!(await served(ports.client, CLUSTER_VERSION, state.signal))) {
        if (presence === 'established') state.pending = true;
        return undefined;
      }
      stopInformer = new AbortController();
      cache = ports.informers.start(stopInformer.signal);
      state.log.info('ClusterVersion is served: the cluster version comes from it');
    }
    if (!cache.hasSynced) return ports.client.get(CLUSTER_VERSION, { signal: state.signal }).catch(() => undefined);
    return cache.get(CLUSTER_VERSION.name);
  }

  async function currentVersion(state: GateState): Promise<ClusterMinor | undefined> {
    const fromCluster = desiredVersion(await clusterVersionObject(state));
    if (fromCluster !== undefined) {
      const parsed = parseClusterVersion(fromCluster);
      if (parsed.ok) {
        warned.clear('unparsable-version');
        return parsed.value;
      }
      if (warned.changed('unparsable-version', fromCluster))
        state.log.warn({ version: fromCluster, error: parsed.error }, 'ClusterVersion desired version does not parse');
    }
    return ports.clusterVersion;
  }

  return {
    name: 'cluster-version',
    async run(state) {
      const current = await currentVersion(state);
      if (current === undefined) {
        if (warned.changed('cluster-version', 'none'))
          state.log.warn('no cluster version: ClusterVersion is not served or has no desired version, and --cluster-version is not set');
        return undefined;
      }
      if (warned.clear('cluster-version')) state.log.info({ version: `${current.major}.${current.minor}` }, 'cluster version found');
      state.current = current;
      return undefined;
    },
  };
}

/** Ports of deployedStep. */
export interface DeployedStepPorts {
  /** Read without the revisions' objects: the gate needs a bundle name and properties (decision 0098). */
  releases: Pick<RevisionReader, 'installed'>;
  /** The ClusterExtension informer's cache. */
  extensions: Pick<Informer<KubeObject>, 'list'>;
}

/**
 * Step "deployed": collects the deployed release of every ClusterExtension, reading records only
 * of extensions whose gate inputs changed (gateInputs). A history that cannot be read adds
 * `error returning the last deployed release for <name>` to `extra` and is read again next time.
 * An evaluation runs per change of any extension's install, so its cost per unchanged extension
 * is a lookup: the informer hands out a new object for every change, and an object already seen
 * is passed over without computing its inputs or awaiting (at 10,000 extensions, 10-20 ms an
 * evaluation otherwise, run several times a second while extensions install).
 */
export function deployedStep(ports: DeployedStepPorts): Step<GateState> {
  /**
   * Per extension: the object last seen, its gate inputs when its records were last read, what
   * was deployed then, and the evaluation that last saw it (entries not seen are of deleted ones).
   */
  const deployed = new Map<string, { seen: Readonly<KubeObject>; inputs: string; entry: DeployedExtension | undefined; round: number }>();
  const warned = new LogOnChange();
  let round = 0;

  async function deployedOf(obj: Readonly<KubeObject>, signal: AbortSignal): Promise<DeployedExtension | undefined> {
    const name = obj.metadata.name ?? '';
    const inputs = JSON.stringify(gateInputs(obj));
    const cached = deployed.get(name);
    if (cached?.inputs === inputs) {
      cached.seen = obj;
      cached.round = round;
      return cached.entry;
    }
    if (!mayHaveDeployed(obj)) {
      deployed.set(name, { seen: obj, inputs, entry: undefined, round });
      return undefined;
    }
    const release = await ports.releases.installed(name, signal);
    const entry = release === undefined ? undefined : { extension: name, bundle: release.bundle.name, properties: release.properties };
    deployed.set(name, { seen: obj, inputs, entry, round });
    return entry;
  }

  return {
    name: 'deployed',
    async run(state) {
      if (state.current === undefined) return undefined;
      round++;
      let seen = 0;
      const failing = new Set<string>();
      for (const obj of ports.extensions.list()) {
        const name = obj.metadata.name ?? '';
        const cached = deployed.get(name);
        if (cached?.seen === obj) {
          cached.round = round;
          seen++;
          if (cached.entry !== undefined) state.deployed.push(cached.entry);
          continue;
        }
        try {
          const entry = await deployedOf(obj, state.signal);
          seen++;
          if (entry !== undefined) state.deployed.push(entry);
          warned.clear(name);
        } catch (err) {
          failing.add(name);
          if (warned.changed(name, errorMessage(err))) state.log.warn({ err, extension: name }, 'reading the release history failed');
          state.extra.push(`error returning the last deployed release for ${name}`);
        }
      }
      // Deleted extensions (and histories that failed to read, read again next time) were not seen.
      if (deployed.size > seen) for (const [name, c] of deployed) if (c.round !== round) deployed.delete(name);
      // Only extensions failing now keep their last warning; the others' were cleared or are gone.
      warned.retain((name) => failing.has(name));
      return undefined;
    },
  };
}

/** Ports of verdictStep: the gate's gauges (gateMetrics). */
export interface VerdictStepPorts {
  metrics: GateMetrics;
}

/**
 * Step "verdict": judges the deployed releases against `current` and sets the gauges. Without
 * a cluster version it resets the gauges and ends the evaluation (no conditions are written).
 */
export function verdictStep(ports: VerdictStepPorts): Step<GateState> {
  const check = memoizedBundleCheck();
  return {
    name: 'verdict',
    run(state) {
      if (state.current === undefined) {
        ports.metrics(undefined);
        return {};
      }
      state.verdict = evaluateGate(state.current, state.deployed, state.extra, check);
      ports.metrics(state.verdict);
      return undefined;
    },
  };
}

/** Ports of conditionsStep. */
export interface ConditionsStepPorts {
  /** Reads and status writes of the OpenShift objects (operator-controller's identity). */
  client: Pick<KubeClient, 'get' | 'updateStatus'>;
  /** Clock of condition transition times (default: the system clock). */
  now?: () => Date;
  /** The CRD watch; undefined: not watched, each write finds out through discovery. */
  apis?: ApiWatch;
}

/**
 * Step "conditions": where the OpenShift APIs exist, sets the OLM `cluster` object's
 * `InstalledOLMOperatorsUpgradeable` condition from the verdict and the `olm` ClusterOperator's
 * `Upgradeable` from the union of the OLM object's *Upgradeable conditions. Writes only what
 * changed (setCondition) and logs when it wrote something.
 */
export function conditionsStep(ports: ConditionsStepPorts): Step<GateState> {
  return {
    name: 'conditions',
    async run(state) {
      if (state.verdict === undefined) return undefined;
      const condition = olmUpgradeableCondition(state.verdict);
      const opts = { fieldManager: GATING_FIELD_MANAGER, signal: state.signal, ...(ports.now === undefined ? {} : { now: ports.now }) };
      let olm = await setConditionWhereServed(ports, OLM_OPERATOR, condition, opts, state);
      // Operators' Upgradeable=False (holds.ts): written while any holds, and once more to clear it.
      const holds = state.holds ?? [];
      if (olm.outcome !== 'absent' && (holds.length > 0 || olm.conditions.some((c) => c.type === HOLDS_CONDITION_TYPE))) {
        const written = await setConditionWhereServed(ports, OLM_OPERATOR, holdsCondition(holds), opts, state);
        if (written.outcome !== 'absent') olm = { outcome: written.outcome === 'updated' ? 'updated' : olm.outcome, conditions: written.conditions };
      }
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
      const co = await setConditionWhereServed(ports, OLM_CLUSTER_OPERATOR, clusterOperatorUpgradeable(inputs), opts, state);
      if (olm.outcome === 'updated' || co.outcome === 'updated') {
        state.log.info(
          { olm: olm.outcome, clusterOperator: co.outcome, status: condition.status, reason: condition.reason },
          'cluster upgrade gate conditions written',
        );
      }
      return undefined;
    },
  };
}

/** setCondition, unless the CRD watch says the kind is absent; otherwise asks for a resync (nothing watches the object). */
async function setConditionWhereServed(
  ports: ConditionsStepPorts,
  ref: { apiVersion: string; kind: string; name: string },
  condition: GateCondition,
  opts: Parameters<typeof setCondition>[3],
  state: GateState,
): ReturnType<typeof setCondition> {
  const presence = ports.apis?.presence(ref) ?? 'unknown';
  if (presence === 'absent') return { outcome: 'absent', conditions: [] };
  state.resync = true;
  return setCondition(ports.client, ref, condition, opts);
}

/**
 * What of a ClusterExtension the verdict depends on: which one it is, what is installed and
 * whether that install succeeded. Every deploy changes one of these; the reconciler's other
 * status writes (Progressing, deprecation) do not, and would re-read every release for nothing.
 */
export function gateInputs(obj: Readonly<KubeObject>): unknown {
  const status = (obj.status ?? {}) as { install?: unknown; conditions?: Array<{ type?: string; status?: string; lastTransitionTime?: string }> };
  const installed = status.conditions?.find((c) => c.type === 'Installed');
  const a = obj.metadata.annotations;
  return [
    obj.metadata.uid,
    status.install,
    installed?.status,
    installed?.lastTransitionTime,
    // An operator's Upgradeable=False (holds.ts).
    a?.[UPGRADEABLE_ANNOTATION],
    a?.[UPGRADEABLE_MESSAGE_ANNOTATION],
  ];
}

/**
 * Whether the gate must read `obj`'s records: not when its reconciler has not reported yet (no
 * Installed condition) or has reported that nothing is deployed (Installed False, no
 * `status.install`); the report that follows a deploy changes its gateInputs, and the gate reads
 * then. Installed Unknown (its history could not be read) is read, so that the gate names the
 * failure as upstream's does. At 10,000 extensions each read is a label-selected LIST of
 * ~80 ms of kube-apiserver's time, and an install passed through three gate inputs.
 */
function mayHaveDeployed(obj: Readonly<KubeObject>): boolean {
  const status = (obj.status ?? {}) as { install?: unknown; conditions?: Array<{ type?: string; status?: string }> };
  if (status.install !== undefined) return true;
  const installed = status.conditions?.find((c) => c.type === 'Installed');
  return installed !== undefined && installed.status !== 'False';
}

/** Sets the gauges from a verdict; `undefined` (no cluster version known) resets them. */
export type GateMetrics = (verdict: GateVerdict | undefined) => void;

/**
 * `olmv1_cluster_upgradeable` (1 allowed, 0 blocked or undecidable), `olmv1_cluster_upgrade_blockers`
 * (extensions whose declared maximum blocks the next minor) and
 * `olmv1_cluster_upgrade_metadata_errors` (extensions whose metadata could not be judged), each
 * labelled with the `next` version the verdict is about.
 */
export function gateMetrics(registry: Registry): GateMetrics {
  const upgradeable = gaugeOn(
    registry,
    'olmv1_cluster_upgradeable',
    'Whether installed extensions allow the next cluster minor upgrade (1) or not (0).',
    ['next'],
  );
  const blockers = gaugeOn(
    registry,
    'olmv1_cluster_upgrade_blockers',
    'Installed extensions whose olm.maxOpenShiftVersion blocks the next cluster minor upgrade.',
    ['next'],
  );
  const errors = gaugeOn(
    registry,
    'olmv1_cluster_upgrade_metadata_errors',
    'Installed extensions whose olm.maxOpenShiftVersion could not be evaluated.',
    ['next'],
  );
  return (verdict) => {
    upgradeable.reset();
    blockers.reset();
    errors.reset();
    if (verdict === undefined) return;
    const labels = { next: verdict.next };
    upgradeable.set(labels, verdict.upgradeable ? 1 : 0);
    blockers.set(labels, verdict.blockers.length);
    errors.set(labels, verdict.errors.length);
  };
}
