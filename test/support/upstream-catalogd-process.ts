/**
 * Upstream's catalogd binary (operator-framework/operator-controller `cmd/catalogd`, built from
 * the Go module proxy by whoever runs the comparison; nothing of it is in this repository) as a
 * child process against a control plane of the test's own.
 *
 * Upstream reads its ServiceAccount's token from the in-cluster path and exits without it; the
 * token (a TokenRequest token of `<namespace>/catalogd`, only its subject is read) is given in a
 * private mount namespace (`unshare -m`, root) whose tmpfs /run holds it, seen by that process
 * only, as bench/lib/upstream-operator-controller.ts does for upstream's operator-controller.
 * It talks to the API server with the admin kubeconfig (KUBECONFIG), without leader election.
 * `home` is its HOME: containers/image reads `~/.config/containers/{policy.json,registries.d,
 * registries.conf}` there before /etc.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
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
import { servingCertificate } from './secure-metrics.ts';

/** Runs in the new mount namespace: $1 the token file, $2 the namespace, the rest the command (an upstream binary's in-cluster files). */
export const IN_CLUSTER_FILES = [
  'mount -t tmpfs tmpfs /run',
  'd=/run/secrets/kubernetes.io/serviceaccount',
  'mkdir -p "$d"',
  'cp "$1" "$d/token"',
  'printf %s "$2" > "$d/namespace"',
  'shift 2',
  'exec "$@"',
].join(' && ');

/** Throws with the reason when a private mount namespace cannot be made here. */
export async function checkPrivateMountNamespace(): Promise<void> {
  try {
    await promisify(execFile)('unshare', ['-m', '--propagation', 'private', 'true']);
  } catch (err) {
    throw new Error("upstream's catalogd needs a private mount namespace (unshare -m, as root) for its in-cluster token", { cause: err });
  }
}

/** A running upstream catalogd. */
export interface UpstreamCatalogdProcess {
  proc: ManagedProcess;
  /** `https://127.0.0.1:PORT`: its catalog server (the test CA's certificate). */
  catalogUrl: string;
}

/**
 * Starts `binary` (upstream's catalogd) on loopback ports with a serving certificate of a fresh
 * CA (its webhook, metrics and catalog servers need one) and its state under `workDir`; resolves
 * once /readyz answers (throws with its log's tail after 60 s).
 */
export async function startUpstreamCatalogd(o: {
  binary: string;
  cp: ControlPlaneInfo;
  workDir: string;
  reaper: Reaper;
  home: string;
  namespace: string;
}): Promise<UpstreamCatalogdProcess> {
  const dir = await mkdtemp(join(o.workDir, 'upstream-catalogd-'));
  const cert = await servingCertificate(dir, 'upstream-catalogd');
  await ensureServiceAccount(o.cp, o.namespace, 'catalogd');
  const tokenPath = join(dir, 'token');
  await writeFile(tokenPath, await requestServiceAccountToken(o.cp, o.namespace, 'catalogd', { expirationSeconds: 3600 }), { mode: 0o600 });
  const cacheDir = join(dir, 'cache');
  await mkdir(cacheDir, { recursive: true });
  return withFreePorts(4, async ([health = 0, metrics = 0, webhook = 0, catalogs = 0]) => {
    const args = [
      `--health-probe-bind-address=127.0.0.1:${health}`,
      `--metrics-bind-address=127.0.0.1:${metrics}`,
      `--webhook-server-port=${webhook}`,
      `--catalogs-server-addr=127.0.0.1:${catalogs}`,
      `--external-address=127.0.0.1:${catalogs}`,
      `--tls-cert=${cert.certPath}`,
      `--tls-key=${cert.keyPath}`,
      `--cache-dir=${cacheDir}`,
      `--system-namespace=${o.namespace}`,
    ];
    const proc = await startProcess({
      name: 'upstream-catalogd',
      command: 'unshare',
      args: ['-m', '--propagation', 'private', 'sh', '-c', IN_CLUSTER_FILES, 'sh', tokenPath, o.namespace, o.binary, ...args],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: o.home, KUBECONFIG: o.cp.kubeconfigPath },
      logPath: join(dir, 'upstream-catalogd.log'),
      reaper: o.reaper,
    });
    const ready = async (): Promise<void> => {
      if (proc.exitStatus() !== undefined) return;
      if ((await fetch(`http://127.0.0.1:${health}/readyz`).catch(() => undefined))?.ok !== true) throw new Error('upstream catalogd not ready yet');
    };
    await vi.waitFor(ready, { timeout: 60_000, interval: 200 }).catch((err: unknown) => {
      throw new Error(`timed out waiting for upstream catalogd's /readyz\n${proc.logTail(30)}`, { cause: err });
    });
    if (proc.exitStatus() !== undefined) throw new Error(`upstream catalogd exited during start-up\n${proc.logTail(30)}`);
    return { proc, catalogUrl: `https://127.0.0.1:${catalogs}` };
  });
}
