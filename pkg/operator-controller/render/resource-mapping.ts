/**
 * What rendering knows of kinds without a cluster: their API resources (built-in kinds plus the
 * bundle's CRDs), and the kinds a bundle may carry besides its CSV and CRDs (operator-registry's
 * supported-resources table at upstream's v1.73.0) with whether OLM forces each into the install
 * namespace.
 */
import type { KubeObject } from '../bundle/index.ts';

/** An API resource: group ("" for core), plural name, and whether it is namespaced. */
interface ResourceMapping {
  group: string;
  resource: string;
  namespaced: boolean;
}

/**
 * Maps `apiVersion` + `kind` to its resource and scope from a static table (built-in kinds plus
 * the bundle's CRDs), or undefined when unknown. Offline and pure: pkg/shared/kube's ResourceMapper
 * answers the same question from the API server's discovery.
 */
export type KindScopes = (apiVersion: string, kind: string) => ResourceMapping | undefined;

/** The group part of an apiVersion (`apps/v1` -> `apps`, `v1` -> ""). */
function groupOf(apiVersion: string): string {
  const slash = apiVersion.lastIndexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}

const BUILTIN: readonly (readonly [group: string, kind: string, resource: string, namespaced: boolean])[] = [
  ['', 'ConfigMap', 'configmaps', true],
  ['', 'Secret', 'secrets', true],
  ['', 'Service', 'services', true],
  ['', 'ServiceAccount', 'serviceaccounts', true],
  ['apps', 'Deployment', 'deployments', true],
  ['rbac.authorization.k8s.io', 'Role', 'roles', true],
  ['rbac.authorization.k8s.io', 'RoleBinding', 'rolebindings', true],
  ['rbac.authorization.k8s.io', 'ClusterRole', 'clusterroles', false],
  ['rbac.authorization.k8s.io', 'ClusterRoleBinding', 'clusterrolebindings', false],
  ['apiextensions.k8s.io', 'CustomResourceDefinition', 'customresourcedefinitions', false],
  ['admissionregistration.k8s.io', 'ValidatingWebhookConfiguration', 'validatingwebhookconfigurations', false],
  ['admissionregistration.k8s.io', 'MutatingWebhookConfiguration', 'mutatingwebhookconfigurations', false],
  ['policy', 'PodDisruptionBudget', 'poddisruptionbudgets', true],
  ['scheduling.k8s.io', 'PriorityClass', 'priorityclasses', false],
  ['networking.k8s.io', 'NetworkPolicy', 'networkpolicies', true],
  ['autoscaling.k8s.io', 'VerticalPodAutoscaler', 'verticalpodautoscalers', true],
  ['monitoring.coreos.com', 'PrometheusRule', 'prometheusrules', true],
  ['monitoring.coreos.com', 'ServiceMonitor', 'servicemonitors', true],
  ['monitoring.coreos.com', 'PodMonitor', 'podmonitors', true],
  ['cert-manager.io', 'Issuer', 'issuers', true],
  ['cert-manager.io', 'Certificate', 'certificates', true],
  ['console.openshift.io', 'ConsoleYAMLSample', 'consoleyamlsamples', false],
  ['console.openshift.io', 'ConsoleQuickStart', 'consolequickstarts', false],
  ['console.openshift.io', 'ConsoleCLIDownload', 'consoleclidownloads', false],
  ['console.openshift.io', 'ConsoleLink', 'consolelinks', false],
  ['console.openshift.io', 'ConsolePlugin', 'consoleplugins', false],
];

/**
 * A mapper knowing the built-in kinds above and the kinds defined by `crds` (their
 * `spec.group`, `spec.names.plural/kind`, `spec.scope`); CRDs take precedence.
 */
export function staticKindScopes(crds: readonly KubeObject[]): KindScopes {
  const table = new Map<string, ResourceMapping>();
  for (const [group, kind, resource, namespaced] of BUILTIN) table.set(`${group}/${kind}`, { group, resource, namespaced });
  for (const crd of crds) {
    const spec = crd['spec'] as { group?: unknown; scope?: unknown; names?: { plural?: unknown; kind?: unknown } } | undefined;
    const group = spec?.group;
    const kind = spec?.names?.kind;
    const plural = spec?.names?.plural;
    if (typeof group !== 'string' || typeof kind !== 'string' || typeof plural !== 'string') continue;
    table.set(`${group}/${kind}`, { group, resource: plural, namespaced: spec?.scope !== 'Cluster' });
  }
  return (apiVersion, kind) => table.get(`${groupOf(apiVersion)}/${kind}`);
}

const SUPPORTED_KINDS: ReadonlyMap<string, boolean> = new Map([
  ['ClusterServiceVersion', true],
  ['CustomResourceDefinition', false],
  ['ClusterRole', false],
  ['ClusterRoleBinding', false],
  ['Service', true],
  ['ServiceAccount', true],
  ['Role', true],
  ['RoleBinding', true],
  ['PrometheusRule', true],
  ['ServiceMonitor', true],
  ['Secret', true],
  ['ConfigMap', true],
  ['PodDisruptionBudget', true],
  ['PriorityClass', false],
  // operator-registry lists VerticalPodAutoscaler as cluster-scoped, although the API is
  // namespaced; upstream keeps that (the namespace is then defaulted at apply time).
  ['VerticalPodAutoscaler', false],
  ['ConsoleYAMLSample', false],
  ['ConsoleQuickStart', false],
  ['ConsoleCLIDownload', false],
  ['ConsoleLink', false],
  ['ConsolePlugin', false],
  ['NetworkPolicy', true],
  ['PodMonitor', true],
]);

/** Whether a bundle may contain objects of `kind`. */
export function isSupportedKind(kind: string): boolean {
  return SUPPORTED_KINDS.has(kind);
}

/** Whether OLM forces objects of `kind` into the install namespace. */
export function isNamespacedKind(kind: string): boolean {
  return SUPPORTED_KINDS.get(kind) === true;
}
