// `olmv1 up --node` end to end (issue #43), as a newcomer runs it: from a clean checkout of HEAD
// (node_modules symlinked), `node cmd/olmv1/main.ts up --node` starts the local stack with a real
// node (decision 0101); the README's walk-through, run as written, installs the example
// operator, whose Pod runs (pulled from the stack's registry), so the extension is Healthy and
// `olmv1 status` says so; SIGINT then leaves nothing: no process naming the checkout or the
// private TMPDIR (containerd, its shims, the kubelet among them), no bridge, no mount under the
// node's directory, no temp file, and the machine's node lock is no longer ours.
// Root, containerd, runc and the CNI plugins are needed (.ci/run installs them); the node's
// binaries come from the cache the integration global setup filled. One node per machine: a
// node started elsewhere makes `up` wait, hence the long start-up bound.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkoutHead, processesMentioning, readmeWalkthrough } from '../support/up-checkout.ts';

const exec = promisify(execFile);
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

let checkout: string;
let privateTmp: string;
let up: ChildProcess;
let stdout = '';
let stderr = '';
let exited: Promise<number | null>;

interface Stack {
  pid: number;
  apiServer: string;
  node?: { name: string; address: string; podCidr: string; bridge: string; readyAfterMs: number };
}

function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter((l) => l.includes(dir));
}

/** The node bridges (`olmv1-*`) on this machine. */
async function bridges(): Promise<string[]> {
  const { stdout: out } = await exec('ip', ['-o', 'link', 'show', 'type', 'bridge'], { env: { PATH } });
  return [...out.matchAll(/^\d+: (olmv1-[^:@]+)/gm)].map((m) => m[1] ?? '').sort();
}

