/**
 * The API versions Kubernetes stopped serving, by release: the "Removed APIs by release"
 * section of the Kubernetes Deprecated API Migration Guide
 * (https://kubernetes.io/docs/reference/using-api/deprecation-guide/), v1.16 through v1.32, the
 * latest release the guide lists removals for when this list was last read (2026-11-27: none
 * announced for 1.33 and later). A new removal is one more row here (decision 0118); the test
 * beside this file pins the lookup, not the rows.
 */
import type { ClusterMinor } from './version.ts';

/** One kind's API version that a Kubernetes minor no longer serves. */
interface RemovedApi {
  /** `group/version` (or `version` for the core group) as written in a manifest. */
  apiVersion: string;
  kind: string;
  /** The first minor that no longer serves it, `1.Y`. */
  removedIn: string;
  /** What to use instead: an `apiVersion`, or a sentence when nothing replaces it. */
  replacement: string;
}

type Row = readonly [removedIn: string, apiVersions: readonly string[], kinds: readonly string[], replacement: string];

const ROWS: readonly Row[] = [
  ['1.16', ['extensions/v1beta1'], ['NetworkPolicy'], 'networking.k8s.io/v1'],
  ['1.16', ['extensions/v1beta1'], ['PodSecurityPolicy'], 'policy/v1beta1'],
  ['1.16', ['extensions/v1beta1', 'apps/v1beta2'], ['DaemonSet'], 'apps/v1'],
  ['1.16', ['extensions/v1beta1', 'apps/v1beta1', 'apps/v1beta2'], ['Deployment', 'ReplicaSet'], 'apps/v1'],
  ['1.16', ['apps/v1beta1', 'apps/v1beta2'], ['StatefulSet'], 'apps/v1'],
  [
    '1.22',
    ['admissionregistration.k8s.io/v1beta1'],
    ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'],
    'admissionregistration.k8s.io/v1',
  ],
  ['1.22', ['apiextensions.k8s.io/v1beta1'], ['CustomResourceDefinition'], 'apiextensions.k8s.io/v1'],
  ['1.22', ['apiregistration.k8s.io/v1beta1'], ['APIService'], 'apiregistration.k8s.io/v1'],
  ['1.22', ['authentication.k8s.io/v1beta1'], ['TokenReview'], 'authentication.k8s.io/v1'],
  [
    '1.22',
    ['authorization.k8s.io/v1beta1'],
    ['SubjectAccessReview', 'LocalSubjectAccessReview', 'SelfSubjectAccessReview'],
    'authorization.k8s.io/v1',
  ],
  ['1.22', ['certificates.k8s.io/v1beta1'], ['CertificateSigningRequest'], 'certificates.k8s.io/v1'],
  ['1.22', ['coordination.k8s.io/v1beta1'], ['Lease'], 'coordination.k8s.io/v1'],
  ['1.22', ['extensions/v1beta1', 'networking.k8s.io/v1beta1'], ['Ingress'], 'networking.k8s.io/v1'],
  ['1.22', ['networking.k8s.io/v1beta1'], ['IngressClass'], 'networking.k8s.io/v1'],
  ['1.22', ['rbac.authorization.k8s.io/v1beta1'], ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'], 'rbac.authorization.k8s.io/v1'],
  ['1.22', ['scheduling.k8s.io/v1beta1'], ['PriorityClass'], 'scheduling.k8s.io/v1'],
  ['1.22', ['storage.k8s.io/v1beta1'], ['CSIDriver', 'CSINode', 'StorageClass', 'VolumeAttachment'], 'storage.k8s.io/v1'],
  ['1.25', ['batch/v1beta1'], ['CronJob'], 'batch/v1'],
  ['1.25', ['discovery.k8s.io/v1beta1'], ['EndpointSlice'], 'discovery.k8s.io/v1'],
  ['1.25', ['events.k8s.io/v1beta1'], ['Event'], 'events.k8s.io/v1'],
  ['1.25', ['autoscaling/v2beta1'], ['HorizontalPodAutoscaler'], 'autoscaling/v2'],
  ['1.25', ['policy/v1beta1'], ['PodDisruptionBudget'], 'policy/v1'],
  ['1.25', ['policy/v1beta1'], ['PodSecurityPolicy'], 'none: use Pod Security Admission'],
  ['1.25', ['node.k8s.io/v1beta1'], ['RuntimeClass'], 'node.k8s.io/v1'],
  ['1.26', ['flowcontrol.apiserver.k8s.io/v1beta1'], ['FlowSchema', 'PriorityLevelConfiguration'], 'flowcontrol.apiserver.k8s.io/v1'],
  ['1.26', ['autoscaling/v2beta2'], ['HorizontalPodAutoscaler'], 'autoscaling/v2'],
  ['1.27', ['storage.k8s.io/v1beta1'], ['CSIStorageCapacity'], 'storage.k8s.io/v1'],
  ['1.29', ['flowcontrol.apiserver.k8s.io/v1beta2'], ['FlowSchema', 'PriorityLevelConfiguration'], 'flowcontrol.apiserver.k8s.io/v1'],
  ['1.32', ['flowcontrol.apiserver.k8s.io/v1beta3'], ['FlowSchema', 'PriorityLevelConfiguration'], 'flowcontrol.apiserver.k8s.io/v1'],
];

/** Every removal, one entry per apiVersion and kind, in release order. */
export const REMOVED_APIS: readonly RemovedApi[] = ROWS.flatMap(([removedIn, apiVersions, kinds, replacement]) =>
  apiVersions.flatMap((apiVersion) => kinds.map((kind) => ({ apiVersion, kind, removedIn, replacement }))),
);

const BY_KEY = new Map(REMOVED_APIS.map((r) => [`${r.kind}\u0000${r.apiVersion}`, r]));

function minorOf(removedIn: string): bigint {
  return BigInt(removedIn.split('.')[1] ?? '0');
}

/** One object of a release, as its record's manifest identities give it. */
export interface ObjectIdentity {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string };
}

