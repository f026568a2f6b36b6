/**
 * Upstream's operator-controller binary (operator-framework/operator-controller
 * `cmd/operator-controller`, built from the Go module proxy by whoever runs the comparison;
 * nothing of it is in this repository) as a child process against a control plane of the test's
 * own, with `--feature-gates=BoxcutterRuntime=true`: it writes ClusterObjectSet revisions.
 *
 * As bench/lib/upstream-operator-controller.ts: upstream reads its ServiceAccount's token and
 * namespace from the in-cluster path at start and exits without them, so they are given in a
 * private mount namespace (`unshare -m`, root) whose tmpfs /run holds a TokenRequest token of
 * `<namespace>/operator-controller` (only its subject is read: the pull-secret cache watches that
 * ServiceAccount), seen by that process only. It talks to the API server with the admin kubeconfig
 * (KUBECONFIG): upstream applies every object as itself, whatever `spec.serviceAccount` says.
 * No leader election (so nothing of it is left to hold a Lease once it stopped), no metrics server
 * (upstream serves metrics only with a certificate). `home` is its HOME: containers/image reads
 * `~/.config/containers/registries.conf` there first, where the plain-HTTP registry is marked
 * insecure.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { vi } from 'vitest';
import {
  type ControlPlaneInfo,
  type ManagedProcess,
  type Reaper,
  ensureServiceAccount,
  requestServiceAccountToken,
  startProcess,
  withFreePorts,
} from '../envtest/index.ts';
import { IN_CLUSTER_FILES } from './upstream-catalogd-process.ts';

/** Writes `home`/.config/containers/registries.conf marking `registries` (host:port) plain HTTP. */
export async function insecureRegistriesHome(home: string, registries: readonly string[]): Promise<void> {
  await mkdir(join(home, '.config', 'containers'), { recursive: true });
  await writeFile(
    join(home, '.config', 'containers', 'registries.conf'),
    registries.map((r) => `[[registry]]\nlocation = "${r}"\ninsecure = true\n`).join('\n'),
  );
}

/**
 * Starts `binary` (upstream's operator-controller) with the BoxcutterRuntime gate, its state under
 * `workDir`; resolves once /readyz answers (throws with its log's tail after 60 s).
 */
export async function startUpstreamBoxcutterOperatorController(o: {
  binary: string;
  cp: ControlPlaneInfo;
  workDir: string;
  reaper: Reaper;
  home: string;
  namespace: string;
}): Promise<ManagedProcess> {
  const dir = await mkdtemp(join(o.workDir, 'upstream-operator-controller-'));
  await ensureServiceAccount(o.cp, o.namespace, 'operator-controller');
  const tokenPath = join(dir, 'token');
  await writeFile(tokenPath, await requestServiceAccountToken(o.cp, o.namespace, 'operator-controller', { expirationSeconds: 3600 }), {
    mode: 0o600,
  });
  const cacheDir = join(dir, 'cache');
  await mkdir(cacheDir, { recursive: true });
  return withFreePorts(1, async ([health = 0]) => {
    const args = [
      `--health-probe-bind-address=127.0.0.1:${health}`,
      `--cache-path=${cacheDir}`,
      `--system-namespace=${o.namespace}`,
      '--feature-gates=BoxcutterRuntime=true',
    ];
    const proc = await startProcess({
      name: 'upstream-operator-controller',
      command: 'unshare',
      args: ['-m', '--propagation', 'private', 'sh', '-c', IN_CLUSTER_FILES, 'sh', tokenPath, o.namespace, o.binary, ...args],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: o.home, KUBECONFIG: o.cp.kubeconfigPath, TMPDIR: dir },
      logPath: join(dir, 'upstream-operator-controller.log'),
      reaper: o.reaper,
    });
    const ready = async (): Promise<void> => {
      if (proc.exitStatus() !== undefined) return;
      if ((await fetch(`http://127.0.0.1:${health}/readyz`).catch(() => undefined))?.ok !== true)
        throw new Error('upstream operator-controller not ready yet');
    };
    await vi.waitFor(ready, { timeout: 60_000, interval: 200 }).catch((err: unknown) => {
      throw new Error(`timed out waiting for upstream operator-controller's /readyz\n${proc.logTail(30)}`, { cause: err });
    });
    if (proc.exitStatus() !== undefined) throw new Error(`upstream operator-controller exited during start-up\n${proc.logTail(30)}`);
    return proc;
  });
}
