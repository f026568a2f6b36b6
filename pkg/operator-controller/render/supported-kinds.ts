/**
 * Kinds a registry+v1 bundle may carry besides its CSV and CRDs (operator-registry's
 * supported-resources table at the version upstream uses, v1.73.0), and whether OLM treats
 * each as namespaced: namespaced objects are placed in the install namespace, the others
 * keep whatever namespace the manifest gives (normally none).
 */

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
