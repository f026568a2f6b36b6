/**
 * operator-controller as a real child process (`node cmd/operator-controller/main.ts`), for
 * suites that kill it: start it with flags and optionally the test pause hook
 * (`OLMV1_TEST_PAUSE_AT`, cmd/operator-controller/test-pause.ts), wait until it paused where
 * asked, SIGKILL it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ControlPlaneInfo, type ManagedProcess, type Reaper, ServerExitedError, startProcess, withFreePorts } from '../envtest/index.ts';
import { waitUntil } from './bundle-flow.ts';

const MAIN = fileURLToPath(new URL('../../cmd/operator-controller/main.ts', import.meta.url));

/** A running operator-controller process. */
export interface ControllerProcess {
  name: string;
  proc: ManagedProcess;
  /** `http://127.0.0.1:<port>`: /healthz, /readyz, /metrics. */
  healthUrl: string;
}

/** How to start one. */
export interface ControllerProcessOptions {
  /** Names the process (POD_NAME, so the leader election identity) and its log file. */
  name: string;
  cp: ControlPlaneInfo;
  cacheDir: string;
  /** Directory of the log file `<name>.log`. */
  logDir: string;
  reaper: Reaper;
  /** `OLMV1_TEST_PAUSE_AT` entries, `<extension>=<point>[#n]`. */
  pauseAt?: string[];
  /** More flags, e.g. `--leader-elect=false`. */
  args?: string[];
  /** Flags of Node itself, before the script (the Deployment's: cmd/operator-controller/node-flags.ts). */
  nodeFlags?: readonly string[];
  /** More environment variables (the Deployment's glibc settings, for one). */
  env?: Readonly<Record<string, string>>;
}

/** Starts operator-controller and waits until its health server answers. */
export async function startControllerProcess(o: ControllerProcessOptions): Promise<ControllerProcess> {
  return withFreePorts(1, (ports) => startOnPort(o, ports));
}

async function startOnPort(o: ControllerProcessOptions, [health = 0]: number[]): Promise<ControllerProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...o.env, POD_NAME: o.name };
  delete env['OLMV1_TEST_PAUSE_AT'];
  if (o.pauseAt !== undefined && o.pauseAt.length > 0) env['OLMV1_TEST_PAUSE_AT'] = o.pauseAt.join(',');
  const proc = await startProcess({
    name: o.name,
    command: process.execPath,
    args: [
      ...(o.nodeFlags ?? []),
      MAIN,
      `--kubeconfig=${o.cp.kubeconfigPath}`,
      '--system-namespace=olmv1-system',
      `--cache-dir=${o.cacheDir}`,
      `--health-probe-bind-address=127.0.0.1:${health}`,
      // /metrics on the health address, unauthenticated: tests scrape it there.
      '--insecure-metrics',
      '--insecure-registry=127.0.0.1',
      '--log-level=info',
      ...(o.args ?? []),
    ],
    env,
    logPath: join(o.logDir, `${o.name}.log`),
    reaper: o.reaper,
  });
  const healthUrl = `http://127.0.0.1:${health}`;
  try {
    await waitUntil(
      `${o.name} to answer /healthz`,
      async () => {
        if (proc.exitStatus() !== undefined) throw new Error(`${o.name} exited during start-up`);
        return (await fetch(`${healthUrl}/healthz`).catch(() => undefined))?.ok === true;
      },
      60_000,
    );
  } catch (err) {
    const exited = proc.exitStatus() !== undefined;
    await proc.stop();
    // An exit with its log: one that says a port was taken is started again on another (withFreePorts).
    if (exited) throw new ServerExitedError((err as Error).message, proc.logTail(30));
    throw new Error(`${(err as Error).message}\n${proc.logTail(30)}`, { cause: err });
  }
  return { name: o.name, proc, healthUrl };
}

/** JSON log lines of the process so far. */
export async function logLines(c: ControllerProcess): Promise<Record<string, unknown>[]> {
  const text = await readFile(c.proc.logPath, 'utf8').catch(() => '');
  const out: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // A line cut short by SIGKILL.
    }
  }
  return out;
}

/** Waits until the pause hook stopped the process for each of `extensions`. */
export async function waitForPauses(c: ControllerProcess, extensions: readonly string[], timeoutMs = 240_000): Promise<void> {
  let missing: string[] = [...extensions];
  try {
    await waitUntil(
      `${c.name} to pause for ${extensions.length} extensions`,
      async () => {
        if (c.proc.exitStatus() !== undefined) throw new Error(`${c.name} exited`);
        const paused = new Set((await logLines(c)).filter((l) => l['msg'] === 'test hook: paused').map((l) => String(l['extension'])));
        missing = extensions.filter((e) => !paused.has(e));
        return missing.length === 0;
      },
      timeoutMs,
      500, // each check reads the whole log file
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; not paused: ${missing.join(' ')}\n${c.proc.logTail(30)}`, { cause: err });
  }
}

/** SIGKILLs the process group and waits for the exit. */
export async function killController(c: ControllerProcess): Promise<void> {
  try {
    process.kill(-c.proc.pid, 'SIGKILL');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
  await c.proc.exited;
  await c.proc.stop();
}
