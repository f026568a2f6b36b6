/**
 * The real OLM control plane for benchmarks: envtest's kube-apiserver + etcd and registry
 * (binaries cached under ~/.cache/olmv1/envtest), the project's CRDs and admission policies
 * (config/, applied with kubectl), and catalogd and operator-controller as child processes
 * started from their entry points (cmd/<name>/main.ts, or the emitted JavaScript; see
 * runtime.ts), so each one's memory can be read from /proc. `stop()` ends everything started,
 * children first; it is idempotent and meant for a `finally`.
 */
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CATALOGD_ENVIRONMENT, CATALOGD_NODE_FLAGS } from '../../cmd/shared/node-flags.ts';
import { OPERATOR_CONTROLLER_ENVIRONMENT, OPERATOR_CONTROLLER_NODE_FLAGS } from '../../cmd/operator-controller/node-flags.ts';
import { EXTENSION_CONTROLLER_NAME } from '../../pkg/operator-controller/clusterextension/index.ts';
import { type KubeContext, connect } from '../../pkg/shared/kube/index.ts';
import {
  type ControlPlane,
  type ControlPlaneInfo,
  type Registry,
  defaultCacheRoot,
  freePorts,
  resolveBinaries,
  startControlPlane,
  startRegistry,
} from '../../test/envtest/index.ts';
import { installOlmConfig } from '../../test/support/olm-config.ts';
import { type BenchChild, spawnChild } from './child.ts';
import type { MemoryLimit } from './memory-limit.ts';
import { procMemory } from './proc.ts';
import type { Runtime } from './runtime.ts';

/** A catalogd or operator-controller child process. */
export interface ProductProcess {
  child: BenchChild;
  /** `http://127.0.0.1:PORT`: /healthz, /readyz, /metrics. */
  healthUrl: string;
  /** Port its inspector listens on once activated with SIGUSR1 (see inspector.ts). */
  inspectPort: number;
}

/** A running control plane with a registry and the OLM configuration installed. */
export interface OlmStack {
  cp: ControlPlaneInfo;
  /** `127.0.0.1:PORT` of the registry. */
  registry: string;
  kube: KubeContext;
  /** Runs the envtest kubectl with the admin kubeconfig; resolves with its stdout. */
  kubectl(args: readonly string[]): Promise<string>;
  /** Starts catalogd (catalog server on `catalogUrl`); resolves once /readyz answers. */
  startCatalogd(): Promise<ProductProcess & { catalogUrl: string }>;
  /** Starts operator-controller with a fresh cache directory; resolves once /readyz answers. */
  /** `memoryLimit`: started in that memory cgroup, as its Deployment's limit puts it (memory-limit.ts); `stdout`: a file descriptor its log goes to. */
  startOperatorController(extraArgs?: readonly string[], options?: { memoryLimit?: MemoryLimit; stdout?: number }): Promise<ProductProcess>;
  /** Stops every child, the registry and the control plane. */
  stop(): Promise<void>;
}

const exec = promisify(execFile);

