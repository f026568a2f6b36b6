/**
 * The OpenShift objects the upgrade gate reads and writes: reading the cluster version, and
 * setting one status condition, leaving the others alone; no-ops where the API is not served.
 * Whether those APIs exist comes from watches of their three CRDs (one informer each, by name,
 * so only those need list/watch): the gate notices them coming and going without polling
 * discovery, which stays the authority on how a kind is addressed.
 */
import { setStatusCondition, type Condition } from '../../shared/controller/index.ts';
import type { GateCondition } from '../gating/index.ts';
import { isNoKindMatch, isNotFound, retryOnConflict, type Informer, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';

/** `config.openshift.io/v1` ClusterVersion `version`: `status.desired.version` is the current version. */
export const CLUSTER_VERSION = { apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', name: 'version' } as const;
/** `config.openshift.io/v1` ClusterOperator `olm`: carries the union `Upgradeable` condition. */
export const OLM_CLUSTER_OPERATOR = { apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator', name: 'olm' } as const;
/** `operator.openshift.io/v1` OLM `cluster`: carries `InstalledOLMOperatorsUpgradeable`. */
export const OLM_OPERATOR = { apiVersion: 'operator.openshift.io/v1', kind: 'OLM', name: 'cluster' } as const;

/** True when the server serves `kind` (discovery; a miss is re-checked at most once a second). */
export async function served(
  client: Pick<KubeClient, 'resourceFor'>,
  kind: { apiVersion: string; kind: string },
  signal?: AbortSignal,
): Promise<boolean> {
  try {
    await client.resourceFor(kind, signal);
    return true;
  } catch (err) {
    if (isNoKindMatch(err)) return false;
    throw err;
  }
}

/** `status.desired.version` of a ClusterVersion object, when it has one. */
export function desiredVersion(obj: Readonly<KubeObject> | undefined): string | undefined {
  const v = (obj?.status as { desired?: { version?: unknown } } | undefined)?.desired?.version;
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** The status conditions of an object (copied, so callers may edit them). */
function conditionsOf(obj: Readonly<KubeObject>): Condition[] {
  const list = (obj.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(list) ? (structuredClone(list) as Condition[]) : [];
}

/** What `setCondition` did. */
type SetOutcome = 'absent' | 'unchanged' | 'updated';

/**
 * Sets `condition` on the status of `ref` (cluster-scoped) with a GET and a status PUT at the
 * read resourceVersion, retried on conflict; `lastTransitionTime` moves only when the status
 * changes. Returns 'absent' when the kind is not served or the object does not exist.
 */
export async function setCondition(
  client: Pick<KubeClient, 'get' | 'updateStatus'>,
  ref: { apiVersion: string; kind: string; name: string },
  condition: GateCondition,
  options: { fieldManager: string; signal?: AbortSignal; now?: () => Date },
): Promise<{ outcome: SetOutcome; conditions: Condition[] }> {
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  return retryOnConflict(async () => {
    let obj: KubeObject;
    try {
      obj = await client.get(ref, signal);
    } catch (err) {
      if (isNoKindMatch(err) || isNotFound(err)) return { outcome: 'absent', conditions: [] };
      throw err;
    }
    const conditions = conditionsOf(obj);
    if (!setStatusCondition(conditions, condition, options.now)) return { outcome: 'unchanged', conditions };
    const status = { ...((obj.status as Record<string, unknown> | undefined) ?? {}), conditions };
    await client.updateStatus({ ...obj, status }, { fieldManager: options.fieldManager, ...signal });
    return { outcome: 'updated', conditions };
  }, signal);
}

/** `apiextensions.k8s.io/v1` CustomResourceDefinition. */
export const CRD_TYPE = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;

/** The kinds the gate reads or writes, by the name of the CRD that defines each. */
export const OPENSHIFT_CRDS: ReadonlyArray<{ crd: string; kind: { apiVersion: string; kind: string } }> = [
  { crd: 'clusterversions.config.openshift.io', kind: CLUSTER_VERSION },
  { crd: 'clusteroperators.config.openshift.io', kind: OLM_CLUSTER_OPERATOR },
  { crd: 'olms.operator.openshift.io', kind: OLM_OPERATOR },
];

/**
 * What the CRD watch says about a kind: `absent` (no CRD, or it does not serve the version),
 * `established` (its CRD is Established and serves the version: discovery lists it, or will in a
 * moment), `unknown` (not watched, or the watch has not listed yet: only discovery can tell).
 */
export type ApiPresence = 'absent' | 'established' | 'unknown';

/** Answers ApiPresence for the gate's kinds. */
export interface ApiWatch {
  presence(kind: { apiVersion: string; kind: string }): ApiPresence;
}

/** The CRD informers' caches, by CRD name. */
type CrdCaches = ReadonlyMap<string, Pick<Informer<KubeObject>, 'hasSynced' | 'get'>>;

/** An ApiWatch over the informers of OPENSHIFT_CRDS (keyed by CRD name). */
export function crdApiWatch(caches: CrdCaches): ApiWatch {
  return {
    presence(kind) {
      const entry = OPENSHIFT_CRDS.find((e) => e.kind.apiVersion === kind.apiVersion && e.kind.kind === kind.kind);
      const cache = entry === undefined ? undefined : caches.get(entry.crd);
      if (entry === undefined || cache === undefined || !cache.hasSynced) return 'unknown';
      return servesVersion(cache.get(entry.crd), kind.apiVersion.split('/')[1] ?? '') ? 'established' : 'absent';
    },
  };
}

interface CrdSummary {
  spec?: { versions?: Array<{ name?: string; served?: boolean }> };
  status?: { conditions?: Array<{ type?: string; status?: string }> };
}

/** True when `crd` is Established and serves `version`. */
export function servesVersion(crd: Readonly<KubeObject> | undefined, version: string): boolean {
  if (crd === undefined) return false;
  const { spec, status } = crd as Readonly<KubeObject> & CrdSummary;
  const established = (status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
  return established && (spec?.versions ?? []).some((v) => v.name === version && v.served === true);
}

/** Informer transform of the CRD informers: only what servesVersion reads (a CRD's schemas are most of its size). */
export function summarizeCrd(obj: KubeObject): KubeObject {
  const { spec, status } = obj as KubeObject & CrdSummary;
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: obj.metadata,
    spec: { versions: (spec?.versions ?? []).map((v) => ({ name: v.name, served: v.served })) },
    status: { conditions: (status?.conditions ?? []).map((c) => ({ type: c.type, status: c.status })) },
  };
}

/**
 * True for CRD informer events that may change what the gate can use: every add, delete and
 * update, but not the informer's periodic re-delivery of an unchanged object.
 */
export function crdEventMatters(obj: Readonly<KubeObject>, old: Readonly<KubeObject> | undefined): boolean {
  return old === undefined || obj !== old;
}
