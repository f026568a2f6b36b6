/**
 * The optional upstream side of the startup benchmark's operator-controller figure: upstream's
 * operator-controller binary, built by the person running the bench from upstream's sources
 * (`go build -tags containers_image_openpgp ./cmd/operator-controller`, its Makefile's tags;
 * nothing of it is in this repository). `OLMV1_BENCH_UPSTREAM_OPERATOR_CONTROLLER` names it;
 * without it the benchmark measures ours only. Build the version whose scenarios the suites run
 * (`UPSTREAM_FEATURES_VERSION` of test/support/upstream-features; v1.11.0 since 2026-11-28, the
 * figures before that compare with v1.5.1): bench/results/runtimes.md has the steps.
 *
 * At start upstream reads its own ServiceAccount's token and namespace from the in-cluster path
 * (/var/run/secrets/kubernetes.io/serviceaccount) and exits without them. Outside a pod they
 * are given in a private mount namespace (`unshare -m`, which needs root): a tmpfs on /run that
 * holds a TokenRequest token of ServiceAccount `upstream-system/operator-controller`, seen by
 * that process only, so no other process on the machine sees a pod's files. It talks to the API
 * server with the bench's admin kubeconfig (KUBECONFIG) and keeps its leader election Lease in
 * its own namespace, where it never contends with ours (both use upstream's Lease name).
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  type ControlPlaneInfo,
  createCertificateAuthority,
  ensureServiceAccount,
  freePorts,
  issueCertificate,
  requestServiceAccountToken,
} from '../../test/envtest/index.ts';
import { type Started, startProcess } from './startup-runs.ts';

const NAMESPACE = 'upstream-system';
const SERVICE_ACCOUNT = 'operator-controller';

// Runs in the new mount namespace: $1 the token file, $2 the namespace, the rest the command.
const IN_CLUSTER_FILES = [
  'mount -t tmpfs tmpfs /run',
  'd=/run/secrets/kubernetes.io/serviceaccount',
  'mkdir -p "$d"',
  'cp "$1" "$d/token"',
  'printf %s "$2" > "$d/namespace"',
  'shift 2',
  'exec "$@"',
].join(' && ');

/** The binary named by OLMV1_BENCH_UPSTREAM_OPERATOR_CONTROLLER, or undefined when none is. */
export function upstreamOperatorControllerBinary(): string | undefined {
  const bin = process.env.OLMV1_BENCH_UPSTREAM_OPERATOR_CONTROLLER;
  return bin === undefined || bin === '' ? undefined : bin;
}

/** Starts of upstream's operator-controller, each with fresh ports. */
export interface UpstreamOperatorController {
  start(): Promise<{ p: Started; readyUrl: string }>;
}

/** What it runs with: the bench's serving certificate for its metrics server and the catalogd CA. */
interface UpstreamOptions {
  binary: string;
  cp: ControlPlaneInfo;
  workDir: string;
  cert: { certPath: string; keyPath: string };
  caCertPath: string;
  /** Added to its environment (e.g. CONTAINERS_REGISTRIES_CONF for a plain-HTTP registry). */
  env?: Readonly<Record<string, string>>;
  /** Added to its arguments (e.g. `--feature-gates=BoxcutterRuntime=true`). */
  extraArgs?: readonly string[];
}

/**
 * Creates its namespace and ServiceAccount, writes a token for it, and checks that a private
 * mount namespace can be made here; throws with the reason when it cannot.
 */
export async function prepareUpstreamOperatorController(o: UpstreamOptions): Promise<UpstreamOperatorController> {
  try {
    await promisify(execFile)('unshare', ['-m', '--propagation', 'private', 'true']);
  } catch (err) {
    throw new Error("upstream's operator-controller needs a private mount namespace (unshare -m, as root) for its in-cluster files", {
      cause: err,
    });
  }
  await ensureServiceAccount(o.cp, NAMESPACE, SERVICE_ACCOUNT);
  const dir = join(o.workDir, 'upstream-operator-controller');
  const casDir = join(dir, 'catalogd-cas');
  await mkdir(casDir, { recursive: true });
  await copyFile(o.caCertPath, join(casDir, 'ca.crt'));
  const tokenPath = join(dir, 'token');
  await writeFile(tokenPath, await requestServiceAccountToken(o.cp, NAMESPACE, SERVICE_ACCOUNT, { expirationSeconds: 3600 }), {
    mode: 0o600,
  });
  return {
    start: async () => {
      const [healthPort = 0, metricsPort = 0] = await freePorts(2);
      const args = [
        `--health-probe-bind-address=127.0.0.1:${healthPort}`,
        `--metrics-bind-address=127.0.0.1:${metricsPort}`,
        `--tls-cert=${o.cert.certPath}`,
        `--tls-key=${o.cert.keyPath}`,
        '--leader-elect',
        `--cache-path=${join(dir, 'cache')}`,
        `--system-namespace=${NAMESPACE}`,
        `--catalogd-cas-dir=${casDir}`,
        ...(o.extraArgs ?? []),
      ];
      const p = startProcess(
        'unshare',
        ['-m', '--propagation', 'private', 'sh', '-c', IN_CLUSTER_FILES, 'sh', tokenPath, NAMESPACE, o.binary, ...args],
        { KUBECONFIG: o.cp.kubeconfigPath, ...o.env },
      );
      return { p, readyUrl: `http://127.0.0.1:${healthPort}/readyz` };
    },
  };
}

/**
 * Prepares and starts upstream's operator-controller as the benchmarks that compare with it run
 * it: a serving certificate from a fresh CA under `workDir`, `registry` marked plain HTTP in the
 * registries.conf containers/image reads from $HOME/.config/containers first; resolves once it
 * reports ready (60 s at most). `extraArgs` are added to its arguments.
 */
export async function startUpstreamOperatorController(
  binary: string,
  cp: ControlPlaneInfo,
  workDir: string,
  registry: string,
  extraArgs: readonly string[] = [],
): Promise<{ pid: number; stop: () => Promise<void> }> {
  const certDir = join(workDir, 'certs');
  await mkdir(certDir, { recursive: true });
  const ca = await createCertificateAuthority(certDir, 'ca', 'bench-ca');
  const cert = await issueCertificate(ca, certDir, { name: 'serving', commonName: 'localhost', ipAddresses: ['127.0.0.1'], usage: 'server' });
  const home = join(workDir, 'upstream-home');
  await mkdir(join(home, '.config', 'containers'), { recursive: true });
  await writeFile(join(home, '.config', 'containers', 'registries.conf'), `[[registry]]\nlocation = "${registry}"\ninsecure = true\n`);
  const upstream = await prepareUpstreamOperatorController({ binary, cp, workDir, cert, caCertPath: ca.certPath, env: { HOME: home }, extraArgs });
  const { p, readyUrl } = await upstream.start();
  const ready = (): Promise<boolean> =>
    fetch(readyUrl).then(
      (r) => r.ok,
      () => false,
    );
  for (const deadline = Date.now() + 60_000; !(await ready());) {
    if (Date.now() > deadline) throw new Error(`upstream's operator-controller not ready: ${p.stderr().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { pid: p.pid, stop: () => p.stop() };
}
