/**
 * Runs catalogd against the envtest control plane, with its own cache directory and ports:
 * inside the test process (the real composition in cmd/catalogd/run.ts), or as the real binary
 * (cmd/catalogd/main.ts) in a process of its own.
 */
import { vi } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { type CatalogdOptions, parseCatalogdOptions } from '../../cmd/catalogd/options.ts';
import { runCatalogd } from '../../cmd/catalogd/run.ts';
import { servingOptions } from '../../cmd/shared/serving.ts';
import { DEFAULT_DECODE_LIMITS } from '../../pkg/shared/fbc/index.ts';
import { CATALOG_IMAGE_LIMITS } from '../../pkg/shared/image/index.ts';
import { type ControlPlaneInfo, type ManagedProcess, type Reaper, ServerExitedError, startProcess, withFreePorts } from '../envtest/index.ts';
import { waitForComponent } from './component-start.ts';

/** A running in-process catalogd. */
export interface TestCatalogd {
  options: CatalogdOptions;
  /** `http://127.0.0.1:<port>`: where the catalog API answers. */
  url: string;
  /** `http://127.0.0.1:<port>`: /healthz, /readyz, /metrics. */
  healthUrl: string;
  /** Stops catalogd (graceful) and resolves with its outcome. */
  stop(): Promise<string>;
  /** Stops it and removes its cache directory. */
  destroy(): Promise<void>;
}

/** Starts catalogd; `overrides` replace defaults (e.g. pullSecret, cacheDir, pollMinuteMs). */
export async function startCatalogd(cp: ControlPlaneInfo, overrides: Partial<CatalogdOptions> = {}): Promise<TestCatalogd> {
  const cacheDir = overrides.cacheDir ?? (await mkdtemp(join(tmpdir(), 'catalogd-test-')));
  try {
    return await withFreePorts(2, (ports) => startOnPorts(cp, cacheDir, overrides, ports));
  } catch (err) {
    if (overrides.cacheDir === undefined) await rm(cacheDir, { recursive: true, force: true });
    throw err;
  }
}

async function startOnPorts(
  cp: ControlPlaneInfo,
  cacheDir: string,
  overrides: Partial<CatalogdOptions>,
  [serverPort = 0, healthPort = 0]: number[],
): Promise<TestCatalogd> {
  const defaults = parseCatalogdOptions([`--kubeconfig=${cp.kubeconfigPath}`], {});
  if (defaults === 'help') throw new Error('unreachable');
  const options: CatalogdOptions = {
    kubeconfig: cp.kubeconfigPath,
    inCluster: undefined,
    systemNamespace: 'olmv1-system',
    cacheDir,
    catalogServer: { host: '127.0.0.1', port: serverPort },
    externalAddress: `127.0.0.1:${serverPort}`,
    // Metrics on the health port, unauthenticated (--insecure-metrics): readMetric and friends read them there.
    ...servingOptions({ 'insecure-metrics': 'true' }, ':7443'),
    healthProbe: { host: '127.0.0.1', port: healthPort },
    leaderElect: true,
    leaderElectionId: 'catalogd-operator-lock',
    identity: `catalogd-test-${process.pid}-${serverPort}`,
    pullSecret: undefined,
    insecureRegistries: ['127.0.0.1'],
    pullCaFile: undefined,
    gcIntervalMs: 12 * 3_600_000,
    decodeLimits: { ...DEFAULT_DECODE_LIMITS },
    maxConcurrentReconciles: defaults.maxConcurrentReconciles,
    ingestTimeoutMs: defaults.ingestTimeoutMs,
    imageLimits: { ...CATALOG_IMAGE_LIMITS },
    // The name-label webhook only when a test asks for it (with `tls`).
    webhook: undefined,
    // Reconcile errors are expected in these tests; set OLMV1_TEST_LOG=debug to see them.
    logLevel: process.env.OLMV1_TEST_LOG ?? 'silent',
    logFormat: 'json',
    ...overrides,
  };
  const stopper = new AbortController();
  const log = pino(
    { level: options.logLevel, base: { component: 'catalogd', identity: options.identity }, serializers: { err: pino.stdSerializers.errWithCause } },
    pino.destination(2),
  );
  const running = runCatalogd(options, log, stopper.signal);
  const url = `http://127.0.0.1:${options.catalogServer.port}`;
  const healthUrl = `http://127.0.0.1:${options.healthProbe.port}`;
  // Ready once the health server answers (the catalog server listens before it starts).
  await waitForComponent('catalogd', `${healthUrl}/healthz`, running, 30_000);
  let stopped: Promise<string> | undefined;
  const stop = (): Promise<string> => {
    stopped ??= (stopper.abort(), running);
    return stopped;
  };
  return {
    options,
    url,
    healthUrl,
    stop,
    destroy: async () => {
      await stop().catch(() => undefined);
      if (overrides.cacheDir === undefined) await rm(cacheDir, { recursive: true, force: true });
    },
  };
}

