/**
 * Waits for Deployments to be Available and, when one is not, says why instead of hanging: a
 * Pod that cannot start fails the wait at once, and at the timeout every Pod not ready does,
 * with its containers' states, its events and its containers' last log lines.
 */
import { errorMessage } from '../../shared/errors/index.ts';

/** A stopwatch of a deployment's phases: each call returns the milliseconds since the previous one (or since creation). */
export function lapTimer(now: () => number = Date.now): () => number {
  let t = now();
  return () => {
    const ms = now() - t;
    t += ms;
    return ms;
  };
}

/** Runs kubectl with these arguments against the cluster; resolves with stdout. */
export type Kubectl = (args: readonly string[], input?: string) => Promise<string>;

/** Waiting reasons after which a container does not start without someone's change. */
const HOPELESS = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'CrashLoopBackOff',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
]);
/** Restarts after which a container is reported (a failing liveness probe restarts it). */
const MAX_RESTARTS = 2;

interface ContainerStatus {
  name: string;
  ready?: boolean;
  restartCount?: number;
  state?: { waiting?: { reason?: string; message?: string }; terminated?: { reason?: string; exitCode?: number } };
  lastState?: { terminated?: { reason?: string; exitCode?: number; message?: string } };
}
interface PodObject {
  metadata: { name: string };
  status?: {
    phase?: string;
    containerStatuses?: ContainerStatus[];
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
  };
}
interface DeploymentObject {
  spec?: { replicas?: number; selector?: { matchLabels?: Record<string, string> } };
  status?: { availableReplicas?: number; updatedReplicas?: number; conditions?: Array<{ type: string; status: string }> };
}

/** Why a Pod's container will not become ready by itself, or undefined. */
export function hopelessReason(pod: PodObject): string | undefined {
  for (const c of pod.status?.containerStatuses ?? []) {
    const waiting = c.state?.waiting;
    if (waiting?.reason !== undefined && HOPELESS.has(waiting.reason))
      return `container ${c.name} waiting: ${waiting.reason}${waiting.message ? ` (${waiting.message})` : ''}`;
    if ((c.restartCount ?? 0) >= MAX_RESTARTS) {
      const last = c.lastState?.terminated;
      return `container ${c.name} restarted ${c.restartCount} times${last ? ` (last: ${last.reason ?? 'terminated'}, exit code ${last.exitCode})` : ''}`;
    }
  }
  return undefined;
}

/** The Pod's events, its containers' states and their last log lines (previous run too). */
async function describePod(kubectl: Kubectl, namespace: string, pod: PodObject, tail = 20): Promise<string> {
  const lines = [`Pod ${namespace}/${pod.metadata.name} (${pod.status?.phase ?? 'no phase'}):`];
  for (const c of pod.status?.conditions ?? [])
    if (c.status !== 'True') lines.push(`  condition ${c.type}=${c.status} ${c.reason ?? ''} ${c.message ?? ''}`.trimEnd());
  const events = JSON.parse(
    await kubectl(['get', 'events', '-n', namespace, '--field-selector', `involvedObject.name=${pod.metadata.name}`, '-o', 'json']),
  ) as { items: Array<{ type?: string; reason?: string; message?: string; count?: number }> };
  lines.push('  events:');
  for (const e of events.items) lines.push(`    ${e.type ?? ''} ${e.reason ?? ''}: ${e.message ?? ''}${(e.count ?? 1) > 1 ? ` (x${e.count})` : ''}`);
  for (const c of pod.status?.containerStatuses ?? []) {
    lines.push(`  container ${c.name}: ready=${c.ready === true} restarts=${c.restartCount ?? 0} state=${JSON.stringify(c.state ?? {})}`);
    for (const previous of (c.restartCount ?? 0) > 0 ? [true, false] : [false]) {
      const args = ['logs', '-n', namespace, pod.metadata.name, '-c', c.name, `--tail=${tail}`, ...(previous ? ['--previous'] : [])];
      const log = await kubectl(args).catch((err: unknown) => `(no log: ${errorMessage(err).split('\n')[0]})`);
      lines.push(
        `  last log lines${previous ? ' of the previous run' : ''}:`,
        ...log
          .trimEnd()
          .split('\n')
          .map((l) => `    ${l}`),
      );
    }
  }
  return lines.join('\n');
}

function isAvailable(d: DeploymentObject): boolean {
  const want = d.spec?.replicas ?? 1;
  const available = d.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') === true;
  return available && (d.status?.availableReplicas ?? 0) >= want && (d.status?.updatedReplicas ?? 0) >= want;
}

/**
 * Resolves once every Deployment in `names` is Available with all its replicas updated and
 * available. Throws, with describePod's report, as soon as one of their Pods cannot start,
 * or at `timeoutMs` for every Pod of the Deployments not yet Available.
 */
export async function waitForDeployments(kubectl: Kubectl, namespace: string, names: readonly string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending: Array<{ name: string; deployment: DeploymentObject }> = [];
    for (const name of names) {
      const deployment = JSON.parse(await kubectl(['get', 'deployment', '-n', namespace, name, '-o', 'json'])) as DeploymentObject;
      if (!isAvailable(deployment)) pending.push({ name, deployment });
    }
    if (pending.length === 0) return;
    const timedOut = Date.now() > deadline;
    for (const { name, deployment } of pending) {
      const selector = Object.entries(deployment.spec?.selector?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
      const pods = (JSON.parse(await kubectl(['get', 'pods', '-n', namespace, '-l', selector.join(','), '-o', 'json'])) as { items: PodObject[] })
        .items;
      const failing = pods.map((pod) => ({ pod, why: hopelessReason(pod) })).filter((p) => timedOut || p.why !== undefined);
      if (failing.length === 0 && !timedOut) continue;
      const reports = await Promise.all(failing.map(async (p) => `${p.why ?? 'not ready'}\n${await describePod(kubectl, namespace, p.pod)}`));
      const head = timedOut
        ? `Deployment ${namespace}/${name} is not Available after ${timeoutMs / 1000} s`
        : `Deployment ${namespace}/${name} cannot become Available`;
      throw new Error([head, ...(reports.length > 0 ? reports : ['no Pod was created'])].join('\n'));
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}