function lockOwner(): number | undefined {
  try {
    return (JSON.parse(readFileSync('/run/olmv1-local-node.lock/owner.json', 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

describe('olmv1 up --node from a clean checkout', () => {
  beforeAll(async () => {
    checkout = await mkdtemp(join(tmpdir(), 'olmv1-up-node-e2e-checkout-'));
    privateTmp = await mkdtemp(join(tmpdir(), 'olmv1-up-node-e2e-tmp-'));
    checkoutHead(REPO, checkout);
    await symlink(join(REPO, 'node_modules'), join(checkout, 'node_modules'));
    await mkdir(join(checkout, '.olmv1'));
    up = spawn(process.execPath, ['cmd/olmv1/main.ts', 'up', '--node'], {
      cwd: checkout,
      env: { ...process.env, TMPDIR: privateTmp },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    up.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    up.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    exited = new Promise((resolve) => up.once('exit', (code) => resolve(code)));
    await vi.waitFor(
      () => {
        if (up.exitCode !== null) throw new Error(`olmv1 up --node exited with ${up.exitCode}\n${stderr}`);
        if (!stdout.includes('Ctrl-C stops everything.')) throw new Error(`olmv1 up --node is not ready yet\n${stderr}`);
      },
      { timeout: 540_000, interval: 200 },
    );
  }, 600_000);

  afterAll(async () => {
    if (up !== undefined && up.exitCode === null) {
      // A failed test: stop it as a user would, so the node's cleanup runs.
      up.kill('SIGINT');
      await exited;
    }
    if (checkout !== undefined) await rm(checkout, { recursive: true, force: true });
    if (privateTmp !== undefined) await rm(privateTmp, { recursive: true, force: true });
  }, 120_000);

  const kubectl = async (...args: string[]): Promise<string> =>
    (await exec('.olmv1/bin/kubectl', ['--kubeconfig', '.olmv1/kubeconfig', ...args], { cwd: checkout })).stdout;
  const stack = (): Stack => JSON.parse(readFileSync(join(checkout, '.olmv1/stack.json'), 'utf8')) as Stack;
  // The example operator, Healthy: the README test installs it as written; a test run alone
  // applies config/samples/ itself.
  let healthy: Promise<void> | undefined;
  const exampleHealthy = (): Promise<void> =>
    (healthy ??= (async () => {
      await kubectl('apply', '-f', 'config/samples/');
      await kubectl('wait', '--for=condition=Healthy', 'clusterextension/example-operator', '--timeout=120s');
    })());

  it('prints the node, Ready, and the API server on its bridge address', async () => {
    const node = stack().node;
    expect(node).toMatchObject({ name: 'olmv1-node', address: expect.stringMatching(/^10\.244\.\d+\.1$/), bridge: expect.stringMatching(/^olmv1-/) });
    expect(stack().apiServer).toMatch(new RegExp(`^https://${node?.address.replaceAll('.', '\\.')}:\\d+$`));
    expect(stdout).toMatch(
      new RegExp(`^  node +olmv1-node Ready \\(${node?.address.replaceAll('.', '\\.')}, Pods ${node?.podCidr}, bridge ${node?.bridge}; `, 'm'),
    );
    expect(stdout).toContain('.olmv1/bin/kubectl --kubeconfig .olmv1/kubeconfig wait --for=condition=Healthy clusterextension/example-operator');
    const ready = await kubectl('get', 'node', 'olmv1-node', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}');
    expect(ready).toBe('True');
  });

  // The README's walk-through as a newcomer pastes it, all of it: with the node the operator's
  // Pod runs, so the wait for Healthy succeeds and status reports the extension healthy.
  it("runs the README's local stack commands as written, the extension Healthy", async () => {
    const script = readmeWalkthrough(checkout);
    expect(script).toMatch(/^k wait --for=condition=Healthy clusterextension\/example-operator /m);
    const home = await mkdtemp(join(tmpdir(), 'olmv1-up-node-e2e-home-'));
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, npm_config_update_notifier: 'false' };
      delete env.KUBECONFIG;
      const { stdout: out } = await exec('bash', ['-c', script], { cwd: checkout, env, maxBuffer: 64 * 1024 * 1024 });
      expect(out).toContain('clusterextension.olm.operatorframework.io/example-operator condition met');
      expect(out).toMatch(/^example-operator +.*example-operator\.v1\.0\.0/m);
      // olmv1 status's table: the extension's HEALTH column.
      expect(out).toMatch(/^example-operator +example-operator +1\.0\.0 .* True \(Healthy\) /m);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 240_000);

  it("runs the example operator's Pod from the stack's registry, Available, and olmv1 status reports the extension Healthy", async () => {
    await exampleHealthy();
    const podPhases = async (): Promise<string> => kubectl('get', 'pods', '-n', 'example-operator', '-o', 'jsonpath={.items[*].status.phase}');
    await expect.poll(podPhases, { timeout: 60_000, interval: 500 }).toBe('Running');
    const pod = JSON.parse(await kubectl('get', 'pods', '-n', 'example-operator', '-o', 'json')) as {
      items: Array<{ spec: { nodeName: string; containers: Array<{ image: string }> }; status: { podIP: string } }>;
    };
    expect(pod.items[0]?.spec.nodeName).toBe('olmv1-node');
    expect(pod.items[0]?.spec.containers[0]?.image).toMatch(/^127\.0\.0\.1:5001\/olmv1\/example-operator@sha256:[0-9a-f]{64}$/);
    expect(pod.items[0]?.status.podIP.startsWith(stack().node?.podCidr.split('.').slice(0, 3).join('.') ?? '-')).toBe(true);
    const available = await kubectl(
      'get',
      'deployment',
      '-n',
      'example-operator',
      'example-operator-controller',
      '-o',
      'jsonpath={.status.conditions[?(@.type=="Available")].status}',
    );
    expect(available).toBe('True');
    // The operator itself runs with its ServiceAccount's token against the API server.
    expect(await kubectl('logs', '-n', 'example-operator', 'deployment/example-operator-controller')).toContain(
      'listed Greetings with the ServiceAccount token',
    );

    const env: NodeJS.ProcessEnv = { ...process.env, HOME: privateTmp };
    delete env.KUBECONFIG;
    const { stdout: json } = await exec(process.execPath, ['cmd/olmv1/main.ts', 'status', '-o', 'json'], { cwd: checkout, env });
    const report = JSON.parse(json) as { extensions: Array<{ name: string; healthy: { status: string; reason: string } | null }> };
    expect(report.extensions).toEqual([expect.objectContaining({ name: 'example-operator', healthy: expect.objectContaining({ status: 'True' }) })]);
  });

  // Issue 69: a second `olmv1 up --node` waiting for this one's node lock ignored SIGINT and
  // SIGTERM (only SIGKILL ended it). Now either ends the wait at once: exit 130, what it had
  // started (its registry, its temp directory) gone, this node's lock untouched.
  it.for(['SIGINT', 'SIGTERM'] as const)(
    'a second olmv1 up --node waiting for this node ends on %s, leaving nothing',
    { timeout: 180_000 },
    async (signal, { onTestFinished }) => {
      const cwd = await mkdtemp(join(tmpdir(), 'olmv1-up-node-e2e-second-'));
      const tmp = await mkdtemp(join(tmpdir(), 'olmv1-up-node-e2e-second-tmp-'));
      const port = await new Promise<number>((resolve) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const free = (probe.address() as AddressInfo).port;
          probe.close(() => resolve(free));
        });
      });
      const second = spawn(process.execPath, [join(checkout, 'cmd/olmv1/main.ts'), 'up', '--node', '--registry-port', String(port)], {
        cwd,
        env: { ...process.env, TMPDIR: tmp },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      second.stderr?.on('data', (d: Buffer) => (err += d.toString()));
      const ended = new Promise<number | null>((resolve) => second.once('exit', (code) => resolve(code)));
      // Also after a timeout (a second up that ignores the signal): it must not take the lock later.
      onTestFinished(async () => {
        if (second.exitCode === null && second.signalCode === null) second.kill('SIGKILL');
        await ended;
        await rm(cwd, { recursive: true, force: true });
        await rm(tmp, { recursive: true, force: true });
      });
      await vi.waitFor(
        () => {
          if (second.exitCode !== null) throw new Error(`the second olmv1 up exited with ${second.exitCode}\n${err}`);
          if (!err.includes(`olmv1 up: waiting for the local node of pid ${up.pid} on `)) throw new Error(`not waiting yet\n${err}`);
        },
        { timeout: 120_000, interval: 200 },
      );
      second.kill(signal);
      expect(await ended).toBe(130);
      expect(err).toContain(`olmv1 up: stopped waiting for the local node of pid ${up.pid} on `);
      expect(err).toContain('olmv1 up: stopped; nothing left running');
      await expect.poll(() => processesMentioning(tmp), { timeout: 10_000 }).toEqual([]);
      expect(await readdir(tmp)).toEqual([]);
      expect(lockOwner()).toBe(up.pid);
    },
  );

  it('stops everything on SIGINT: no process, container, bridge, mount or temp file is left', async () => {
    await exampleHealthy();
    const bridge = stack().node?.bridge ?? '';
    const running = [...processesMentioning(privateTmp), ...processesMentioning(checkout)];
    const commands = running.map((pid) => (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '').split('/').pop());
    // containerd, its shims (the operator's Pod and its sandbox), the kubelet: all under privateTmp.
    expect(commands).toEqual(expect.arrayContaining(['containerd', 'containerd-shim-runc-v2', 'kubelet']));
    expect(mountsUnder(privateTmp).length).toBeGreaterThan(0);
    await exec('ip', ['link', 'show', bridge], { env: { PATH } });
    expect(lockOwner()).toBe(up.pid);

    up.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stderr).toContain('olmv1 up: stopped; nothing left running');
    // The node's stop waits for the processes it killed; the poll only covers their reaping.
    await expect.poll(() => [...processesMentioning(privateTmp), ...processesMentioning(checkout)], { timeout: 10_000 }).toEqual([]);
    expect(mountsUnder(privateTmp)).toEqual([]);
    await expect(exec('ip', ['link', 'show', bridge], { env: { PATH } })).rejects.toThrow();
    // Released (another node waiting elsewhere may hold it by now).
    expect(lockOwner()).not.toBe(up.pid);
    expect(await readdir(privateTmp)).toEqual([]);
    expect((await readdir(join(checkout, '.olmv1'))).sort()).toEqual(['bin', 'logs']);
  }, 120_000);
});

// A start that fails once the node runs (here: the registry's port is taken, found after the
// control plane and node started, as they start together) stops the node as well: exit 1, the
// cause named, nothing left.
describe('olmv1 up --node that fails to start', () => {
  it('exits 1 naming the cause and leaves no process, bridge, mount or temp file', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'olmv1-up-node-e2e-fail-'));
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    const bridgesBefore = await bridges();
    try {
      let pid = 0;
      const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
        const child = execFile(
          process.execPath,
          [join(REPO, 'cmd/olmv1/main.ts'), 'up', '--node', '--registry-port', String(port)],
          { cwd: tmp, env: { ...process.env, TMPDIR: tmp } },
          (err, _out, errOut) => resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stderr: errOut }),
        );
        pid = child.pid ?? 0;
      });
      expect(result.stderr).toContain('and a node (containerd, kubelet, kube-scheduler, kube-proxy, CoreDNS)');
      expect(result.stderr).toContain(`port ${port} of 127.0.0.1 is in use`);
      expect(result.stderr).toMatch(/olmv1 up: stopped; nothing left running\n$/);
      expect(result.code).toBe(1);
      await expect.poll(() => processesMentioning(tmp), { timeout: 10_000 }).toEqual([]);
      expect(mountsUnder(tmp)).toEqual([]);
      expect(await bridges()).toEqual(bridgesBefore);
      // Released (another node waiting elsewhere may hold it by now).
      expect(lockOwner()).not.toBe(pid);
      expect((await readdir(tmp)).sort()).toEqual(['.olmv1']);
    } finally {
      blocker.close();
      await rm(tmp, { recursive: true, force: true });
    }
  }, 300_000);
});
