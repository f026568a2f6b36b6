// `olmv1 migrate to-upstream` end to end (issue #42): extensions installed by our
// operator-controller on a real API server with kube-controller-manager (garbage collection),
// then the command run as a child process with the test kubeconfig, as an administrator runs it.
// It refuses while our operator-controller holds its leader Lease and while an extension's
// uninstall is unfinished; once ours is stopped it leaves only upstream's finalizers, so a
// deletion no longer waits for a finalizer nobody removes. Upstream's operator-controller is
// not available on this machine: where upstream would run and remove its own finalizers, the
// test removes them, and says so.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../pkg/olmv1/localstack/index.ts';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { startOperatorController } from '../support/operator-controller.ts';
import {
  clusterExtension,
  getExtension,
  installedAs,
  installerFor,
  objectExists,
  offerPackage,
  replacingChain,
  startExtensionStack,
  waitForExtension,
  type BundleSpec,
  type ExtensionStack,
} from '../support/extensions.ts';

const exec = promisify(execFile);
const run = randomBytes(3).toString('hex');
const CE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };
const LEASE = '9c4404e7.operatorframework.io';
const UPSTREAM_FINALIZERS = ['olm.operatorframework.io/cleanup-unpack-cache', 'olm.operatorframework.io/cleanup-contentmanager-cache'];
const UNINSTALL = 'olm.operatorframework.io/uninstall';
const ORPHAN = 'olm.operatorframework.io/orphan-objects';
const POLICY = 'olm.operatorframework.io/update-policy';

