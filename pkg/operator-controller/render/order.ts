/**
 * Deterministic order of rendered objects: Helm's install order by kind (the order Helm
 * creates a release's objects in, so dependencies such as ServiceAccounts and CRDs come
 * before the objects that use them), kinds unknown to Helm after those in alphabetical
 * order; then by namespace, then by name. The sort is stable, so exact duplicates keep
 * generation order.
 */
import type { KubeObject } from '../bundle/index.ts';
import { compareUtf8 } from '../../gocompat/gotext/index.ts';

/** Helm 3's `InstallOrder`. */
const HELM_INSTALL_ORDER: readonly string[] = [
  'PriorityClass',
  'Namespace',
  'NetworkPolicy',
  'ResourceQuota',
  'LimitRange',
  'PodSecurityPolicy',
  'PodDisruptionBudget',
  'ServiceAccount',
  'Secret',
  'SecretList',
  'ConfigMap',
  'StorageClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleList',
  'ClusterRoleBinding',
  'ClusterRoleBindingList',
  'Role',
  'RoleList',
  'RoleBinding',
  'RoleBindingList',
  'Service',
  'DaemonSet',
  'Pod',
  'ReplicationController',
  'ReplicaSet',
  'Deployment',
  'HorizontalPodAutoscaler',
  'StatefulSet',
  'Job',
  'CronJob',
  'IngressClass',
  'Ingress',
  'APIService',
];

const RANK = new Map(HELM_INSTALL_ORDER.map((kind, i) => [kind, i]));

/** Compares two objects by install order, kind, namespace, name. */
function compareObjects(a: KubeObject, b: KubeObject): number {
  const ra = RANK.get(a.kind) ?? HELM_INSTALL_ORDER.length;
  const rb = RANK.get(b.kind) ?? HELM_INSTALL_ORDER.length;
  if (ra !== rb) return ra - rb;
  return compareUtf8(a.kind, b.kind) || compareUtf8(field(a, 'namespace'), field(b, 'namespace')) || compareUtf8(field(a, 'name'), field(b, 'name'));
}

function field(obj: KubeObject, key: 'name' | 'namespace'): string {
  const v = obj.metadata?.[key];
  return typeof v === 'string' ? v : '';
}

/** A sorted copy of `objects`. */
export function sortObjects(objects: readonly KubeObject[]): KubeObject[] {
  return [...objects].sort(compareObjects);
}
