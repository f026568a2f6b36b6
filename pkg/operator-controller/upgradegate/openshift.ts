/**
 * The OpenShift objects the upgrade gate reads and writes: reading the cluster version, and
 * setting one status condition, leaving the others alone; no-ops where the API is not served.
 */
import { setStatusCondition, type Condition } from '../../shared/controller/index.ts';
import type { GateCondition } from '../gating/index.ts';
import { isConflict, isNoKindMatch, isNotFound, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';

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
  for (let attempt = 0; ; attempt++) {
    let obj: KubeObject;
    try {
      obj = await client.get(ref, options.signal === undefined ? {} : { signal: options.signal });
    } catch (err) {
      if (isNoKindMatch(err) || isNotFound(err)) return { outcome: 'absent', conditions: [] };
      throw err;
    }
    const conditions = conditionsOf(obj);
    if (!setStatusCondition(conditions, condition, options.now)) return { outcome: 'unchanged', conditions };
    const status = { ...((obj.status as Record<string, unknown> | undefined) ?? {}), conditions };
    try {
      await client.updateStatus(
        { ...obj, status },
        { fieldManager: options.fieldManager, ...(options.signal === undefined ? {} : { signal: options.signal }) },
      );
      return { outcome: 'updated', conditions };
    } catch (err) {
      if (!isConflict(err) || attempt >= 4) throw err;
    }
  }
}
