// startControlPlane({ node: true }): a real node (decision 0101). The Node becomes Ready; a Pod
// whose image is built here and pulled from the tests' registry runs; from inside a Pod the
// API server's Service name resolves and the API server answers through it and through the
// Service IP with the Pod's ServiceAccount token; a second Pod reaches the first by its Service
// name (cluster DNS + kube-proxy); an address outside the machine is unreachable from a Pod;
// `kubectl logs` and `exec` work; stop() leaves no container, shim, mount, bridge, iptables
// chain, process or directory, nor does the reaper when the process that started a node dies. Its own control plane with root, containerd, runc, CNI plugins and
// iptables (.ci/run installs them).
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  buildGoProgram,
  defaultCacheRoot,
  findGoToolchain,
  startControlPlane,
  type ControlPlane,
  type NodeInfo,
} from '../../pkg/olmv1/localstack/index.ts';
import { buildImage, buildLayer, createImageClient } from '../../pkg/shared/image/index.ts';
import { envtestNodeBinaries } from '../envtest/deferred-tools.ts';
import { filesOutside, iptablesChains, machineState, type MachineState } from '../support/machine-state.ts';

const exec = promisify(execFile);
const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
let cp: ControlPlane;
let node: NodeInfo;
let startupMs = 0;
let image = '';
const ns = `node-${Date.now().toString(36)}`;

const kubectl = async (...args: string[]): Promise<string> => (await exec(cp.info.kubectl, ['--kubeconfig', cp.info.kubeconfigPath, ...args])).stdout;

async function apply(obj: object): Promise<void> {
  const child = execFile(cp.info.kubectl, ['--kubeconfig', cp.info.kubeconfigPath, 'apply', '-f', '-']);
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  child.stdin?.end(JSON.stringify(obj));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`kubectl apply failed: ${err}`);
}

function pod(name: string, labels: Record<string, string>, args: string[], env: Record<string, string> = {}): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, labels },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: 'probe',
          image,
          command: ['/probe', ...args],
          env: Object.entries(env).map(([n, value]) => ({ name: n, value })),
          ports: [{ containerPort: 8080 }],
        },
      ],
    },
  };
}

async function phase(name: string): Promise<string> {
  return kubectl('get', 'pod', '-n', ns, name, '-o', 'jsonpath={.status.phase}');
}

/** The machine before the node, read once the node lock is held. */
let before: MachineState;
// At collection time, where no timeout applies (test/envtest/deferred-tools.ts).
const nodeBinaries = await envtestNodeBinaries();
let registryHost = '';

async function processes(): Promise<string[]> {
  return (await exec('ps', ['-eo', 'pid=,args='], { env: { PATH } })).stdout.split('\n');
}

function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter((l) => l.includes(dir));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** What a node runs now: containerd tasks, their pids and the shims' pids; mounts exist. */
async function whatRuns(n: NodeInfo): Promise<{ tasks: number; pids: number[] }> {
  const listing = (await exec('ctr', ['--address', n.containerdSocket, '-n', 'k8s.io', 'tasks', 'ls'], { env: { PATH } })).stdout
    .split('\n')
    .slice(1);
  const taskPids = listing.map((l) => Number(l.trim().split(/\s+/)[1])).filter((p) => p > 0);
  expect(filesOutside().length).toBeGreaterThan(before.files.length);
  const shimPids = (await processes())
    .filter((l) => l.includes('containerd-shim') && l.includes(n.containerdSocket))
    .map((l) => Number.parseInt(l, 10));
  expect(shimPids.length).toBeGreaterThan(0);
  expect(mountsUnder(n.dir).length).toBeGreaterThan(0);
  expect((await iptablesChains()).some((c) => c.includes('KUBE-SERVICES'))).toBe(true);
  return { tasks: taskPids.length, pids: [...taskPids, ...shimPids] };
}

/** Nothing of the node is left: processes, mounts, bridge, iptables chains, files, directory. */
async function expectNothingLeft(n: NodeInfo, dir: string, running: { pids: number[] }, was: MachineState): Promise<void> {
  expect(filesOutside()).toEqual(was.files);
  expect(running.pids.filter(alive)).toEqual([]);
  expect(mountsUnder(n.dir)).toEqual([]);
  await expect(exec('ip', ['link', 'show', n.bridge], { env: { PATH } })).rejects.toThrow();
  expect(await iptablesChains()).toEqual(was.chains);
  expect((await processes()).filter((l) => l.includes(n.dir) || l.includes(dir))).toEqual([]);
  expect(existsSync(dir)).toBe(false);
  expect(existsSync('/run/olmv1-local-node.lock')).toBe(false);
  expect(readFileSync('/proc/sys/net/ipv4/ip_forward', 'utf8').trim()).toBe(was.ipForward);
}

beforeAll(async () => {
  const log = (line: string): void => console.error(line);
  const env = process.env;
  const cacheRoot = defaultCacheRoot(env);
  const probe = await buildGoProgram(
    { name: 'node-probe', source: await readFile(join(import.meta.dirname, '../fixtures/node-probe/main.go'), 'utf8') },
    cacheRoot,
    await findGoToolchain(env),
    log,
  );
  const registry = inject('envtestRegistries').anonymous;
  registryHost = registry.host;
  image = `${registry.host}/node-probe:${Date.now().toString(36)}`;
  await createImageClient({ insecureRegistries: ['127.0.0.1'] }).push(
    image,
    buildImage({ layers: [buildLayer([{ path: 'probe', type: 'file', data: await readFile(probe), mode: 0o755 }])] }),
  );
  const started = Date.now();
  cp = await startControlPlane({
    binaries: { ...inject('envtestBinaries'), node: nodeBinaries },
    node: {
      plainHttpRegistries: [registry.host],
      log,
      onLocked: async () => {
        before = await machineState();
      },
    },
  });
  startupMs = Date.now() - started;
  if (cp.node === undefined) throw new Error('startControlPlane returned no node');
  node = cp.node;
  console.error(`control plane + node Ready in ${startupMs} ms (Node Ready ${node.readyAfterMs} ms after the kubelet started)`);
});

