// `olmv1 up` (npm start) end to end, as a newcomer runs it: from a clean checkout of HEAD
// (node_modules symlinked, an empty .olmv1/), `node cmd/olmv1/main.ts up` starts; once it
// prints that it is ready, the documented commands install the example operator with the
// written kubectl and kubeconfig and the printed catalog URL serves the example catalog; SIGINT
// then stops everything: no process it started is alive, none of the printed ports listens,
// and no temp file is left (its TMPDIR is private to this test, so "left" is exact).
// The binaries come from the cache the integration global setup resolved (no build here).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isAlive } from '../../pkg/olmv1/localstack/index.ts';
import { createImageClient } from '../../pkg/shared/image/index.ts';
import { checkoutHead, processesMentioning, readmeWalkthrough } from '../support/up-checkout.ts';

const exec = promisify(execFile);
const REPO = fileURLToPath(new URL('../../', import.meta.url));

let checkout: string;
let privateTmp: string;
let up: ChildProcess;
let stdout = '';
let stderr = '';
let exited: Promise<number | null>;

/** Pids of every live descendant of `root`, read from /proc. */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  const out: number[] = [];
  const walk = (pid: number): void => {
    for (const [child, ppid] of parent) if (ppid === pid) (out.push(child), walk(child));
  };
  walk(root);
  return out;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = netConnect({ host: '127.0.0.1', port }, () => (socket.destroy(), resolve(true)));
    socket.on('error', () => resolve(false));
  });
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  await vi.waitFor(
    async () => {
      if (!(await check())) throw new Error(`timed out waiting for ${what}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`);
    },
    { timeout: timeoutMs, interval: 100 },
  );
}

