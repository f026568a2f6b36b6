// OLM upgrading itself (issue 72, 'OLM upgrading itself'), as upstream's test/upgrade-e2e does:
// the previous release, made by that commit's own `npm run release` (scripts/release.ts of a
// `git worktree` of PREVIOUS), is installed on a fresh cluster (a real node, cert-manager) with
// its install.sh, the example catalog added and config/samples' ClusterExtension installed under
// the Helm runtime. HEAD's release is then applied with HEAD's install.sh: while it rolls out,
// the extension's Installed condition is read every half second and never leaves True; after
// it, both components run HEAD's image, the extension's release record Secrets are the same
// (names, so revision numbers, and uids), its operator Pod is the same Pod (uid), and it is
// Installed and Healthy under the new version. Then the previous release applied again (a
// downgrade; safe between these two commits, whose CRDs are the same: docs/release.md) leaves
// the extension as untouched. Last, the BoxcutterRuntime: each release's manifest with its own
// commit's config/boxcutter (the ClusterObjectSet CRD, the grants, the gate), applied as
// install.sh applies its manifest; the extension, installed anew under the previous release
// with the gate, keeps its ClusterObjectSets (names, uids) and its operator Pod through the
// upgrade to HEAD with the gate, Installed True at every read; uninstalled there and installed
// again, its kept CRD is taken back (decision 0150). Unsigned releases: signatures
// are release-install-on-node.test.ts's subject. In the default suite since the image builds
// use buildah's overlay storage (decision 0146; docs/release.md, "Tested on a real node: the
// upgrade", has the times); skipped, saying why, only where the node cannot run.
import { execFile, execFileSync } from 'node:child_process';
import { cp as copy, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pushExample } from '../../cmd/olmv1/up-example.ts';
import { dockerfileCopySources } from '../../pkg/olmv1/images/index.ts';
import { DEPLOYMENTS, deployCertManager, startNodeRegistry, SYSTEM_NAMESPACE, type Kubectl } from '../../pkg/olmv1/in-cluster/index.ts';
import { runCommand, startControlPlane, type ControlPlane, type Registry } from '../../pkg/olmv1/localstack/index.ts';
import { envtestCertManager, envtestNodeBinaries } from '../envtest/deferred-tools.ts';
import { condition, kube, nodeEnv, nodeUnavailable, REPO, timed as timedBy, type Obj } from '../support/on-node.ts';

const exec = promisify(execFile);

/**
 * The oldest commit a previous release is taken from: the first whose image build uses buildah's
 * overlay storage (decision 0146; an older commit builds with its own code, vfs, 8 minutes and
 * more), with config/boxcutter and install.sh's OLMV1_MANIFEST like HEAD.
 */
const FIRST_PREVIOUS = 'e232b0b';
const git = (...args: string[]): string => execFileSync('git', ['-C', REPO, ...args], { encoding: 'utf8' }).trim();

/**
 * The previous release's commit: the oldest first-parent commit since FIRST_PREVIOUS with HEAD's
 * package.json and package-lock.json (so its build takes both `npm ci` steps from the layer cache
 * HEAD's build filled, seconds instead of minutes) whose image inputs (the Dockerfile's COPY
 * sources) differ from HEAD's (or there would be nothing to upgrade); FIRST_PREVIOUS when none has.
 */
function choosePrevious(): string {
  const deps = (rev: string): string => git('rev-parse', `${rev}:package.json`, `${rev}:package-lock.json`);
  const inputs = (rev: string): string[] => ['Dockerfile', '.dockerignore', ...dockerfileCopySources(git('show', `${rev}:Dockerfile`))];
  const headDeps = deps('HEAD');
  for (const commit of git('rev-list', '--first-parent', '--reverse', `${FIRST_PREVIOUS}^..HEAD`).split('\n')) {
    if (commit === '' || deps(commit) !== headDeps) continue;
    const paths = [...new Set([...inputs(commit), ...inputs('HEAD')])];
    if (git('diff', '--name-only', commit, 'HEAD', '--', ...paths) !== '') return commit.slice(0, 12);
  }
  return FIRST_PREVIOUS;
}
/** Why the previous release cannot be made here: a checkout without FIRST_PREVIOUS in its history (a shallow clone). */
function historyMissing(): string | undefined {
  try {
    git('cat-file', '-e', `${FIRST_PREVIOUS}^{commit}`);
    return undefined;
  } catch {
    return `this checkout's history lacks ${FIRST_PREVIOUS}, the oldest commit a previous release is built from (a shallow clone?)`;
  }
}
const missing = nodeUnavailable() ?? historyMissing();
if (missing !== undefined) console.warn(`release-upgrade-on-node.test.ts skipped: ${missing}`);
const PREVIOUS = missing === undefined ? choosePrevious() : FIRST_PREVIOUS;
const head = git('rev-parse', 'HEAD');
const log = (line: string): void => console.error(`release-upgrade-on-node: ${line}`);
const timed = (name: string, started: number): void => timedBy(log, name, started);
const tools = missing === undefined ? { node: await envtestNodeBinaries(log), certManager: await envtestCertManager(log) } : undefined;