async function waitReady(child: BenchChild, healthUrl: string, what: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (
      await fetch(`${healthUrl}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    // Node reaps exited children at once, so a missing /proc entry means it has exited.
    if (procMemory(child.pid) === undefined) throw new Error(`${what} exited during start-up; stderr: ${child.stderr().slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`${what} was not ready within ${timeoutMs / 1000} s; stderr: ${child.stderr().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts the stack under `workDir`; on failure, whatever was started is stopped before the error is thrown. */
export async function startOlmStack(opts: {
  runtime: Runtime;
  workDir: string;
  log: (line: string) => void;
  env: NodeJS.ProcessEnv;
  /** Extra kube-apiserver flags (e.g. an audit log, see audit-log.ts). */
  apiServerExtraArgs?: readonly string[];
  /** Also run kube-controller-manager (garbage collection, namespace deletion, ...). */
  controllerManager?: boolean;
}): Promise<OlmStack> {
  const { runtime, workDir, log } = opts;
  const children: BenchChild[] = [];
  let cpServer: ControlPlane | undefined;
  let registry: Registry | undefined;
  let kube: KubeContext | undefined;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await Promise.allSettled(children.map((c) => c.stop()));
      kube?.close();
      await Promise.allSettled([registry?.stop(), cpServer?.stop()]);
    })();
    return stopping;
  };
  try {
    const binaries = await resolveBinaries({
      kubebuilderAssets: opts.env['KUBEBUILDER_ASSETS'],
      cacheRoot: defaultCacheRoot(opts.env),
      env: opts.env,
      log,
    });
    log('starting kube-apiserver + etcd and the registry');
    [cpServer, registry] = await Promise.all([
      startControlPlane({
        binaries,
        tmpRoot: workDir,
        ...(opts.apiServerExtraArgs === undefined ? {} : { apiServerExtraArgs: opts.apiServerExtraArgs }),
        ...(opts.controllerManager === true ? { controllerManager: true } : {}),
      }),
      startRegistry({ binaries, tmpRoot: workDir }),
    ]);
    const cp = cpServer.info;
    await installOlmConfig(cp);
    kube = await connect({ kind: 'file', path: cp.kubeconfigPath });
    await kube.client.apply(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'olmv1-system' } },
      { fieldManager: 'olmv1-bench', force: true },
    );
    const common = (cacheDir: string, healthPort: number): string[] => [
      '--kubeconfig',
      cp.kubeconfigPath,
      '--leader-elect=false',
      '--insecure-registry',
      '127.0.0.1',
      '--cache-dir',
      cacheDir,
      '--health-probe-bind-address',
      `127.0.0.1:${healthPort}`,
      // The benchmarks scrape /metrics on the health address, unauthenticated.
      '--insecure-metrics',
    ];
    let started = 0;
    const stack: OlmStack = {
      cp,
      registry: registry.host,
      kube,
      kubectl: async (args) => (await exec(cp.kubectl, ['--kubeconfig', cp.kubeconfigPath, ...args], { maxBuffer: 64 << 20 })).stdout,
      startCatalogd: async () => {
        const [serverPort = 0, healthPort = 0, inspectPort = 0] = await freePorts(3);
        const cacheDir = join(workDir, `catalogd-cache-${started++}`);
        await mkdir(cacheDir, { recursive: true });
        const args = [
          ...common(cacheDir, healthPort),
          '--catalogs-server-addr',
          `127.0.0.1:${serverPort}`,
          '--external-address',
          `127.0.0.1:${serverPort}`,
        ];
        const child = spawnChild([runtime.entry('cmd/catalogd/main.ts'), ...args], {
          execArgv: [...CATALOGD_NODE_FLAGS, `--inspect-port=127.0.0.1:${inspectPort}`],
          env: CATALOGD_ENVIRONMENT,
        });
        children.push(child);
        const healthUrl = `http://127.0.0.1:${healthPort}`;
        await waitReady(child, healthUrl, 'catalogd');
        return { child, healthUrl, inspectPort, catalogUrl: `http://127.0.0.1:${serverPort}` };
      },
      startOperatorController: async (extraArgs = [], options = {}) => {
        const [healthPort = 0, inspectPort = 0] = await freePorts(2);
        const cacheDir = join(workDir, `operator-controller-cache-${started++}`);
        await mkdir(cacheDir, { recursive: true });
        const child = spawnChild([runtime.entry('cmd/operator-controller/main.ts'), ...common(cacheDir, healthPort), ...extraArgs], {
          execArgv: [...OPERATOR_CONTROLLER_NODE_FLAGS, `--inspect-port=127.0.0.1:${inspectPort}`],
          env: OPERATOR_CONTROLLER_ENVIRONMENT,
          ...(options.memoryLimit === undefined ? {} : { wrap: options.memoryLimit.wrap }),
          ...(options.stdout === undefined ? {} : { stdout: options.stdout }),
        });
        children.push(child);
        const healthUrl = `http://127.0.0.1:${healthPort}`;
        await waitReady(child, healthUrl, 'operator-controller');
        return { child, healthUrl, inspectPort };
      },
      stop,
    };
    return stack;
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Sums and counts of `controller_reconcile_step_duration_seconds` by step, and reconciles by
 * result, of the ClusterExtension controller, from a /metrics text. operator-controller's other
 * controller, the cluster-upgrade gate, reconciles after installs and every minute; its steps
 * and reconciles are left out so that the figures are the extension reconciles' alone.
 */
export interface StepMetrics {
  steps: Record<string, { sum: number; count: number }>;
  reconciles: Record<string, number>;
  /** `controller_runtime_active_workers` summed over controllers (reconciles in progress). */
  active: number;
}

/** Scrapes `${healthUrl}/metrics` for the step and reconcile figures. */
export async function scrapeStepMetrics(healthUrl: string): Promise<StepMetrics> {
  const text = await (await fetch(`${healthUrl}/metrics`)).text();
  const out: StepMetrics = { steps: {}, reconciles: {}, active: 0 };
  for (const m of text.matchAll(/^controller_reconcile_step_duration_seconds_(sum|count)\{([^}]*)\} (\S+)$/gm)) {
    if (!ofExtensionController(m[2])) continue;
    const step = /step="([^"]*)"/.exec(m[2] ?? '')?.[1] ?? '?';
    const entry = (out.steps[step] ??= { sum: 0, count: 0 });
    entry[m[1] === 'sum' ? 'sum' : 'count'] += Number(m[3]);
  }
  for (const m of text.matchAll(/^controller_runtime_reconcile_total\{([^}]*)\} (\S+)$/gm)) {
    if (!ofExtensionController(m[1])) continue;
    const result = /result="([^"]*)"/.exec(m[1] ?? '')?.[1] ?? '?';
    out.reconciles[result] = (out.reconciles[result] ?? 0) + Number(m[2]);
  }
  for (const m of text.matchAll(/^controller_runtime_active_workers\{[^}]*\} (\S+)$/gm)) out.active += Number(m[1]);
  return out;
}

/** True for a label set (`a="x",b="y"`) of the ClusterExtension controller's series. */
function ofExtensionController(labels: string | undefined): boolean {
  return /(?:^|,)controller="([^"]*)"/.exec(labels ?? '')?.[1] === EXTENSION_CONTROLLER_NAME;
}

/** `after - before`, per step (seconds and counts) and per reconcile result. */
export function stepDelta(before: StepMetrics, after: StepMetrics): StepMetrics {
  const steps: StepMetrics['steps'] = {};
  for (const [step, a] of Object.entries(after.steps)) {
    const b = before.steps[step] ?? { sum: 0, count: 0 };
    steps[step] = { sum: a.sum - b.sum, count: a.count - b.count };
  }
  const reconciles: Record<string, number> = {};
  for (const [r, n] of Object.entries(after.reconciles)) reconciles[r] = n - (before.reconciles[r] ?? 0);
  return { steps, reconciles, active: after.active };
}

/** The samples of counter (or gauge) `name` on `${url}/metrics`, keyed by their label text (`query="package",outcome="success"`). */
export async function scrapeSamples(url: string, name: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(new RegExp(`^${name}(?:\\{([^}]*)\\})? (\\S+)$`, 'gm'))) out[m[1] ?? ''] = Number(m[2]);
  return out;
}

/** `after - before` per label text (a sample missing before counts from 0). */
export function sampleDelta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - (before[k] ?? 0)]));
}
