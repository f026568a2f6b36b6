// Liveness while the event loop cannot run (issue 69, item 9; decision 0136): operator-controller
// as a real process (cmd/operator-controller/main.ts) on the shared control plane, its main
// thread stopped from outside through the inspector (`--inspect`, Debugger.pause: the inspector
// answers on its own thread, the paused thread runs nothing, as a thread busy with one long slice
// of work). `/healthz` is answered by the probe worker all the while; `/readyz`, which needs the
// main thread, answers 500 after the forward timeout instead of hanging; both are 200 again once
// it resumes. Before decision 0136 `/healthz` was served by the main thread and did not answer.
// The process never leads: a Lease another holder renews is there first, so nothing reconciles
// on the shared control plane.
//   Sufficient: /healthz 200 within a second while the main thread is paused; /readyz 500 then.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, inject, it, vi } from 'vitest';
import { connect, type KubeContext } from '../../pkg/shared/kube/index.ts';
import { type ManagedProcess, Reaper, freePorts, startProcess } from '../envtest/index.ts';
import { installOlmConfig } from '../support/olm-config.ts';

const MAIN = fileURLToPath(new URL('../../cmd/operator-controller/main.ts', import.meta.url));
const LEASE = `liveness-busy-${process.pid}`;
const cp = inject('envtestControlPlane');
let reaper: Reaper;
let work: string;
let kube: KubeContext;
let proc: ManagedProcess | undefined;

beforeAll(async () => {
  await installOlmConfig(cp);
  kube = await connect({ kind: 'file', path: cp.kubeconfigPath });
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'olmv1-system' } }).catch(() => undefined);
  // Held by someone else for an hour: the process stays a candidate and reconciles nothing.
  const now = new Date().toISOString().replace(/Z$/, '000Z'); // a MicroTime
  await kube.client.create({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: LEASE, namespace: 'olmv1-system' },
    spec: { holderIdentity: 'someone-else', leaseDurationSeconds: 3600, acquireTime: now, renewTime: now },
  });
  reaper = Reaper.start();
  work = await mkdtemp(join(tmpdir(), 'liveness-busy-'));
});

afterAll(async () => {
  await proc?.stop();
  reaper?.close();
  await kube?.client.delete({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'olmv1-system', name: LEASE }).catch(() => undefined);
  kube?.close();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

/** GET `url`: its status and how long it took, or `timeout` when no answer came within `ms`. */
async function probe(url: string, ms: number): Promise<{ status: number | 'timeout'; ms: number }> {
  const started = performance.now();
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(ms) });
    await res.text();
    return { status: res.status, ms: performance.now() - started };
  } catch {
    return { status: 'timeout', ms: performance.now() - started };
  }
}

/** A Chrome DevTools Protocol session on the process's inspector. */
async function inspector(logPath: string): Promise<{ send(method: string): Promise<void>; close(): void }> {
  const url = await vi.waitFor(
    async () => {
      const m = /ws:\/\/127\.0\.0\.1:\d+\/[\w-]+/.exec(await readFile(logPath, 'utf8'));
      if (m === null) throw new Error('no inspector URL in the log yet');
      return m[0];
    },
    { timeout: 30_000, interval: 100 },
  );
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error(`cannot connect to ${url}`));
  });
  let next = 0;
  const waiting = new Map<number, () => void>();
  ws.onmessage = (e) => {
    const { id } = JSON.parse(String(e.data)) as { id?: number };
    if (id !== undefined) waiting.get(id)?.();
  };
  return {
    send: (method) =>
      new Promise<void>((resolve) => {
        const id = ++next;
        waiting.set(id, resolve);
        ws.send(JSON.stringify({ id, method }));
      }),
    close: () => ws.close(),
  };
}

it('answers /healthz while its main thread is stopped, and /readyz says the main thread does not answer', async () => {
  const [health = 0] = await freePorts(1);
  proc = await startProcess({
    name: 'operator-controller-liveness',
    command: process.execPath,
    args: [
      '--inspect=127.0.0.1:0',
      MAIN,
      `--kubeconfig=${cp.kubeconfigPath}`,
      '--system-namespace=olmv1-system',
      `--cache-dir=${join(work, 'cache')}`,
      `--health-probe-bind-address=127.0.0.1:${health}`,
      `--leader-election-id=${LEASE}`,
    ],
    env: { ...process.env, POD_NAME: 'liveness-busy' },
    logPath: join(work, 'operator-controller.log'),
    reaper,
  });
  const base = `http://127.0.0.1:${health}`;
  await vi.waitFor(
    async () => {
      const ready = await probe(`${base}/readyz`, 2000);
      if (ready.status !== 200) throw new Error(`readyz ${ready.status}\n${proc?.logTail(10) ?? ''}`);
    },
    { timeout: 60_000, interval: 250 },
  );
  const session = await inspector(proc.logPath);
  try {
    await session.send('Debugger.enable');
    // Paused at its next JavaScript (the heartbeat runs each second); the reply comes first.
    await session.send('Debugger.pause');
    // Once paused, /readyz (forwarded to the main thread) gets no answer from it.
    await expect.poll(async () => (await probe(`${base}/readyz`, 8000)).status, { timeout: 30_000, interval: 100 }).toBe(500);
    for (let i = 0; i < 3; i++) {
      const live = await probe(`${base}/healthz`, 2000);
      expect(live.status).toBe(200);
      expect(live.ms).toBeLessThan(1000);
    }
    const verbose = await fetch(`${base}/readyz?verbose`, { signal: AbortSignal.timeout(8000) });
    expect(verbose.status).toBe(500);
    expect(await verbose.text()).toContain('[-]event-loop failed: the main thread did not answer within 5s');
  } finally {
    await session.send('Debugger.resume');
    session.close();
  }
  await expect.poll(async () => (await probe(`${base}/readyz`, 2000)).status, { timeout: 30_000, interval: 250 }).toBe(200);
  expect((await probe(`${base}/healthz`, 2000)).status).toBe(200);
});
