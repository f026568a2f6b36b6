// OLM upgrading itself (issue 72, 'OLM upgrading itself'), as upstream's test/upgrade-e2e does:
// the previous release, made by that commit's own `npm run release` (scripts/release.ts of a
// `git worktree` of PREVIOUS), is installed on a fresh cluster (a real node, cert-manager) with
// its install.sh, the example catalog added and config/samples' ClusterExtension installed under
// the Helm runtime. HEAD's release is then applied with HEAD's install.sh: while it rolls out,
// the extension's Installed condition is read every half second and never leaves True; after
// it, both components run HEAD's image, the extension's release record Secrets are the same
// (names, so revision numbers, and uids), its operator Pod is the same Pod (uid), and it is
// Installed and Healthy under the new version. Last, the previous release applied again (a
// downgrade; safe between these two commits, whose CRDs are the same: docs/release.md) leaves
// the extension as untouched. The BoxcutterRuntime is not covered here (docs/release.md).
// Unsigned releases: signatures are release-install-on-node.test.ts's subject. Runs only with
// OLMV1_TEST_SELF_UPGRADE=1, skipped with a warning otherwise: docs/release.md ("Tested on a real
// node (an opt-in)") has the command and the build times that keep it out of the default suite.
import { execFile, execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pushExample } from '../../cmd/olmv1/up-example.ts';
import { DEPLOYMENTS, deployCertManager, startNodeRegistry, SYSTEM_NAMESPACE, type Kubectl } from '../../pkg/olmv1/in-cluster/index.ts';
import { runCommand, startControlPlane, type ControlPlane, type Registry } from '../../pkg/olmv1/localstack/index.ts';
import { envtestCertManager, envtestNodeBinaries } from '../envtest/deferred-tools.ts';
import { condition, kube, nodeEnv, nodeUnavailable, REPO, timed as timedBy, type Obj } from '../support/on-node.ts';

const exec = promisify(execFile);
/**
 * Opt-in, not in the default suite: the previous release's image build (and HEAD's, where no
 * other on-node file built it yet) costs more of the on-node lane, CI's critical path, than it
 * has to spare (docs/release.md, "Tested on a real node", has the figures and the command).
 */
const OPT_IN = 'OLMV1_TEST_SELF_UPGRADE';
const missing =
  process.env[OPT_IN] === '1'
    ? nodeUnavailable()
    : `${OPT_IN}=1 is not set (an opt-in: the previous release's image build is too slow for the default suite; docs/release.md)`;
if (missing !== undefined) console.warn(`release-upgrade-on-node.test.ts skipped: ${missing}`);