const MAIN = fileURLToPath(new URL('../../cmd/catalogd/main.ts', import.meta.url));

/** A catalogd binary running in its own process group. */
export interface CatalogdProcess {
  name: string;
  proc: ManagedProcess;
  /** Port of the catalog API on 127.0.0.1. */
  port: number;
  /** Port of /healthz, /readyz and /metrics on 127.0.0.1. */
  health: number;
  cacheDir: string;
}

/**
 * Starts the catalogd binary with `--kubeconfig`, `--cache-dir` (a new directory under
 * `workDir` unless given), loopback addresses, `--insecure-metrics`, `--insecure-registry=127.0.0.1`,
 * `--log-level=info`, `POD_NAME=<name>` and `flags`; its log goes to `<workDir>/<name>.log`.
 * Resolves once /healthz answers (throws with the log's tail after 30 s).
 */
export async function startCatalogdProcess(
  cp: ControlPlaneInfo,
  o: { name: string; workDir: string; reaper: Reaper; flags?: readonly string[]; cacheDir?: string | undefined },
): Promise<CatalogdProcess> {
  const cacheDir = o.cacheDir ?? (await mkdtemp(join(o.workDir, `${o.name}-`)));
  return withFreePorts(2, (ports) => startProcessOnPorts(cp, o, cacheDir, ports));
}

async function startProcessOnPorts(
  cp: ControlPlaneInfo,
  o: { name: string; workDir: string; reaper: Reaper; flags?: readonly string[] },
  cacheDir: string,
  [port = 0, health = 0]: number[],
): Promise<CatalogdProcess> {
  const proc = await startProcess({
    name: o.name,
    command: process.execPath,
    args: [
      MAIN,
      `--kubeconfig=${cp.kubeconfigPath}`,
      `--cache-dir=${cacheDir}`,
      `--catalogs-server-addr=127.0.0.1:${port}`,
      `--health-probe-bind-address=127.0.0.1:${health}`,
      '--insecure-metrics',
      '--insecure-registry=127.0.0.1',
      '--log-level=info',
      ...(o.flags ?? []),
    ],
    env: { ...process.env, POD_NAME: o.name },
    logPath: join(o.workDir, `${o.name}.log`),
    reaper: o.reaper,
  });
  const healthy = async (): Promise<void> => {
    if (proc.exitStatus() !== undefined) return;
    if ((await fetch(`http://127.0.0.1:${health}/healthz`).catch(() => undefined))?.ok !== true)
      throw new Error(`${o.name} does not answer /healthz yet`);
  };
  await vi.waitFor(healthy, { timeout: 30_000, interval: 200 }).catch((err: unknown) => {
    throw new Error(`timed out waiting for ${o.name} to answer /healthz\n${proc.logTail(20)}`, { cause: err });
  });
  // With its log: one that says a port was taken is started again on others (withFreePorts).
  if (proc.exitStatus() !== undefined) throw new ServerExitedError(`${o.name} exited during start-up`, proc.logTail(20));
  return { name: o.name, proc, port, health, cacheDir };
}
