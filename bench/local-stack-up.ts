/**
 * Start-up of `olmv1 up` with and without `--node` (issue #43), as a newcomer starts it:
 * `node cmd/olmv1/main.ts up [--node]` in a fresh directory, timed from spawn to the line
 * `olmv1 local stack is ready` (everything the summary lists runs and the example catalog is
 * Serving); then `kubectl apply` of the installer and ClusterExtension samples until the example extension is Installed
 * (and, with the node, Healthy: its operator's Pod runs); then SIGINT until `up` exits. Runs
 * alternate (host-only, node, host-only, ...) so that a drift in the machine's load reaches
 * both; the binaries must be cached (a first run builds them: not what this measures).
 *
 *   node bench/local-stack-up.ts [--runs N]     (root, containerd, runc and CNI plugins for --node)
 *
 * Prints one line per run and the medians; bench/results/local-stack.md keeps the figures.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePorts } from '../pkg/olmv1/localstack/index.ts';

const exec = promisify(execFile);
const REPO = fileURLToPath(new URL('../', import.meta.url));

interface Run {
  node: boolean;
  readyMs: number;
  installedMs: number;
  healthyMs: number | undefined;
  stopMs: number;
}

/** Another node held the machine lock during the run: its start-up includes that wait. */
class WaitedForLock extends Error {}

async function runOnce(node: boolean): Promise<Run> {
  // A registry port of its own: others' stacks on this machine may hold 5001. The sample
  // ClusterCatalog then names another registry, so only the other two samples are applied
  // (as up's summary says).
  const [port = 0] = await freePorts(1);
  const cwd = await mkdtemp(join(tmpdir(), 'olmv1-up-bench-'));
  // config/samples/ is applied from the directory up runs in, as the README does.
  await symlink(join(REPO, 'config'), join(cwd, 'config'));
  const started = performance.now();
  const up = spawn(process.execPath, [join(REPO, 'cmd/olmv1/main.ts'), 'up', '--registry-port', String(port), ...(node ? ['--node'] : [])], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  up.stdout.on('data', (d: Buffer) => (out += d.toString()));
  up.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => up.once('exit', (code) => resolve(code)));
  try {
    await new Promise<void>((resolve, reject) => {
      up.stdout.on('data', () => out.includes('olmv1 local stack is ready') && resolve());
      void exited.then((code) => reject(new Error(`olmv1 up exited with ${code} before it was ready:\n${err}`)));
    });
    const readyMs = performance.now() - started;
    if (err.includes('waiting for the local node')) throw new WaitedForLock('waited for another node');
    const k = (...args: string[]) => exec(join(cwd, '.olmv1/bin/kubectl'), ['--kubeconfig', join(cwd, '.olmv1/kubeconfig'), ...args], { cwd });
    const applied = performance.now();
    await k('apply', '-f', 'config/samples/example-operator-installer.yaml', '-f', 'config/samples/olm_v1_clusterextension.yaml');
    await k('wait', '--for=condition=Installed', 'clusterextension/example-operator', '--timeout=120s');
    const installedMs = performance.now() - applied;
    let healthyMs: number | undefined;
    if (node) {
      await k('wait', '--for=condition=Healthy', 'clusterextension/example-operator', '--timeout=120s');
      healthyMs = performance.now() - applied;
    }
    const stopping = performance.now();
    up.kill('SIGINT');
    const code = await exited;
    if (code !== 0) throw new Error(`olmv1 up exited with ${code} on SIGINT:\n${err}`);
    return { node, readyMs, installedMs, healthyMs, stopMs: performance.now() - stopping };
  } finally {
    if (up.exitCode === null && up.signalCode === null) {
      up.kill('SIGINT');
      await exited;
    }
    await rm(cwd, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

const s = (ms: number | undefined): string => (ms === undefined ? '-' : `${(ms / 1000).toFixed(1)} s`);

const runsArg = process.argv.indexOf('--runs');
const runs = runsArg === -1 ? 3 : Number(process.argv[runsArg + 1]);
console.log(
  `olmv1 up start-up, ${runs} runs each, alternating; load average at start ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const results: Run[] = [];
for (let i = 0; i < runs; i++) {
  for (const node of [false, true]) {
    let r: Run | undefined;
    while (r === undefined) {
      r = await runOnce(node).catch((e: unknown) => {
        if (!(e instanceof WaitedForLock)) throw e;
        console.log('(run discarded: it waited for another local node on this machine; again)');
        return undefined;
      });
    }
    results.push(r);
    console.log(
      `${node ? 'up --node' : 'up       '}  ready ${s(r.readyMs)}  samples Installed ${s(r.installedMs)}  Healthy ${s(r.healthyMs)}  stop ${s(r.stopMs)}  (load ${loadavg()[0]?.toFixed(2)})`,
    );
  }
}
for (const node of [false, true]) {
  const mine = results.filter((r) => r.node === node);
  const healthy = mine.flatMap((r) => (r.healthyMs === undefined ? [] : [r.healthyMs]));
  console.log(
    `median ${node ? 'up --node' : 'up       '}  ready ${s(median(mine.map((r) => r.readyMs)))} (${mine.map((r) => s(r.readyMs)).join(', ')})  ` +
      `samples Installed ${s(median(mine.map((r) => r.installedMs)))}  Healthy ${healthy.length === 0 ? '-' : s(median(healthy))}  ` +
      `stop ${s(median(mine.map((r) => r.stopMs)))}`,
  );
}
console.log(
  `load average at end ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