// Our operator-controller as deployed: leader election on the default Lease (upstream's name too).
const controllerOptions = {
  leaderElect: true,
  leaderElectionId: LEASE,
  leaderElection: { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
};

let cp: ControlPlane;
let stack: ExtensionStack;
/** The operator-controller started again mid-test, stopped by the test or in afterAll. */
let restarted: Awaited<ReturnType<typeof startOperatorController>> | undefined;

beforeAll(async () => {
  cp = await startControlPlane({ binaries: inject('envtestBinaries'), controllerManager: true });
  stack = await startExtensionStack(cp.info, inject('envtestRegistries').anonymous.host, { controller: controllerOptions });
}, 180_000);

afterAll(async () => {
  await restarted?.destroy();
  await stack?.stop();
  await cp?.stop();
});

/** Runs `olmv1 migrate to-upstream ARGS` as a child process against the test cluster. */
async function migrate(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const argv = ['cmd/olmv1/main.ts', 'migrate', 'to-upstream', '--kubeconfig', cp.info.kubeconfigPath, ...args];
  try {
    const { stdout, stderr } = await exec(process.execPath, argv);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** Installs package `pkg` (one bundle: a CRD and a ConfigMap) as the extension `pkg`, waits until installed. */
async function install(pkg: string, annotations: Record<string, string> = {}): Promise<void> {
  const spec: BundleSpec = { pkg, version: '1.0.0', configMaps: ['settings'] };
  await installerFor(stack.kube.client, pkg, 'installer', [spec]);
  await offerPackage(stack, pkg, replacingChain([spec]));
  const ext = clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg });
  ext.metadata.annotations = annotations;
  await stack.kube.client.create(ext);
  await waitForExtension(stack.kube.client, pkg, 'installed', installedAs(`${pkg}.v1.0.0`), 120_000);
}

/** The ClusterExtension `name` as it is now. */
async function extension(name: string): Promise<KubeObject> {
  return (await getExtension(stack.kube.client, name)).obj;
}

function conditionTypes(ext: KubeObject): string[] {
  return ((ext['status'] as { conditions?: { type: string }[] } | undefined)?.conditions ?? []).map((c) => c.type);
}

/** The release records (index Secrets) of extension `name`. */
async function records(name: string): Promise<string[]> {
  const list = await stack.kube.client.list(
    { apiVersion: 'v1', kind: 'Secret' },
    { namespace: 'olmv1-system', labelSelector: `owner=operator-controller,name=${name}` },
  );
  return list.items.map((s) => s.metadata.name ?? '');
}

describe('olmv1 migrate to-upstream', () => {
  it('refuses while ours runs or an uninstall is unfinished; then leaves only upstream finalizers, so deleting an extension ends', async () => {
    const kept = `to-upstream-${run}`;
    const deleted = `to-upstream-del-${run}`;
    await install(kept, { [ORPHAN]: 'true', [POLICY]: 'Manual' });
    await install(deleted);
    const before = await extension(kept);
    expect(before.metadata.finalizers).toEqual(expect.arrayContaining([...UPSTREAM_FINALIZERS, UNINSTALL]));
    expect(conditionTypes(before)).toContain('Healthy');

    // Ours holds its Lease: refused, nothing written; a dry run shows the plan and fails as well.
    const refused = await migrate();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`holds its leader Lease olmv1-system/${LEASE}; stop it first`);
    expect(refused.stdout).toBe('');
    const preview = await migrate('--dry-run');
    expect(preview.code).toBe(1);
    expect(preview.stdout).toContain(`ClusterExtension ${kept}: would remove finalizer ${UNINSTALL}; annotation ${ORPHAN}; condition`);
    expect((await extension(kept)).metadata.resourceVersion).toBe(before.metadata.resourceVersion);

    // Ours stopped (gracefully: its Lease is released at once), then an extension deleted: its
    // uninstall, which only ours performs, is unfinished, so nothing is handed over.
    await stack.controller.destroy();
    await stack.kube.client.delete({ ...CE, name: deleted });
    const unfinished = await migrate();
    expect(unfinished.code).toBe(1);
    expect(unfinished.stderr).toContain(
      `ClusterExtension ${deleted}: cannot be handed over yet: it is being deleted and its uninstall has not finished`,
    );
    expect(unfinished.stderr).toContain('1 ClusterExtension(s) cannot be handed over yet; nothing was changed');
    expect((await extension(kept)).metadata.finalizers).toContain(UNINSTALL);

    // The documented remedy: ours runs until the extension is gone, and is stopped again.
    restarted = await startOperatorController(cp.info, controllerOptions);
    await expect.poll(() => objectExists(stack.kube.client, { ...CE, name: deleted }), { timeout: 90_000, interval: 200 }).toBe(false);
    await restarted.destroy();
    restarted = undefined;

    const dry = await migrate('--dry-run');
    expect(dry.stderr).toContain(`note: ${kept}: upstream ignores ${POLICY}=Manual (kept)`);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('dry run: nothing changed');
    expect((await extension(kept)).metadata.finalizers).toContain(UNINSTALL);

    const done = await migrate();
    expect(done.stderr).toContain(`note: ${kept}: upstream ignores ${POLICY}=Manual (kept)`);
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(
      new RegExp(`^ClusterExtension ${kept}: removed finalizer ${UNINSTALL}; annotation ${ORPHAN}; conditions? [A-Za-z, ]*Healthy`, 'm'),
    );
    const after = await extension(kept);
    expect([...(after.metadata.finalizers ?? [])].sort()).toEqual([...UPSTREAM_FINALIZERS].sort());
    expect(after.metadata.annotations?.[ORPHAN]).toBeUndefined();
    expect(after.metadata.annotations?.[POLICY]).toBe('Manual');
    expect(conditionTypes(after)).not.toContain('Healthy');
    expect(conditionTypes(after)).toEqual(expect.arrayContaining(['Installed', 'Progressing']));
    expect((await migrate()).stdout).toContain(`ClusterExtension ${kept}: nothing to change`);

    // Deleting it now waits only for upstream's finalizers.
    await stack.kube.client.delete({ ...CE, name: kept });
    await expect.poll(async () => (await extension(kept)).metadata.deletionTimestamp !== undefined).toBe(true);
    expect([...((await extension(kept)).metadata.finalizers ?? [])].sort()).toEqual([...UPSTREAM_FINALIZERS].sort());
    // Upstream's operator-controller would run its two finalizers now (free its caches) and
    // remove them; it is not available here, so the test removes them as it would.
    await stack.kube.client.patch({ ...CE, name: kept }, { metadata: { finalizers: null } }, 'merge');
    await expect.poll(() => objectExists(stack.kube.client, { ...CE, name: kept }), { timeout: 30_000, interval: 100 }).toBe(false);
    // The records carry upstream's owner reference to the extension: garbage collection takes them.
    await expect.poll(() => records(kept), { timeout: 60_000, interval: 250 }).toEqual([]);
    // The objects carry none until upstream's first reconcile adds them (docs/operations.md):
    // deleted before that, the extension leaves them in place.
    expect(await objectExists(stack.kube.client, { apiVersion: 'v1', kind: 'ConfigMap', namespace: kept, name: `${kept}-settings` })).toBe(true);
  }, 600_000);
});
