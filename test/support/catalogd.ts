/**
 * Runs catalogd (the real composition in cmd/catalogd/run.ts) inside the test process against
 * the envtest control plane, with its own cache directory and ports.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { CatalogdOptions } from '../../cmd/catalogd/options.ts';
import { runCatalogd } from '../../cmd/catalogd/run.ts';
import { DEFAULT_DECODE_LIMITS } from '../../pkg/fbc/index.ts';
import { type ControlPlaneInfo, freePorts } from '../envtest/index.ts';

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
  const [serverPort = 0, healthPort = 0] = await freePorts(2);
  const cacheDir = overrides.cacheDir ?? (await mkdtemp(join(tmpdir(), 'catalogd-test-')));
  const options: CatalogdOptions = {
    kubeconfig: cp.kubeconfigPath,
    inCluster: undefined,
    systemNamespace: 'olmv1-system',
    cacheDir,
    catalogServer: { host: '127.0.0.1', port: serverPort },
    externalAddress: `127.0.0.1:${serverPort}`,
    tls: undefined,
    healthProbe: { host: '127.0.0.1', port: healthPort },
    leaderElect: true,
    leaderElectionId: 'catalogd-operator-lock',
    identity: `catalogd-test-${process.pid}-${serverPort}`,
    pullSecret: undefined,
    insecureRegistries: ['127.0.0.1'],
    pullCaFile: undefined,
    gcIntervalMs: 12 * 3_600_000,
    decodeLimits: { ...DEFAULT_DECODE_LIMITS },
    // Reconcile errors are expected in these tests; set OLMV1_TEST_LOG=debug to see them.
    logLevel: process.env.OLMV1_TEST_LOG ?? 'silent',
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
  const deadline = Date.now() + 30_000;
  for (;;) {
    const up = await fetch(`${healthUrl}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    const failed = await Promise.race([
      running.then(
        () => true,
        () => true,
      ),
      new Promise<false>((r) => setTimeout(() => r(false), 100)),
    ]);
    if (failed) throw new Error('catalogd exited during start-up', { cause: await running.catch((e: unknown) => e) });
    if (Date.now() > deadline) throw new Error('catalogd did not start within 30 s');
  }
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