/** An installed release's object whose apiVersion `target` no longer serves. */
interface RemovedApiUse {
  extension: string;
  kind: string;
  /** Absent for cluster-scoped objects. */
  namespace?: string;
  name: string;
  apiVersion: string;
  removedIn: string;
  replacement: string;
}

/** The objects of `extension`'s release that use an API version `target` no longer serves, in manifest order. */
export function removedApiUses(extension: string, objects: readonly ObjectIdentity[], target: ClusterMinor): RemovedApiUse[] {
  const uses: RemovedApiUse[] = [];
  for (const o of objects) {
    const r = removedApiAt(o.apiVersion, o.kind, target);
    if (r === undefined) continue;
    const { namespace } = o.metadata;
    uses.push({
      extension,
      kind: o.kind,
      ...(namespace === undefined || namespace === '' ? {} : { namespace }),
      name: o.metadata.name ?? '',
      apiVersion: o.apiVersion,
      removedIn: r.removedIn,
      replacement: r.replacement,
    });
  }
  return uses;
}

/** `Kind ns/name (apiVersion, removed in 1.Y; use replacement)`: how olmv1 status names one. */
export function formatRemovedApiUse(u: RemovedApiUse): string {
  const where = u.namespace === undefined ? u.name : `${u.namespace}/${u.name}`;
  return `${u.kind} ${where} uses ${u.apiVersion}, removed in Kubernetes ${u.removedIn}; use ${u.replacement}`;
}

/**
 * The removal that makes `apiVersion` of `kind` unserved at Kubernetes `target` (a 1.Y minor),
 * or undefined when `target` still serves it (or the list knows no removal of it).
 */
export function removedApiAt(apiVersion: string, kind: string, target: ClusterMinor): RemovedApi | undefined {
  const r = BY_KEY.get(`${kind}\u0000${apiVersion}`);
  if (r === undefined || target.major < 1n) return undefined;
  return target.major > 1n || minorOf(r.removedIn) <= target.minor ? r : undefined;
}
