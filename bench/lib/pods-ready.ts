/**
 * A stand-in for the kubelet where the control plane has no node: every Pod that
 * kube-controller-manager's ReplicaSet controller creates is marked Running and Ready through its
 * status subresource, so Deployments become Available (the ReplicaSet and Deployment controllers
 * count the Pod as available) and a runtime that waits for availability (BoxcutterRuntime's
 * progression probes, ours and upstream's) can finish an install. One status PATCH per Pod, as
 * the bench's admin: not counted as any controller's request.
 */
import pino from 'pino';
import { Informer, type KubeClient, type KubeObject, clientListWatch } from '../../pkg/shared/kube/index.ts';

interface PodStatus {
  status?: { conditions?: { type: string; status: string }[] };
}

/** The status patch that makes a Pod Running and Ready as of `now` (an ISO time). */
export function readyPodStatus(now: string): { status: object } {
  const cond = (type: string): object => ({ type, status: 'True', lastTransitionTime: now });
  return { status: { phase: 'Running', conditions: ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map(cond) } };
}

/** True for a Pod still to be marked: not deleted and not Ready. */
export function needsReady(pod: Readonly<KubeObject & PodStatus>): boolean {
  if (pod.metadata.deletionTimestamp !== undefined) return false;
  return !(pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Marks Pods of namespaces for which `namespaces` is true Ready as they appear; resolves once listed. */
export async function markPodsReady(client: KubeClient, namespaces: (ns: string) => boolean): Promise<{ stop: () => void; marked: () => number }> {
  const stop = new AbortController();
  const informer = new Informer<KubeObject & PodStatus>({
    name: 'bench-pods-ready',
    source: clientListWatch(client, { apiVersion: 'v1', kind: 'Pod' }),
    log: pino({ level: 'silent' }),
  });
  const done = new Set<string>();
  informer.addHandler((type, pod) => {
    const ns = pod.metadata.namespace ?? '';
    const key = `${ns}/${pod.metadata.name ?? ''}/${pod.metadata.uid ?? ''}`;
    if (type === 'delete' || !namespaces(ns) || !needsReady(pod) || done.has(key)) return;
    done.add(key);
    client
      .patch({ apiVersion: 'v1', kind: 'Pod', namespace: ns, name: pod.metadata.name ?? '' }, readyPodStatus(new Date().toISOString()), 'merge', {
        subresource: 'status',
      })
      .catch(() => done.delete(key));
  });
  void informer.run(stop.signal);
  await informer.waitForSync(stop.signal);
  return { stop: () => stop.abort(), marked: () => done.size };
}