afterAll(async () => {
  await cp?.stop();
});

describe('a real node', () => {
  it('is Ready, with its bridge address as InternalIP', async () => {
    const nodeObj = JSON.parse(await kubectl('get', 'node', node.name, '-o', 'json')) as {
      status: {
        conditions: Array<{ type: string; status: string }>;
        addresses: Array<{ type: string; address: string }>;
        nodeInfo: { kubeletVersion: string };
      };
    };
    expect(nodeObj.status.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(nodeObj.status.addresses).toContainEqual({ type: 'InternalIP', address: node.hostIp });
    expect(nodeObj.status.nodeInfo.kubeletVersion).toBe(inject('envtestBinaries').versions.kubeApiserver);
    expect(startupMs).toBeGreaterThan(0);
  });

  it('runs Pods that reach the API server, cluster DNS and each other through Services; kubectl logs works', async () => {
    await kubectl('create', 'namespace', ns);
    const account = async (): Promise<string> => (await kubectl('get', 'serviceaccount', '-n', ns, 'default', '-o', 'name').catch(() => '')).trim();
    await expect.poll(account, { timeout: 30_000 }).toBe('serviceaccount/default');
    await apply(pod('echo', { app: 'echo' }, ['serve']));
    await apply({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'echo', namespace: ns },
      spec: { selector: { app: 'echo' }, ports: [{ port: 80, targetPort: 8080 }] },
    });
    await expect.poll(() => phase('echo'), { timeout: 60_000, interval: 500 }).toBe('Running');
    await apply(pod('check', { app: 'check' }, ['check'], { PEER_URL: `http://echo.${ns}.svc.cluster.local/` }));
    await expect.poll(() => phase('check'), { timeout: 60_000, interval: 500 }).toBe('Running');

    const resultLine = async (): Promise<string> => (await kubectl('logs', '-n', ns, 'check')).split('\n').find((l) => l.startsWith('RESULT ')) ?? '';
    await expect.poll(resultLine, { timeout: 120_000, interval: 1000 }).toMatch(/^RESULT /);
    const result = JSON.parse((await resultLine()).slice('RESULT '.length)) as Record<string, unknown>;
    expect(result).toMatchObject({ resolved: ['10.0.0.1'], healthz: 'ok', peer: 'hello from echo' });
    expect(result['lastError']).toBeUndefined();
    expect(JSON.parse(result['version'] as string)).toMatchObject({ gitVersion: inject('envtestBinaries').versions.kubeApiserver });
    expect(result['outside']).toMatch(/network is unreachable/);
    expect(await kubectl('logs', '-n', ns, 'echo')).toContain('probe serving on :8080');
  });

  it('kubectl exec works', async () => {
    // The probe without arguments prints its usage and exits 2: the command ran in the container.
    const err = await kubectl('exec', '-n', ns, 'echo', '--', '/probe').then(
      () => undefined,
      (e: Error & { stderr?: string }) => e,
    );
    expect(err?.stderr).toContain('usage: probe serve|check');
  });

  it('stop() leaves no container, shim, mount, bridge, iptables chain, process or directory', async () => {
    const running = await whatRuns(node);
    expect(running.tasks).toBeGreaterThanOrEqual(4); // two Pods: two sandboxes, two containers
    await cp.stop();
    await expectNothingLeft(node, cp.info.dir, running, before);
  });
});

describe('a node whose starter dies', () => {
  it('is cleaned up by the reaper: no container, shim, mount, bridge, iptables chain, process or directory', async () => {
    const child = spawn(process.execPath, [join(import.meta.dirname, 'node-child.ts')], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, NODE_CHILD: JSON.stringify({ binaries: { ...inject('envtestBinaries'), node: nodeBinaries }, registry: registryHost }) },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await expect.poll(() => out.includes('\n'), { timeout: 120_000, interval: 200 }).toBe(true);
      const started = JSON.parse(out.split('\n')[0] ?? '') as {
        node: NodeInfo;
        dir: string;
        kubeconfig: string;
        kubectl: string;
        before: MachineState;
      };
      const childKubectl = async (...args: string[]): Promise<string> =>
        (await exec(started.kubectl, ['--kubeconfig', started.kubeconfig, ...args])).stdout;
      const manifest = JSON.stringify({
        ...(pod('orphan', { app: 'orphan' }, ['serve']) as { metadata: object }),
        metadata: { name: 'orphan', namespace: 'default' },
      });
      const apply = execFile(started.kubectl, ['--kubeconfig', started.kubeconfig, 'apply', '-f', '-']);
      apply.stdin?.end(manifest);
      await new Promise((resolve) => apply.on('exit', resolve));
      await expect
        .poll(() => childKubectl('get', 'pod', 'orphan', '-o', 'jsonpath={.status.phase}'), { timeout: 60_000, interval: 500 })
        .toBe('Running');
      const running = await whatRuns(started.node);
      expect(running.tasks).toBeGreaterThanOrEqual(2);
      child.kill('SIGKILL');
      await expect.poll(() => existsSync(started.dir), { timeout: 60_000, interval: 500 }).toBe(false);
      await expectNothingLeft(started.node, started.dir, running, started.before);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
