// A component whose controller cannot run ends with exit code 1 rather than stay up, passing its
// probes and reconciling nothing (issue 69): operator-controller as a real process
// (cmd/operator-controller/main.ts) on the shared control plane, with `--catalogd-cas-dir` naming
// a directory that holds no certificate. Upstream's start-up check refuses that directory after
// the health server listens and the informers synced, when the controller's parts are built;
// before, the process logged the failure and kept answering /healthz and /readyz with 200.
// Nothing of it reconciles (the failure comes before leader election), so the shared control
// plane is safe.
//   Sufficient: the process exits with code 1 and its last line is the fatal one.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, inject, it, vi } from 'vitest';
import { type ManagedProcess, Reaper, freePorts, startProcess } from '../envtest/index.ts';
import { installOlmConfig } from '../support/olm-config.ts';

const MAIN = fileURLToPath(new URL('../../cmd/operator-controller/main.ts', import.meta.url));
const cp = inject('envtestControlPlane');
let reaper: Reaper;
let work: string;
let proc: ManagedProcess | undefined;

beforeAll(async () => {
  await installOlmConfig(cp);
  reaper = Reaper.start();
  work = await mkdtemp(join(tmpdir(), 'component-start-failure-'));
});

afterAll(async () => {
  await proc?.stop();
  reaper?.close();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

it('operator-controller exits with code 1 when its controller cannot be built', async () => {
  const [health = 0] = await freePorts(1);
  const emptyCas = await mkdtemp(join(work, 'cas-'));
  proc = await startProcess({
    name: 'operator-controller-start-failure',
    command: process.execPath,
    args: [
      MAIN,
      `--kubeconfig=${cp.kubeconfigPath}`,
      '--system-namespace=olmv1-system',
      `--cache-dir=${join(work, 'cache')}`,
      `--health-probe-bind-address=127.0.0.1:${health}`,
      `--catalogd-cas-dir=${emptyCas}`,
      '--leader-election-id=start-failure-never-taken',
    ],
    env: { ...process.env, POD_NAME: 'start-failure' },
    logPath: join(work, 'operator-controller.log'),
    reaper,
  });
  const exited = proc;
  await vi.waitFor(
    () => {
      if (exited.exitStatus() === undefined) throw new Error(`still running\n${exited.logTail(10)}`);
    },
    { timeout: 120_000, interval: 200 },
  );
  expect(exited.exitStatus()).toEqual({ code: 1, signal: null });
  const lines = (await readFile(exited.logPath, 'utf8')).trim().split('\n');
  const fatal = lines.map((l) => JSON.parse(l) as { level: string; msg: string; err?: { message: string } }).filter((l) => l.level === 'fatal');
  expect(fatal).toEqual([
    expect.objectContaining({ msg: 'operator-controller failed', err: expect.objectContaining({ message: expect.stringContaining(emptyCas) }) }),
  ]);
  // It got as far as its informers' sync: the failure came after the health server listened.
  expect(lines.some((l) => l.includes('"health server listening"'))).toBe(true);
});
