/**
 * The components' containers on the node as the kubelet reports them (restarts, the last
 * termination) and their peak memory from the container's memory cgroup (cgroups v1,
 * `memory.max_usage_in_bytes`: resident memory plus page cache, as the limit counts it), for
 * the fault tests on a node (test/e2e/on-node-faults.test.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SYSTEM_NAMESPACE } from '../../pkg/olmv1/in-cluster/index.ts';
import { containerCgroup, type kube } from './on-node.ts';

export interface ContainerState {
  pod: string;
  containerID: string;
  restartCount: number;
  lastState?: { terminated?: { reason?: string; exitCode?: number } };
}

/** The first container of each Pod labelled `app.kubernetes.io/name=<app>` not being deleted. */
export async function containers(k: ReturnType<typeof kube>, app: string): Promise<ContainerState[]> {
  const pods = await k.list(['pods', '-n', SYSTEM_NAMESPACE, '-l', `app.kubernetes.io/name=${app}`]);
  return pods
    .filter((p) => p.metadata.deletionTimestamp === undefined)
    .map((p) => ({
      pod: p.metadata.name,
      ...((p.status?.['containerStatuses'] as ContainerState[] | undefined)?.[0] as Omit<ContainerState, 'pod'>),
    }));
}

/** The container's peak memory in bytes since it started or since resetPeak. */
export function readPeak(containerID: string): number {
  return Number(readFileSync(join(containerCgroup(containerID), 'memory.max_usage_in_bytes'), 'utf8'));
}

/** Starts the container's peak afresh from its current usage. */
export function resetPeak(containerID: string): void {
  writeFileSync(join(containerCgroup(containerID), 'memory.max_usage_in_bytes'), '0');
}
