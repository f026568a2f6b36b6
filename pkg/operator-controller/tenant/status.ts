/**
 * An Extension's status (decision 0138): its own `Allowed` condition (whether a policy allows
 * the request; a refusal's reason names the rule broken), then the conditions and installed
 * bundle of the ClusterExtension made for it, mirrored as that ClusterExtension reports them.
 */
import { TENANT_GENERATION_ANNOTATION, type ConditionStatus, type Extension } from '../../shared/api/index.ts';
import { setStatusCondition, truncateConditionMessage, type Condition } from '../../shared/controller/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';

/** The Extension's own condition type. */
export const ALLOWED = 'Allowed';

/** Reason of `Allowed` True. */
export const ALLOWED_REASON = 'Allowed';

/** Reason of Progressing while the request waits on something it cannot change (upstream's). */
export const BLOCKED = 'Blocked';

/** Reason of Progressing while a step will be retried (upstream's). */
export const RETRYING = 'Retrying';

type Working = Pick<Extension, 'metadata' | 'status'>;

/** Sets condition `type` on the working Extension, for its current generation. */
export function setExtensionCondition(ext: Working, type: string, status: ConditionStatus, reason: string, message: string): void {
  ext.status ??= {};
  ext.status.conditions ??= [];
  const generation = ext.metadata.generation;
  setStatusCondition(ext.status.conditions as Condition[], {
    type,
    status,
    reason,
    message: truncateConditionMessage(message),
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  });
}

/** A refused request: Allowed False naming the rule, Progressing False/Blocked with the same message. */
export function setRefused(ext: Working, rule: string, message: string): void {
  setExtensionCondition(ext, ALLOWED, 'False', rule, message);
  setExtensionCondition(ext, 'Progressing', 'False', BLOCKED, message);
  if (ext.status?.install === undefined)
    setExtensionCondition(ext, 'Installed', 'False', 'Failed', 'nothing is installed: the request is not allowed');
}

/**
 * The message of a request refused after it was installed: the refusal, what stays installed
 * and that it is not upgraded, and how to uninstall it.
 */
export function noLongerAllowedMessage(refusal: string, bundle: string, clusterExtension: string): string {
  return `no longer allowed: ${refusal}; ${bundle} stays installed (ClusterExtension ${JSON.stringify(clusterExtension)}) and is not upgraded until a policy allows the request again; deleting the request uninstalls it`;
}

/**
 * Copies the ClusterExtension's conditions (all but `Allowed`) and installed bundle onto the
 * working Extension. A condition the ClusterExtension computed for its current generation, whose
 * spec was written for the Extension's current generation, is marked observed for it; others
 * keep no observedGeneration (a waiter reads them as not yet current).
 */
export function mirrorClusterExtension(ext: Working, ce: KubeObject): void {
  const status = (ce['status'] ?? {}) as { conditions?: Condition[]; install?: { bundle?: { name: string; version: string; release?: string } } };
  const current = ce.metadata.annotations?.[TENANT_GENERATION_ANNOTATION] === String(ext.metadata.generation ?? '');
  ext.status ??= {};
  const own = (ext.status.conditions ?? []).filter((c) => c.type === ALLOWED);
  const mirrored = (status.conditions ?? [])
    .filter((c) => c.type !== ALLOWED)
    .map((c): Condition => {
      const observed = current && c.observedGeneration === ce.metadata.generation && ext.metadata.generation !== undefined;
      const { observedGeneration: _ignored, ...rest } = c;
      return observed ? { ...rest, observedGeneration: ext.metadata.generation as number } : rest;
    });
  ext.status.conditions = [...own, ...mirrored];
  const bundle = status.install?.bundle;
  if (bundle === undefined) delete ext.status.install;
  else
    ext.status.install = {
      bundle: { name: bundle.name, version: bundle.version, ...(bundle.release === undefined ? {} : { release: bundle.release }) },
    };
}
