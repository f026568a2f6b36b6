/**
 * Runs operator-controller (the real composition in cmd/operator-controller/run.ts) inside the
 * test process against the envtest control plane, with its own cache directory and port.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import {
  DEFAULT_PULL_CONNECT_TIMEOUT_MS,
  DEFAULT_PULL_READ_TIMEOUT_MS,
  FEATURE_GATE_DEFAULTS,
  type OperatorControllerOptions,
} from '../../cmd/operator-controller/options.ts';
import { runOperatorController } from '../../cmd/operator-controller/run.ts';
import { servingOptions } from '../../cmd/shared/serving.ts';
import { BUNDLE_IMAGE_LIMITS } from '../../pkg/shared/image/index.ts';
import { type ControlPlaneInfo, withFreePorts } from '../envtest/index.ts';
import { waitForComponent } from './component-start.ts';

/** A running in-process operator-controller. */
export interface TestOperatorController {
  options: OperatorControllerOptions;
  /** `http://127.0.0.1:<port>`: /healthz, /readyz, /metrics. */
  healthUrl: string;
  /** Stops it (graceful) and removes its cache directory. */
  destroy(): Promise<void>;
}

/** Starts operator-controller; `overrides` replace defaults. Resolves once it is ready. */
export async function startOperatorController(
  cp: ControlPlaneInfo,
  overrides: Partial<OperatorControllerOptions> = {},
): Promise<TestOperatorController> {
  const cacheDir = overrides.cacheDir ?? (await mkdtemp(join(tmpdir(), 'operator-controller-test-')));
  try {
    return await withFreePorts(1, (ports) => startOnPort(cp, cacheDir, overrides, ports));
  } catch (err) {
    if (overrides.cacheDir === undefined) await rm(cacheDir, { recursive: true, force: true });
    throw err;
  }
}

async function startOnPort(
  cp: ControlPlaneInfo,
  cacheDir: string,
  overrides: Partial<OperatorControllerOptions>,
  [healthPort = 0]: number[],
): Promise<TestOperatorController> {
  const options: OperatorControllerOptions = {
    kubeconfig: cp.kubeconfigPath,
    inCluster: undefined,
    systemNamespace: 'olmv1-system',
    cacheDir,
    catalogdUrl: undefined,
    catalogdCaFile: undefined,
    maxConcurrentReconciles: 4,
    healthProbe: { host: '127.0.0.1', port: healthPort },
    leaderElect: false,
    leaderElectionId: 'operator-controller-test-lock',
    identity: `operator-controller-test-${process.pid}-${healthPort}`,
    pullSecret: undefined,
    insecureRegistries: ['127.0.0.1'],
    pullCaFile: undefined,
    featureGates: { ...FEATURE_GATE_DEFAULTS },
    imageLimits: { ...BUNDLE_IMAGE_LIMITS },
    pullConnectTimeoutMs: DEFAULT_PULL_CONNECT_TIMEOUT_MS,
    // Metrics on the health port, unauthenticated (--insecure-metrics): readMetric and friends read them there.
    ...servingOptions({ 'insecure-metrics': 'true' }, ':8443'),
    pullReadTimeoutMs: DEFAULT_PULL_READ_TIMEOUT_MS,
    // Reconcile errors are expected in these tests; set OLMV1_TEST_LOG=debug to see them.
    logLevel: process.env.OLMV1_TEST_LOG ?? 'silent',
    logFormat: 'json',
    ...overrides,
  };
  const stopper = new AbortController();
  const log = pino(
    { level: options.logLevel, base: { component: 'operator-controller' }, serializers: { err: pino.stdSerializers.errWithCause } },
    pino.destination(2),
  );
  const running = runOperatorController(options, log, stopper.signal);
  const healthUrl = `http://127.0.0.1:${healthPort}`;
  await waitForComponent('operator-controller', `${healthUrl}/readyz`, running, 60_000);
  return {
    options,
    healthUrl,
    destroy: async () => {
      stopper.abort();
      await running.catch(() => undefined);
      // A bundle pull of the stopped reconcile may still be writing its files (ENOTEMPTY): retried.
      if (overrides.cacheDir === undefined) await rm(cacheDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}

/**
 * The sum of the samples of metric `name` whose labels include `labels`, read from a
 * component's /metrics; 0 when there are none.
 */
export async function readMetric(healthUrl: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${healthUrl}/metrics`)).text();
  let sum = 0;
  for (const m of text.matchAll(/^([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})? (\S+)$/gm)) {
    if (m[1] !== name) continue;
    const have = new Map([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]] as const));
    if (Object.entries(labels).every(([k, v]) => have.get(k) === v)) sum += Number(m[3]);
  }
  return sum;
}
