/**
 * `.olmv1/stack.json`: where the running `olmv1 up` put everything, written once ready and removed
 * when it stops; one whose pid is dead is left over from a killed `up` and ignored.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isErrno } from '../../pkg/shared/errors/index.ts';

/** Contents of `.olmv1/stack.json`. Paths are absolute. */
export interface StackFile {
  /** Pid of `olmv1 up`; send it SIGINT or SIGTERM to stop the stack. */
  pid: number;
  /** `local`: up runs the control plane and registry; `cluster`: an existing cluster (--kubeconfig). */
  mode: 'local' | 'cluster';
  apiServer: string;
  kubeconfig: string;
  /** Only in local mode. */
  kubectl?: string;
  /**
   * The local node (`up --node`), Ready when the file was written: its name, its bridge's host
   * address (where the API server listens), Pod range, bridge and how long it took to be Ready.
   */
  node?: { name: string; address: string; podCidr: string; bridge: string; readyAfterMs: number };
  /** Registry (host:port) holding the example content, if any. */
  registry?: string;
  /** The example ClusterCatalog: name, image and `status.urls.base`. */
  catalog?: { name: string; ref: string; url: string };
  /** catalogd as a process here (absent with `inCluster`). */
  catalogd?: { url: string; healthUrl: string; pid: number; log: string };
  /** operator-controller as a process here (absent with `inCluster`). */
  operatorController?: { healthUrl: string; pid: number; log: string };
  /** Ports catalogd and operator-controller listen on (127.0.0.1; none with `inCluster`). */
  ports: number[];
  /** `up --node --in-cluster`: both components as Pods of config/'s Deployments, from this image. */
  inCluster?: { namespace: string; deployments: string[]; imageRef: string; revision: string; consoleUrl?: string };
  /** The `--feature-gates` settings each component was started with (none: its defaults). */
  featureGates?: { catalogd: string[]; operatorController: string[] };
}

/** Writes `<stateDir>/stack.json`. */
export async function writeStackFile(stateDir: string, stack: StackFile): Promise<void> {
  await writeFile(join(stateDir, 'stack.json'), JSON.stringify(stack, null, 2) + '\n');
}

/** The stack file of a live `up` in `stateDir`, or undefined (none, unreadable, or its pid is dead). */
export async function readRunningStack(stateDir: string): Promise<StackFile | undefined> {
  let stack: StackFile;
  try {
    stack = JSON.parse(await readFile(join(stateDir, 'stack.json'), 'utf8')) as StackFile;
  } catch {
    return undefined;
  }
  if (typeof stack.pid !== 'number') return undefined;
  try {
    process.kill(stack.pid, 0);
    return stack;
  } catch (err) {
    return isErrno(err, 'EPERM') ? stack : undefined;
  }
}