beforeAll(async () => {
  checkout = await mkdtemp(join(tmpdir(), 'olmv1-up-e2e-checkout-'));
  privateTmp = await mkdtemp(join(tmpdir(), 'olmv1-up-e2e-tmp-'));
  checkoutHead(REPO, checkout);
  await symlink(join(REPO, 'node_modules'), join(checkout, 'node_modules'));
  await mkdir(join(checkout, '.olmv1'));
  up = spawn(process.execPath, ['cmd/olmv1/main.ts', 'up'], {
    cwd: checkout,
    env: { ...process.env, TMPDIR: privateTmp },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  up.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  up.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  exited = new Promise((resolve) => up.once('exit', (code) => resolve(code)));
  await until('olmv1 up to print that it is ready', () => stdout.includes('Ctrl-C stops everything.') || up.exitCode !== null, 120_000);
  if (up.exitCode !== null) throw new Error(`olmv1 up exited with ${up.exitCode}\n${stderr}`);
}, 180_000);

afterAll(async () => {
  if (up !== undefined && up.exitCode === null) up.kill('SIGKILL');
  if (checkout !== undefined) await rm(checkout, { recursive: true, force: true });
  if (privateTmp !== undefined) await rm(privateTmp, { recursive: true, force: true });
});

describe('olmv1 up from a clean checkout', () => {
  const kubectl = (...args: string[]) => exec('.olmv1/bin/kubectl', ['--kubeconfig', '.olmv1/kubeconfig', ...args], { cwd: checkout });
  const field = (label: string): string => new RegExp(`^  ${label} +(\\S+)`, 'm').exec(stdout)?.[1] ?? '';
  // The example operator's install, which several tests read: the first test that needs it
  // applies config/samples/ with the written kubectl, the others wait for that same install,
  // so any one of them runs alone.
  let sampleInstall: Promise<void> | undefined;
  const exampleInstalled = (): Promise<void> =>
    (sampleInstall ??= (async () => {
      await kubectl('apply', '-f', 'config/samples/');
      await kubectl('wait', '--for=condition=Installed', 'clusterextension/example-operator', '--timeout=60s');
    })());

  it('prints where everything is and writes the kubeconfig, kubectl and stack.json', () => {
    expect(stdout).toMatch(/^olmv1 local stack is ready$/m);
    expect(field('kubeconfig')).toBe('.olmv1/kubeconfig');
    expect(field('kubectl')).toBe('.olmv1/bin/kubectl');
    expect(field('registry')).toBe('127.0.0.1:5001');
    // Without --node, it says so: the example operator's Pod will stay Pending.
    expect(stdout).toMatch(/^  node +none: Pods stay Pending \(olmv1 up --node runs them\)$/m);
    expect(field('catalog URL')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/catalogs\/example-catalog$/);
    expect(stdout).toContain('.olmv1/bin/kubectl --kubeconfig .olmv1/kubeconfig apply -f config/samples/');
    const stack = JSON.parse(readFileSync(join(checkout, '.olmv1/stack.json'), 'utf8')) as {
      pid: number;
      apiServer: string;
      catalog: { url: string };
    };
    expect(stack.pid).toBe(up.pid);
    expect(stack.apiServer).toBe(field('API server'));
    expect(stack.catalog.url).toBe(field('catalog URL'));
  });

  it('installs the example operator from config/samples with the written kubectl', async () => {
    await exampleInstalled();
    const { stdout: json } = await kubectl('get', 'clusterextension', 'example-operator', '-o', 'json');
    const status = (JSON.parse(json) as { status: { install: { bundle: { name: string } }; conditions: Array<{ type: string; status: string }> } })
      .status;
    expect(status.install.bundle.name).toBe('example-operator.v1.0.0');
    expect(status.conditions.find((c) => c.type === 'Installed')?.status).toBe('True');
    // What the bundle holds is on the cluster, owned by the extension.
    await kubectl('get', 'crd', 'greetings.demo.example.com');
    await kubectl('get', 'deployment', '-n', 'example-operator', 'example-operator-controller');
    // The Deployment names the operator image up built and pushed, by digest, and that image
    // is in the stack's registry: the pinned binary, run as a numeric non-root user.
    const image = (
      await kubectl(
        'get',
        'deployment',
        '-n',
        'example-operator',
        'example-operator-controller',
        '-o',
        'jsonpath={.spec.template.spec.containers[0].image}',
      )
    ).stdout;
    expect(image).toMatch(/^127\.0\.0\.1:5001\/olmv1\/example-operator@sha256:[0-9a-f]{64}$/);
    const client = createImageClient({ insecureRegistries: ['127.0.0.1:5001'] });
    try {
      const pulled = await client.readImageFiles(image);
      expect(pulled.digestRef).toBe(image);
      expect([...pulled.files.keys()]).toContain('example-operator');
      expect((pulled.config.raw as { config?: { User?: string } }).config?.User).toBe('65532:65532');
    } finally {
      client.close();
    }
  });

  it("shows the install as an Event, a failing extension's reason at a glance, and what exists for a typo'd package", async () => {
    await exampleInstalled();
    // The Event is written by the running operator-controller shortly after the install: wait for it.
    let events = '';
    await until(
      'the Installed Event',
      async () =>
        /Installed/.test(
          (events = (await kubectl('get', 'events.events.k8s.io', '-n', 'default', '--field-selector', 'regarding.name=example-operator')).stdout),
        ),
      60_000,
    );
    expect(events).toMatch(/Normal\s+Installed\s+clusterextension\/example-operator/);
    // Upstream's YAML (no serviceAccount: the local stack's default installer) with a typo in the package.
    const typo = JSON.stringify({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterExtension',
      metadata: { name: 'typo' },
      spec: { namespace: 'example-operator', source: { sourceType: 'Catalog', catalog: { packageName: 'example-operatr' } } },
    });
    const apply = spawn('.olmv1/bin/kubectl', ['--kubeconfig', '.olmv1/kubeconfig', 'apply', '-f', '-'], { cwd: checkout });
    apply.stdin.end(typo);
    await new Promise((resolve) => apply.on('exit', resolve));
    await kubectl('wait', '--for=jsonpath={.status.conditions[?(@.type=="Progressing")].reason}=Retrying', 'clusterextension/typo', '--timeout=60s');
    const { stdout: table } = await kubectl('get', 'clusterextension', 'typo');
    expect(table).toMatch(/typo\s+False\s+True\s+Retrying/);
    const { stdout: message } = await kubectl(
      'get',
      'clusterextension',
      'typo',
      '-o',
      'jsonpath={.status.conditions[?(@.type=="Progressing")].message}',
    );
    // Upstream's message alone; the close package name is in the Warning Event kubectl describe shows.
    expect(message).toBe('no bundles found for package "example-operatr"');
    let described = '';
    await until(
      'kubectl describe shows the ResolutionFailed Event',
      async () => /ResolutionFailed/.test((described = (await kubectl('describe', 'clusterextension', 'typo')).stdout)),
      60_000,
    );
    expect(described).toContain('the selected catalogs have no package "example-operatr"; packages with similar names: "example-operator"');
    await kubectl('delete', 'clusterextension', 'typo', '--wait=true', '--timeout=60s');
  });

  it('olmv1 status finds the running stack and reports its catalog, the extension and the upgrade verdict', async () => {
    await exampleInstalled();
    const env = { ...process.env };
    delete env.KUBECONFIG;
    const { stdout: json } = await exec(process.execPath, ['cmd/olmv1/main.ts', 'status', '--cluster-version', '4.18', '-o', 'json'], {
      cwd: checkout,
      env,
    });
    const report = JSON.parse(json) as {
      schemaVersion: number;
      catalogs: Array<{ name: string; serving: boolean; contentURL: string | null }>;
      extensions: Array<{ name: string; installedBundle: string | null; installed: { status: string } | null }>;
      verdict: { upgradeable: boolean };
    };
    expect(report.schemaVersion).toBe(1);
    expect(report.catalogs).toEqual([expect.objectContaining({ name: 'example-catalog', serving: true, contentURL: field('catalog URL') })]);
    expect(report.extensions).toEqual([
      expect.objectContaining({
        name: 'example-operator',
        installedBundle: 'example-operator.v1.0.0',
        installed: expect.objectContaining({ status: 'True' }),
      }),
    ]);
    expect(report.verdict.upgradeable).toBe(true);
  });

  // Without KUBECONFIG and with a HOME that holds no kubeconfig: only the running up can be found.
  const olmv1 = (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: privateTmp };
    delete env.KUBECONFIG;
    return new Promise((resolve) =>
      execFile(process.execPath, ['cmd/olmv1/main.ts', ...args], { cwd: checkout, env }, (err, out, errOut) =>
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout: out, stderr: errOut }),
      ),
    );
  };

  it('olmv1 release list finds the running stack by itself', async () => {
    await exampleInstalled();
    const r = await olmv1('release', 'list');
    expect(r, r.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(
      /^NAME +REVISION +UPDATED +STATUS +BUNDLE +VERSION\nexample-operator +1 +\S+ +deployed +example-operator\.v1\.0\.0 +1\.0\.0\n$/,
    );
  });

  it('olmv1 status without a cluster version prints the whole report and, as no bundle declares olm.maxOpenShiftVersion, allows the upgrade (exit 0)', async () => {
    await exampleInstalled();
    const json = await olmv1('status', '-o', 'json');
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as {
      cluster: Record<string, unknown>;
      catalogs: Array<{ name: string }>;
      extensions: Array<{ name: string; installedBundle: string | null; maxOpenShiftVersion: string | null }>;
      verdict: { upgradeable: boolean; blockers: unknown[] };
    };
    expect(report.cluster).toEqual({
      currentVersion: null,
      versionSource: null,
      nextVersion: null,
      versionError: 'the cluster serves no config.openshift.io/v1 ClusterVersion API (it is not OpenShift)',
    });
    expect(report.catalogs.map((c) => c.name)).toEqual(['example-catalog']);
    expect(report.extensions).toEqual([
      expect.objectContaining({ name: 'example-operator', installedBundle: 'example-operator.v1.0.0', maxOpenShiftVersion: null }),
    ]);
    expect(report.verdict).toMatchObject({ upgradeable: true, blockers: [] });
    const table = await olmv1('status');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^CATALOGS\n/);
    expect(table.stdout).toContain(
      'cluster upgrade: allowed, whatever the cluster version\n  no installed extension declares olm.maxOpenShiftVersion\n',
    );
  });

  it('serves the console at the printed URL: its token opens a session, without it nothing is served', async () => {
    const url = field('console');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    const origin = new URL(url).origin;
    expect((await fetch(`${origin}/`, { redirect: 'manual' })).status).toBe(401);
    const first = await fetch(url, { redirect: 'manual' });
    expect(first.status).toBe(303);
    const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const page = await fetch(`${origin}/`, { headers: { cookie }, redirect: 'manual' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('serves the example catalog at the printed URL', async () => {
    const res = await fetch(`${field('catalog URL')}/api/v1/all`);
    expect(res.status).toBe(200);
    const docs = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { schema: string; name?: string; package?: string });
    expect(docs.filter((d) => d.schema === 'olm.package').map((d) => d.name)).toEqual(['example-operator']);
    expect(
      docs
        .filter((d) => d.schema === 'olm.channel')
        .map((d) => d.name)
        .sort(),
    ).toEqual(['candidate', 'stable']);
    expect(docs.filter((d) => d.schema === 'olm.bundle')).toHaveLength(4);
    expect(docs.filter((d) => d.schema === 'olm.deprecations')).toHaveLength(1);
  });

  // The README's walk-through, extracted from the checkout's README.md and run as written (bash,
  // its alias, curl, jq, npm) but for its wait for Healthy, which needs a node (`up --node`,
  // test/e2e/local-stack-node.test.ts runs all of it): what a newcomer pastes must work on the
  // stack `up` printed.
  it("runs the README's local stack commands as written, but for the wait for Healthy", async () => {
    const walkthrough = readmeWalkthrough(checkout);
    expect(walkthrough).toContain("alias k='.olmv1/bin/kubectl --kubeconfig .olmv1/kubeconfig'");
    expect(walkthrough).toMatch(/^k wait --for=condition=Healthy /m);
    const script = walkthrough
      .split('\n')
      .filter((l) => !l.startsWith('k wait --for=condition=Healthy '))
      .join('\n');
    // npm writes its cache and logs under HOME: a home of its own keeps privateTmp exact.
    const home = await mkdtemp(join(tmpdir(), 'olmv1-up-e2e-home-'));
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, npm_config_update_notifier: 'false' };
      delete env.KUBECONFIG;
      const { stdout: out } = await exec('bash', ['-c', script], { cwd: checkout, env, maxBuffer: 64 * 1024 * 1024 });
      expect(out).toContain('"schema":"olm.package"');
      expect(out).toMatch(/^example-operator +.*example-operator\.v1\.0\.0/m);
      expect(out).toContain(
        'error upgrading from currently installed version "1.0.0": no bundles found for package "example-operator" matching version "0.2.0" in channels [stable]',
      );
      expect(out).toMatch(/^NAME +REVISION +UPDATED +STATUS +BUNDLE +VERSION\nexample-operator +1 /m);
      expect(out).toMatch(/^CATALOGS\n/m);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 180_000);

  // kube-controller-manager runs in the local control plane: namespaces finish deleting,
  // Deployments get ReplicaSets (never running Pods: no scheduler, no kubelet), and its garbage
  // collector, running since start-up, left the extension's release records (owned by the
  // ClusterExtension, which exists) alone.
  it('runs kube-controller-manager: kubectl delete namespace completes, Deployments get ReplicaSets, owned records stay', async () => {
    await exampleInstalled();
    await kubectl('create', 'namespace', 'short-lived');
    await kubectl('-n', 'short-lived', 'create', 'configmap', 'content', '--from-literal=a=b');
    await kubectl('delete', 'namespace', 'short-lived', '--timeout=60s');
    const { stdout: gone } = await kubectl('get', 'namespace', 'short-lived', '--ignore-not-found', '-o', 'name');
    expect(gone).toBe('');

    await kubectl('create', 'namespace', 'apps');
    await kubectl('-n', 'apps', 'create', 'deployment', 'web', '--image=example.invalid/web:1');
    await kubectl('-n', 'apps', 'wait', '--for=create', 'replicaset', '-l', 'app=web', '--timeout=60s');
    const { stdout: rs } = await kubectl(
      '-n',
      'apps',
      'get',
      'replicaset',
      '-l',
      'app=web',
      '-o',
      'jsonpath={.items[0].metadata.ownerReferences[0].name}',
    );
    expect(rs).toBe('web');
    // The example operator's Deployment, installed by the extension, gets one as well.
    await until(
      "a ReplicaSet of the example operator's Deployment",
      async () =>
        (await kubectl('-n', 'example-operator', 'get', 'replicaset', '-o', 'jsonpath={.items[*].metadata.ownerReferences[0].name}')).stdout
          .split(' ')
          .includes('example-operator-controller'),
      60_000,
    );

    const records = await olmv1('release', 'list');
    expect(records.stdout).toMatch(/^example-operator +\d+ /m);
  });

  it('stops everything on SIGINT and leaves no process, listening port or temp file behind', async () => {
    const pid = up.pid ?? 0;
    const children = descendants(pid);
    const mentioning = [...processesMentioning(privateTmp), ...processesMentioning(checkout)];
    // etcd, kube-apiserver, kube-controller-manager, the registry, catalogd, operator-controller and the reapers.
    expect(children.length).toBeGreaterThanOrEqual(5);
    expect(mentioning.length).toBeGreaterThanOrEqual(4);
    const ports = [...stdout.matchAll(/127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1]));
    expect(new Set(ports).size).toBeGreaterThanOrEqual(5);
    for (const port of new Set(ports)) expect(await listening(port), `port ${port}`).toBe(true);

    up.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stderr).toContain('olmv1 up: stopped; nothing left running');
    await until('every process olmv1 up started to exit', () => [...children, ...mentioning].every((p) => !isAlive(p)), 10_000);
    expect(processesMentioning(privateTmp)).toEqual([]);
    expect(processesMentioning(checkout)).toEqual([]);
    for (const port of new Set(ports)) expect(await listening(port), `port ${port}`).toBe(false);
    expect(await readdir(privateTmp)).toEqual([]);
    expect((await readdir(join(checkout, '.olmv1'))).sort()).toEqual(['bin', 'logs']);
    // The components log readable lines there (--log-format text), one a record, not JSON.
    for (const component of ['catalogd', 'operator-controller']) {
      const lines = readFileSync(join(checkout, '.olmv1', 'logs', `${component}.log`), 'utf8')
        .split('\n')
        .filter((l) => l !== '');
      expect(lines.length, component).toBeGreaterThan(0);
      // A record with a `name` field (controller-runtime's `reconcile ending` has one) shows it in parentheses, as pino-pretty does.
      for (const line of lines) expect(line).toMatch(/^\[\d{4}-\d\d-\d\dT[\d:.]+Z\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL)( \([^)]+\))?: \S/);
    }
  });
});
