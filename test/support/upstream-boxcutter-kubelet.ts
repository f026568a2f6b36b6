/**
 * A stand-in for the kubelet on a control plane without a node: the Pods of a namespace are
 * marked Running and Ready through their status subresource, so kube-controller-manager's
 * ReplicaSet and Deployment controllers count them available and a Deployment becomes
 * `Available` (what a revision's Deployment probe waits for). Nothing runs: only the status a
 * kubelet would report is written. Idempotent; new Pods (a rollout) need another call.
 */
import type { KubeClient, KubeObject } from '../../pkg/shared/kube/index.ts';

interface PodStatus {
  phase?: string;
  conditions?: { type: string; status: string }[];
}

const isReady = (pod: KubeObject): boolean =>
  (pod as KubeObject & { status?: PodStatus }).status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

/** Marks every Pod of `namespace` that is not Ready yet Running and Ready; returns how many it marked. */
export async function markPodsReady(client: KubeClient, namespace: string): Promise<number> {
  const pods = (await client.listAll({ apiVersion: 'v1', kind: 'Pod' }, { namespace })).items;
  let marked = 0;
  for (const pod of pods) {
    if (isReady(pod) || pod.metadata.deletionTimestamp !== undefined) continue;
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const conditions = ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map((type) => ({ type, status: 'True', lastTransitionTime: now }));
    await client.patch(
      { apiVersion: 'v1', kind: 'Pod', namespace, name: pod.metadata.name ?? '' },
      { status: { phase: 'Running', startTime: now, conditions } },
      'merge',
      { subresource: 'status' },
    );
    marked++;
  }
  return marked;
}