interface MadeRelease {
  imageRef: string;
  dir: string;
}
interface Snapshot {
  /** Helm runtime: the release record Secrets; BoxcutterRuntime: the ClusterObjectSets. */
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
let boxcutterBefore: Snapshot;

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
  // The image's lines: built (with which storage driver) or found, in how long, how many steps the layer cache gave.
  for (const line of stderr.split('\n')) if (/ (built|found) in |layer cache| storage$/.test(line)) log(`${version}: ${line}`);
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

const ids = (objs: Obj[]): string[] =>
  objs.map((o) => `${o.metadata.name}/${(o.metadata as { uid?: string }).uid ?? ''}`).sort((a, b) => a.localeCompare(b));

/** The extension's release record Secrets (name/uid: revision numbers and identity) and its operator Pods (name/uid). */
async function snapshot(): Promise<Snapshot> {
  return {
    records: ids(await k.list(['secrets', '-n', SYSTEM_NAMESPACE, '-l', 'owner=operator-controller,name=example-operator'])),
    operatorPods: ids(await k.list(['pods', '-n', 'example-operator'])),
  };
}

/** Under the BoxcutterRuntime: the extension's ClusterObjectSets (its revisions, name/uid) and its operator Pods. */
async function boxcutterSnapshot(): Promise<Snapshot> {
  return {
    records: ids(await k.list(['clusterobjectsets', '-l', 'olm.operatorframework.io/owner-name=example-operator'])),
    operatorPods: ids(await k.list(['pods', '-n', 'example-operator'])),
  };
}

/**
 * The release's manifest with config/boxcutter of its own commit (`root`), as a platform team's
 * overlay adds it: `kubectl kustomize` of the manifest and the component; the file's path.
 */
async function withBoxcutter(made: MadeRelease, root: string, name: string): Promise<string> {
  const dir = join(work, `boxcutter-${name}`);
  for (const part of ['config/boxcutter', 'config/crd/experimental']) await copy(join(root, part), join(dir, part), { recursive: true });
  await copy(join(made.dir, 'olmv1.yaml'), join(dir, 'olmv1.yaml'));
  await writeFile(
    join(dir, 'kustomization.yaml'),
    'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [olmv1.yaml]\ncomponents: [config/boxcutter]\n',
  );
  const file = join(work, `olmv1-boxcutter-${name}.yaml`);
  await writeFile(file, await kubectl(['kustomize', dir]));
  return file;
}

/** Applies a manifest as install.sh applies its own (server-side, conflicts forced) and waits as it does. */
async function applyAsInstallDoes(manifest: string): Promise<void> {
  await kubectl(['apply', '--server-side', '--force-conflicts', '-f', manifest]);
  await kubectl(['wait', '--for=condition=Established', '--timeout=300s', 'crd/clusterobjectsets.olm.operatorframework.io']);
  for (const d of DEPLOYMENTS) await kubectl(['rollout', 'status', '-n', SYSTEM_NAMESPACE, '--timeout=300s', `deployment/${d}`]);
}

/** Runs `apply` while reading the extension's Installed condition every half second; returns every value read. */
async function watchingInstalled(apply: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  let done = false;
  const watcher = (async () => {
    while (!done) {
      seen.push(condition(await k.get(['clusterextension', 'example-operator']), 'Installed') ?? 'absent');
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  try {
    await apply();
  } finally {
    done = true;
    await watcher;
  }
  return seen;
}

/** Applies `made` with its install.sh while reading the extension's Installed condition; returns every value read. */
function applyWatchingInstalled(made: MadeRelease): Promise<string[]> {
  return watchingInstalled(async () => expect(await install(made)).toContain('is installed'));
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

async function expectUntouchedAndHealthy(take = snapshot, expected = before): Promise<void> {
  await kubectl(['wait', '--for=condition=Installed', 'clusterextension/example-operator', '--timeout=120s']);
  await kubectl(['wait', '--for=condition=Healthy', 'clusterextension/example-operator', '--timeout=120s']);
  expect(await take()).toEqual(expected);
}

/** operator-controller's args, as its Deployment has them now. */
async function controllerArgs(): Promise<string[]> {
  const d = (await k.get(['deployment', '-n', SYSTEM_NAMESPACE, 'operator-controller-controller-manager'])) as Obj & {
    spec: { template: { spec: { containers: Array<{ args?: string[] }> } } };
  };
  return d.spec.template.spec.containers.flatMap((c) => c.args ?? []);
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
    // Equal only when no image input (cmd/, pkg/, the Dockerfile...) changed since FIRST_PREVIOUS.
    expect(previous.imageRef, `HEAD's image inputs are those of ${PREVIOUS}: nothing to upgrade`).not.toBe(current.imageRef);
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

  it('installs the extension anew under the BoxcutterRuntime on the previous release: its revisions are ClusterObjectSets', async () => {
    const started = Date.now();
    await kubectl(['delete', 'clusterextension', 'example-operator', '--wait=true', '--timeout=300s']);
    // The Helm runtime's uninstall keeps the CRD (kept-for-package). The previous release predates
    // the BoxcutterRuntime's take-back (decision 0150): its revision would report a collision on
    // the CRD, and the subject here is an install made under the BoxcutterRuntime alone. HEAD's
    // take-back is the last test's subject.
    await kubectl(['delete', 'crd', 'greetings.demo.example.com', '--wait=true', '--timeout=120s']);
    await applyAsInstallDoes(await withBoxcutter(previous, worktree, 'previous'));
    expect(await productImages()).toEqual([previous.imageRef]);
    expect(await controllerArgs()).toContain('--feature-gates=BoxcutterRuntime=true');
    await kubectl(['apply', '-f', join(REPO, 'config/samples/olm_v1_clusterextension.yaml')]);
    await kubectl(['wait', '--for=condition=Installed', 'clusterextension/example-operator', '--timeout=300s']);
    await kubectl(['wait', '--for=condition=Healthy', 'clusterextension/example-operator', '--timeout=300s']);
    boxcutterBefore = await boxcutterSnapshot();
    expect(boxcutterBefore.records.length).toBeGreaterThan(0);
    expect(boxcutterBefore.operatorPods.length).toBe(1);
    // Nothing of the Helm runtime is left to read from.
    expect((await snapshot()).records).toEqual([]);
    timed('previous release with the BoxcutterRuntime, the extension installed', started);
  }, 900_000);

  it('upgrades to HEAD with the BoxcutterRuntime: Installed stays True, the same ClusterObjectSets and operator Pod, Healthy', async () => {
    const started = Date.now();
    const manifest = await withBoxcutter(current, REPO, 'head');
    const seen = await watchingInstalled(() => applyAsInstallDoes(manifest));
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((s) => s !== 'True')).toEqual([]);
    expect(await productImages()).toEqual([current.imageRef]);
    expect(await controllerArgs()).toContain('--feature-gates=BoxcutterRuntime=true');
    await expectUntouchedAndHealthy(boxcutterSnapshot, boxcutterBefore);
    timed(`upgrade with the BoxcutterRuntime (${seen.length} reads of Installed)`, started);
  }, 600_000);

  it('on HEAD with the BoxcutterRuntime, an uninstall keeps the CRD and the next install takes it back (decision 0150)', async () => {
    const started = Date.now();
    const CRD = 'greetings.demo.example.com';
    const KEPT = 'olm.operatorframework.io/kept-for-package';
    type Crd = Obj & {
      metadata: { annotations?: Record<string, string>; ownerReferences?: Array<{ kind: string; name: string; controller?: boolean }> };
    };
    const crd = async (): Promise<Crd> => (await k.get(['crd', CRD])) as Crd;
    await kubectl(['delete', 'clusterextension', 'example-operator', '--wait=true', '--timeout=300s']);
    const kept = await crd();
    expect(kept.metadata.annotations?.[KEPT]).toBe('example-operator');
    expect(kept.metadata.ownerReferences ?? []).toEqual([]);
    // Installed again as operator-controller runs on a cluster (config/rbac: CRDs listed and
    // watched, never read by name): the revision reads the CRD as the extension's ServiceAccount.
    await kubectl(['apply', '-f', join(REPO, 'config/samples/olm_v1_clusterextension.yaml')]);
    await kubectl(['wait', '--for=condition=Installed', 'clusterextension/example-operator', '--timeout=300s']);
    await kubectl(['wait', '--for=condition=Healthy', 'clusterextension/example-operator', '--timeout=300s']);
    const controller = async (): Promise<string | undefined> => {
      const ref = (await crd()).metadata.ownerReferences?.find((r) => r.controller === true);
      return ref === undefined ? undefined : `${ref.kind}/${ref.name}`;
    };
    const revisions = ((await k.list(['clusterobjectsets', '-l', 'olm.operatorframework.io/owner-name=example-operator'])) as Obj[]).map(
      (r) => `ClusterObjectSet/${(r.metadata as { name: string }).name}`,
    );
    expect(revisions).toContain(await controller());
    await expect.poll(async () => (await crd()).metadata.annotations?.[KEPT], { timeout: 120_000, interval: 1_000 }).toBeUndefined();
    timed('HEAD with the BoxcutterRuntime: uninstalled and installed again, its kept CRD taken back', started);
  }, 900_000);
});