/** The previous release's commit (the last landed stop's); any commit with scripts/release.ts serves. */
const PREVIOUS = 'd13074b';
const head = execFileSync('git', ['-C', REPO, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
const log = (line: string): void => console.error(`release-upgrade-on-node: ${line}`);
const timed = (name: string, started: number): void => timedBy(log, name, started);
const tools = missing === undefined ? { node: await envtestNodeBinaries(log), certManager: await envtestCertManager(log) } : undefined;

interface MadeRelease {
  imageRef: string;
  dir: string;
}
interface Snapshot {
  records: string[];
  operatorPods: string[];
}

let cp: ControlPlane | undefined;
let registry: Registry | undefined;
let work = '';
let worktree = '';
let binDir = '';
let kubectl: Kubectl;
let k: ReturnType<typeof kube>;
let previous: MadeRelease;
let current: MadeRelease;
let catalogRef = '';
let before: Snapshot;

/** `scripts/release.ts` of the checkout `root` (its HEAD) into the release registry. */
async function release(root: string, version: string): Promise<MadeRelease> {
  const { stdout, stderr } = await exec(
    join(REPO, 'node_modules/.bin/node'),
    [
      join(root, 'scripts/release.ts'),
      '--version',
      version,
      '--registry',
      `${registry?.host}/olmv1/olmv1`,
      '--plain-http',
      '--out',
      join(work, 'releases'),
    ],
    { env: nodeEnv, maxBuffer: 64 * 1024 * 1024 },
  );
  // The image's line: built or found, in how long, how many steps the layer cache gave.
  for (const line of stderr.split('\n')) if (/ (built|found) in |layer cache/.test(line)) log(`${version}: ${line}`);
  return JSON.parse(stdout) as MadeRelease;
}

/** `./install.sh` of a release with kubectl and KUBECONFIG alone, the release registry plain HTTP, the example catalog. */
async function install(made: MadeRelease): Promise<string> {
  const { stdout } = await exec('bash', ['-c', 'sha256sum --check SHA256SUMS && ./install.sh'], {
    cwd: made.dir,
    env: {
      PATH: `${binDir}:/usr/bin:/bin`,
      HOME: work,
      KUBECONFIG: cp?.info.kubeconfigPath ?? '',
      OLMV1_INSECURE_REGISTRIES: registry?.host ?? '',
      OLMV1_CATALOG_IMAGE: catalogRef,
      OLMV1_CATALOG_NAME: 'example-catalog',
    },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

/** The extension's release record Secrets (name/uid: revision numbers and identity) and its operator Pods (name/uid). */
async function snapshot(): Promise<Snapshot> {
  const ids = (objs: Obj[]): string[] =>
    objs.map((o) => `${o.metadata.name}/${(o.metadata as { uid?: string }).uid ?? ''}`).sort((a, b) => a.localeCompare(b));
  return {
    records: ids(await k.list(['secrets', '-n', SYSTEM_NAMESPACE, '-l', 'owner=operator-controller,name=example-operator'])),
    operatorPods: ids(await k.list(['pods', '-n', 'example-operator'])),
  };
}

/** Applies `made` while reading the extension's Installed condition every half second; returns every value read. */
async function applyWatchingInstalled(made: MadeRelease): Promise<string[]> {
  const seen: string[] = [];
  let done = false;
  const watcher = (async () => {
    while (!done) {
      seen.push(condition(await k.get(['clusterextension', 'example-operator']), 'Installed') ?? 'absent');
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  try {
    const out = await install(made);
    expect(out).toContain('is installed');
  } finally {
    done = true;
    await watcher;
  }
  return seen;
}

/** Both components' Pods, once the rollout is over: each runs `imageRef`. */
async function productImages(): Promise<string[]> {
  const pods = (await k.list(['pods', '-n', SYSTEM_NAMESPACE])) as Array<Obj & { spec: { containers: Array<{ image: string }> } }>;
  return [
    ...new Set(
      pods
        .filter((p) => (p.metadata as { deletionTimestamp?: string }).deletionTimestamp === undefined)
        .flatMap((p) => p.spec.containers.map((c) => c.image)),
    ),
  ];
}

async function expectUntouchedAndHealthy(): Promise<void> {
  await kubectl(['wait', '--for=condition=Installed', 'clusterextension/example-operator', '--timeout=120s']);
  await kubectl(['wait', '--for=condition=Healthy', 'clusterextension/example-operator', '--timeout=120s']);
  expect(await snapshot()).toEqual(before);
}

beforeAll(async () => {
  if (tools === undefined) return;
  const started = Date.now();
  work = await mkdtemp(join(tmpdir(), 'olmv1-upgrade-e2e-'));
  worktree = join(work, 'previous');
  await runCommand('git', ['-C', REPO, 'worktree', 'add', '--detach', worktree, PREVIOUS], { env: nodeEnv });
  // The previous commit's scripts run with this checkout's packages (its package-lock is the same
  // or close; the image build runs its own `npm ci` from its lock).
  await symlink(join(REPO, 'node_modules'), join(worktree, 'node_modules'));
  binDir = join(work, 'bin');
  await mkdir(binDir);
  await symlink(inject('envtestBinaries').kubectl, join(binDir, 'kubectl'));

  cp = await startControlPlane({ binaries: { ...inject('envtestBinaries'), node: tools.node }, node: { log } });
  const info = cp.info;
  kubectl = async (args, input) =>
    (await runCommand(info.kubectl, ['--kubeconfig', info.kubeconfigPath, ...args], input === undefined ? {} : { input })).stdout;
  k = kube(kubectl);
  timed('control plane and node', started);
  registry = await startNodeRegistry(cp, inject('envtestBinaries'), work);
  const host = registry.host;
  const certManager = deployCertManager({ kubectl, registry: host, binaries: tools.certManager, log }).then(() => timed('cert-manager', started));
  // HEAD's first: its image is the one the other on-node files built (found by its tree's key,
  // which marks it used, so the previous release's build keeps it); the previous release's build
  // then reuses the dependency layers of the same package-lock.json (pkg/olmv1/images).
  const releases = (async () => {
    current = await release(REPO, 'v0.0.0-head');
    timed(`HEAD release (${head.slice(0, 7)})`, started);
    previous = await release(worktree, 'v0.0.0-previous');
    timed(`previous release (${PREVIOUS})`, started);
    await mkdir(join(work, 'example'));
    catalogRef = (await pushExample(REPO, host, [host], join(work, 'example'), nodeEnv)).catalogRef;
  })();
  await Promise.all([certManager, releases]);
}, 1_800_000);

afterAll(async () => {
  await registry?.stop();
  await cp?.stop();
  if (worktree !== '') await runCommand('git', ['-C', REPO, 'worktree', 'remove', '--force', worktree], { env: nodeEnv }).catch(() => undefined);
  if (work !== '') await rm(work, { recursive: true, force: true });
}, 120_000);

describe.skipIf(missing !== undefined)('the previous release upgraded to HEAD with an extension installed', () => {
  it('installs the previous release and the example extension, Installed and Healthy', async () => {
    const started = Date.now();
    expect(previous.imageRef).not.toBe(current.imageRef);
    await install(previous);
    expect(await productImages()).toEqual([previous.imageRef]);
    for (const sample of ['example-operator-installer.yaml', 'olm_v1_clusterextension.yaml'])
      await kubectl(['apply', '-f', join(REPO, 'config/samples', sample)]);
    await kubectl(['wait', '--for=condition=Installed', 'clusterextension/example-operator', '--timeout=300s']);
    await kubectl(['wait', '--for=condition=Healthy', 'clusterextension/example-operator', '--timeout=300s']);
    before = await snapshot();
    expect(before.records.length).toBeGreaterThan(0);
    expect(before.operatorPods.length).toBe(1);
    timed('previous release with the extension', started);
  }, 900_000);

  it('upgrades to HEAD: Installed stays True throughout, the same records and operator Pod, Healthy under the new version', async () => {
    const started = Date.now();
    const seen = await applyWatchingInstalled(current);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((s) => s !== 'True')).toEqual([]);
    expect(await productImages()).toEqual([current.imageRef]);
    for (const d of DEPLOYMENTS) expect(condition(await k.get(['deployment', '-n', SYSTEM_NAMESPACE, d]), 'Available')).toBe('True');
    await expectUntouchedAndHealthy();
    timed(`upgrade (${seen.length} reads of Installed)`, started);
  }, 600_000);

  it('goes back down to the previous release, leaving the extension untouched', async () => {
    const started = Date.now();
    const seen = await applyWatchingInstalled(previous);
    expect(seen.filter((s) => s !== 'True')).toEqual([]);
    expect(await productImages()).toEqual([previous.imageRef]);
    await expectUntouchedAndHealthy();
    timed('downgrade', started);
  }, 600_000);
});
