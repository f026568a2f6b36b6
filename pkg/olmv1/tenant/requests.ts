/**
 * What is installed for a tenant's namespace (issue 73, decision 0138): its Extensions, each with
 * what it asks for, whether a policy allows it, and the install's state as the tenant controller
 * mirrors it from the ClusterExtension (which the tenant may not read). `requestSummary` is pure;
 * `readRequests` lists them as the caller.
 */
import { EXTENSION } from '../../shared/api/index.ts';
import type { KubeContext, KubeObject } from '../../shared/kube/index.ts';

/** One Extension as `olmv1 extensions` shows it. */
export interface RequestSummary {
  name: string;
  /** The request's uid: what a removal is preconditioned on. */
  uid: string;
  packageName: string;
  /** The version range asked for; empty: any. */
  version: string;
  /** The installed bundle and version, when one is. */
  installed: { bundle: string; version: string } | undefined;
  /** `Allowed`: True, False or Unknown (not judged yet). */
  allowed: string;
  /** The reason of `Allowed` (the rule a refusal breaks). */
  allowedReason: string;
  /** `Installed` and `Progressing`'s status and reason, as mirrored. */
  installedStatus: string;
  progressing: string;
  /** The message that says most: a refusal's, else Progressing's when it is not Succeeded. */
  message: string;
  policy: string | undefined;
  deleting: boolean;
}

interface Cond {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** See RequestSummary. */
export function requestSummary(obj: KubeObject): RequestSummary {
  const spec = (obj['spec'] ?? {}) as { source?: { catalog?: { packageName?: string; version?: string } } };
  const status = (obj['status'] ?? {}) as { conditions?: Cond[]; install?: { bundle?: { name: string; version: string } }; policy?: string };
  const cond = (t: string) => status.conditions?.find((c) => c.type === t);
  const allowed = cond('Allowed');
  const progressing = cond('Progressing');
  const bundle = status.install?.bundle;
  const message =
    allowed?.status === 'False'
      ? (allowed.message ?? '')
      : progressing !== undefined && progressing.reason !== 'Succeeded'
        ? (progressing.message ?? '')
        : '';
  return {
    name: obj.metadata.name ?? '',
    uid: obj.metadata.uid ?? '',
    packageName: spec.source?.catalog?.packageName ?? '',
    version: spec.source?.catalog?.version ?? '',
    installed: bundle === undefined ? undefined : { bundle: bundle.name, version: bundle.version },
    allowed: allowed?.status ?? 'Unknown',
    allowedReason: allowed?.reason ?? '',
    installedStatus: cond('Installed')?.status ?? 'Unknown',
    progressing: progressing === undefined ? '' : (progressing.reason ?? progressing.status),
    message,
    policy: status.policy,
    deleting: obj.metadata.deletionTimestamp !== undefined,
  };
}

/** The Extensions of `namespace`, name order, read as `kube`'s identity (a failure throws the API's error). */
export async function readRequests(kube: Pick<KubeContext, 'client'>, namespace: string, signal?: AbortSignal): Promise<RequestSummary[]> {
  const { items } = await kube.client.listAll({ apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind }, { namespace, signal });
  return items.map(requestSummary).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
