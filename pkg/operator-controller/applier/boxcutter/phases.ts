/**
 * The phases of a ClusterObjectSet revision (BoxcutterRuntime), as upstream's applier assigns
 * them (internal/operator-controller/applier/phase.go): each object goes to the phase of its
 * GroupKind, any kind not listed to `deploy`; phases are ordered as PHASE_ORDER and only the
 * non-empty ones are kept; objects within a phase are sorted by group, version, kind,
 * namespace and name, so that the same objects from a Helm record and from a bundle give the
 * same phases (what the migration from Helm records relies on). Pure.
 *
 * Limits: the API allows at most 20 phases and 50 objects per phase. Upstream neither splits
 * nor checks them before writing: a revision over a limit is refused by the API server with
 * its validation message. So neither does this module (13 phases exist, so only the object
 * limit can be reached, by a bundle with more than 50 objects of one phase).
 */
import { gvkOf, type KubeObject } from '../../../shared/kube/index.ts';

/** Upstream's well-known phases, in the order they are applied. */
export const PHASE_ORDER = [
  'namespaces',
  'policies',
  'identity',
  'configuration',
  'storage',
  'crds',
  'roles',
  'bindings',
  'infrastructure',
  'deploy',
  'scaling',
  'publish',
  'admission',
] as const;

/** One of PHASE_ORDER. */
type PhaseName = (typeof PHASE_ORDER)[number];

/** Most phases a ClusterObjectSet may have (the CRD's maxItems). */
export const MAX_PHASES = 20;
/** Most objects one phase may have (the CRD's maxItems). */
export const MAX_OBJECTS_PER_PHASE = 50;

/** The GroupKinds of each phase (`group/Kind`, '' for the core group). */
const PHASE_KINDS: Record<PhaseName, readonly string[]> = {
  namespaces: ['/Namespace'],
  policies: ['networking.k8s.io/NetworkPolicy', 'policy/PodDisruptionBudget', 'scheduling.k8s.io/PriorityClass'],
  identity: ['/ServiceAccount'],
  configuration: ['/Secret', '/ConfigMap'],
  storage: ['/PersistentVolume', '/PersistentVolumeClaim', 'storage.k8s.io/StorageClass'],
  crds: ['apiextensions.k8s.io/CustomResourceDefinition'],
  roles: ['rbac.authorization.k8s.io/ClusterRole', 'rbac.authorization.k8s.io/Role'],
  bindings: ['rbac.authorization.k8s.io/ClusterRoleBinding', 'rbac.authorization.k8s.io/RoleBinding'],
  infrastructure: ['/Service', 'cert-manager.io/Issuer', 'cert-manager.io/Certificate'],
  deploy: ['apps/Deployment'],
  scaling: ['autoscaling.k8s.io/VerticalPodAutoscaler'],
  publish: [
    'monitoring.coreos.com/PrometheusRule',
    'monitoring.coreos.com/ServiceMonitor',
    'monitoring.coreos.com/PodMonitor',
    'networking.k8s.io/Ingress',
    'route.openshift.io/Route',
    'console.openshift.io/ConsoleYAMLSample',
    'console.openshift.io/ConsoleQuickStart',
    'console.openshift.io/ConsoleCLIDownload',
    'console.openshift.io/ConsoleLink',
    'console.openshift.io/ConsolePlugin',
  ],
  admission: ['admissionregistration.k8s.io/ValidatingWebhookConfiguration', 'admissionregistration.k8s.io/MutatingWebhookConfiguration'],
};

const PHASE_OF_KIND = new Map<string, PhaseName>(PHASE_ORDER.flatMap((phase) => PHASE_KINDS[phase].map((gk) => [gk, phase] as const)));

/** The phase of a GroupKind: upstream's table, `deploy` for any other (a custom resource, a StatefulSet). */
export function phaseOf(gk: { group: string; kind: string }): PhaseName {
  return PHASE_OF_KIND.get(`${gk.group}/${gk.kind}`) ?? 'deploy';
}

/** One phase of objects, named as upstream names it. */
interface SortedPhase<T> {
  name: PhaseName;
  objects: T[];
}

/** Go's `cmp.Compare` of strings (byte order; equal to UTF-16 order but for astral characters). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Orders objects within a phase: group, version, kind, namespace, name. */
function compareObjects(a: KubeObject, b: KubeObject): number {
  const x = gvkOf(a);
  const y = gvkOf(b);
  return (
    compare(x.group, y.group) ||
    compare(x.version, y.version) ||
    compare(x.kind, y.kind) ||
    compare(a.metadata.namespace ?? '', b.metadata.namespace ?? '') ||
    compare(a.metadata.name ?? '', b.metadata.name ?? '')
  );
}

/**
 * `objects` grouped into their phases (see the module comment): non-empty phases in
 * PHASE_ORDER, each sorted. `objectOf` says where an entry's object is (the entry itself by
 * default), so callers may sort wrappers. The input is not modified.
 */
export function sortIntoPhases(objects: readonly KubeObject[]): SortedPhase<KubeObject>[];
export function sortIntoPhases<T>(entries: readonly T[], objectOf: (entry: T) => KubeObject): SortedPhase<T>[];
export function sortIntoPhases<T>(entries: readonly T[], objectOf?: (entry: T) => KubeObject): SortedPhase<T>[] {
  const get = objectOf ?? ((e: T) => e as unknown as KubeObject);
  const byPhase = new Map<PhaseName, T[]>();
  for (const entry of entries) {
    const phase = phaseOf(gvkOf(get(entry)));
    const list = byPhase.get(phase);
    if (list === undefined) byPhase.set(phase, [entry]);
    else list.push(entry);
  }
  const out: SortedPhase<T>[] = [];
  for (const name of PHASE_ORDER) {
    const list = byPhase.get(name);
    if (list === undefined) continue;
    // Array.prototype.sort is stable: equal identities keep their order, as slices.SortFunc need not.
    out.push({ name, objects: list.sort((a, b) => compareObjects(get(a), get(b))) });
  }
  return out;
}
