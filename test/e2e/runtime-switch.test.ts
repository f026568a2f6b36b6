// Switching a populated cluster between the two runtimes and back (issue 64, decision 0125), with
// the real catalogd and operator-controller processes on a control plane of its own that runs
// kube-controller-manager (the garbage collector takes the revisions' owner references off their
// objects when the way back lets the revisions go). No node: no Pod runs, so only what the
// runtimes write is judged, not readiness.
//   1. Helm runtime: the example extension installed (release records), a custom resource made.
//   2. operator-controller restarted with --feature-gates=BoxcutterRuntime=true: revision 1 made
//      from the deployed record (Succeeded, migrated), the extension Installed from it, its
//      activeRevisions naming it; every object of the release has the uid it had, the custom
//      resource is there.
//   3. Restarted without the gate: the installed revision is the deployed release record again, no
//      revision is left, no object is owned by one; every uid and the custom resource kept.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { loadAll } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startComponents, type Components } from '../../cmd/olmv1/up-components.ts';
import { readManifests } from '../../cmd/olmv1/up-cluster.ts';
import { createWorkspace, type Workspace } from '../../pkg/olmv1/localstack/index.ts';
import { readBundleDir } from '../../pkg/operator-controller/bundle/index.ts';
import { createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { CLUSTER_CATALOG, CLUSTER_EXTENSION, CLUSTER_OBJECT_SET, OWNER_NAME_LABEL } from '../../pkg/shared/api/index.ts';
import { connect, isNotFound, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { condition, pushCatalog, waitForCatalog, writeCatalogFiles } from '../support/catalogs.ts';
import { pushBundle } from '../support/extensions.ts';
import { installOlmConfig } from '../support/olm-config.ts';
import { useOwnControlPlane } from '../support/own-control-plane.ts';
import { withTempDir } from '../support/temp-dir.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLE = join(REPO, 'examples', 'example-operator');
const id = randomBytes(3).toString('hex');
const PKG = 'example-operator';
const NAME = `switch-${id}`;
const NS = `switch-${id}`;
const CATALOG = `switch-catalog-${id}`;
const COMMITTED_BUNDLES = '127.0.0.1:5001/olmv1/example-operator-bundle';
const ce = { ...CLUSTER_EXTENSION, name: NAME };
const greeting = { apiVersion: 'demo.example.com/v1', kind: 'Greeting', namespace: NS, name: 'hello' };

const own = useOwnControlPlane({ controllerManager: true });
let kube: KubeContext;
let workspace: Workspace;
let components: Components | undefined;
let registry = '';

/** Starts catalogd and operator-controller with operator-controller's gates `gates`. */
async function start(gates: string[]): Promise<void> {
  await components?.operatorController.stop();
  await components?.catalogd.stop();
  const logDir = join(workspace.dir, `logs-${gates.length === 0 ? 'helm' : 'boxcutter'}-${Date.now()}`);
  await mkdir(logDir, { recursive: true });
  components = await startComponents({
    repoRoot: REPO,
    node: process.execPath,
    kubeconfig: own.info.kubeconfigPath,
    systemNamespace: 'olmv1-system',
    insecureRegistries: ['127.0.0.1'],
    logDir,
    workspace,
    env: process.env,
    featureGates: { catalogd: [], operatorController: gates },
  });
}

async function extension(): Promise<KubeObject> {
  return kube.client.get(ce);
}

/** Every object the deployed release record names, live, by `Kind ns/name`. */
async function releaseObjects(): Promise<Record<string, KubeObject>> {
  const history = await createReleaseStore({ client: kube.client, namespace: 'olmv1-system' }).history(NAME);
  const deployed = history.find((r) => r.status === 'deployed');
  if (deployed === undefined) throw new Error('no deployed release record');
  const out: Record<string, KubeObject> = {};
  for (const id of deployed.manifest.identities()) {
    const ref = { apiVersion: id.apiVersion, kind: id.kind, name: id.metadata.name ?? '' };
    out[`${id.kind} ${id.metadata.namespace ?? ''}/${id.metadata.name ?? ''}`] = await kube.client.get(
      id.metadata.namespace === undefined ? ref : { ...ref, namespace: id.metadata.namespace },
    );
  }
  return out;
}

/** The uid of every object the deployed release record names, by `Kind ns/name`. */
async function releaseUids(): Promise<Record<string, string>> {
  return Object.fromEntries(Object.entries(await releaseObjects()).map(([k, o]) => [k, o.metadata.uid ?? '']));
}

async function revisions(): Promise<KubeObject[]> {
  return (await kube.client.listAll(CLUSTER_OBJECT_SET, { labelSelector: `${OWNER_NAME_LABEL}=${NAME}` })).items;
}

beforeAll(async () => {
  registry = inject('envtestRegistries').anonymous.host;
  await installOlmConfig(own.info);
  kube = await connect({ kind: 'file', path: own.info.kubeconfigPath });
  for (const crd of (await readManifests(join(REPO, 'config/crd/experimental'))).filter((o) => o.kind === 'CustomResourceDefinition'))
    await kube.client.apply(crd, { fieldManager: 'runtime-switch-test', force: true });
  for (const ns of ['olmv1-system', NS]) await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  // The installer: not what this test is about, so a cluster-admin ServiceAccount.
  await kube.client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer', namespace: NS } });
  await kube.client.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: `${NAME}-installer` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'ServiceAccount', name: 'installer', namespace: NS }],
  });
  for (const version of ['0.1.0', '0.2.0']) {
    const files = new Map<string, string>();
    for (const [path, bytes] of await readBundleDir(join(EXAMPLE, 'bundles', version)))
      if (!path.endsWith('/')) files.set(path, Buffer.from(bytes).toString('utf8'));
    await pushBundle(files, `${registry}/switch-${id}/bundle:v${version}`);
  }
  const text = (await readFile(join(EXAMPLE, 'catalog', PKG, 'catalog.yaml'), 'utf8')).replaceAll(
    COMMITTED_BUNDLES,
    `${registry}/switch-${id}/bundle`,
  );
  const docs = loadAll(text) as Record<string, unknown>[];
  const ref = `${registry}/switch-${id}/catalog:v1`;
  await withTempDir('switch-fbc-', async (dir) =>
    pushCatalog(await writeCatalogFiles(dir, { [`${PKG}/catalog.json`]: docs.map((d) => JSON.stringify(d)).join('\n') }), ref),
  );
  workspace = await createWorkspace('runtime-switch-');
  await start([]);
  await kube.client.create({ ...CLUSTER_CATALOG, metadata: { name: CATALOG }, spec: { source: { type: 'Image', image: { ref } } } });
  await waitForCatalog(kube.client, CATALOG, (cc) => condition(cc, 'Serving')?.status === 'True', 90_000);
}, 300_000);

afterAll(async () => {
  await components?.operatorController.stop();
  await components?.catalogd.stop();
  await workspace?.stop();
  kube?.close();
});

describe('switching runtimes on a populated cluster', () => {
  let uids: Record<string, string> = {};

  it('installs under the Helm runtime, with a custom resource', async () => {
    await kube.client.create({
      ...CLUSTER_EXTENSION,
      metadata: { name: NAME },
      spec: {
        namespace: NS,
        serviceAccount: { name: 'installer' },
        source: {
          sourceType: 'Catalog',
          catalog: { packageName: PKG, version: '0.2.0', selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': CATALOG } } },
        },
      },
    });
    await expect.poll(async () => condition(await extension(), 'Installed')?.status, { timeout: 90_000, interval: 500 }).toBe('True');
    await kube.client.create({
      apiVersion: greeting.apiVersion,
      kind: greeting.kind,
      metadata: { name: greeting.name, namespace: NS },
      spec: { message: 'kept' },
    });
    uids = await releaseUids();
    expect(Object.keys(uids).length).toBeGreaterThan(3);
    expect(await revisions()).toEqual([]);
  }, 120_000);

  it('continues under the BoxcutterRuntime from revision 1, every object where it was', async () => {
    await start(['BoxcutterRuntime=true']);
    await expect
      .poll(async () => ((await extension()).status as { activeRevisions?: { name: string }[] } | undefined)?.activeRevisions?.[0]?.name, {
        timeout: 90_000,
        interval: 500,
      })
      .toBe(`${NAME}-1`);
    const first = (await revisions()).find((r) => r.metadata.name === `${NAME}-1`);
    expect(condition(first ?? { apiVersion: '', kind: '', metadata: {} }, 'Succeeded')).toMatchObject({
      status: 'True',
      message: 'Revision succeeded - migrated from Helm release',
    });
    expect(condition(await extension(), 'Installed')).toMatchObject({ status: 'True', reason: 'Succeeded' });
    expect(await releaseUids()).toEqual(uids);
    expect((await kube.client.get(greeting)).spec).toEqual({ message: 'kept' });
  }, 120_000);

  it('goes back to the Helm runtime: a release record again, no revision left, every uid and the custom resource kept', async () => {
    await start([]);
    await expect.poll(async () => (await revisions()).length, { timeout: 90_000, interval: 500 }).toBe(0);
    await expect.poll(async () => condition(await extension(), 'Installed')?.status, { timeout: 60_000, interval: 500 }).toBe('True');
    expect(await releaseUids()).toEqual(uids);
    // No object keeps a reference to a revision (the garbage collector took them off, it deleted nothing).
    const owned = Object.entries(await releaseObjects()).filter(([, o]) =>
      o.metadata.ownerReferences?.some((r) => r.kind === CLUSTER_OBJECT_SET.kind),
    );
    expect(owned.map(([k]) => k)).toEqual([]);
    expect((await kube.client.get(greeting)).spec).toEqual({ message: 'kept' });
    await expect(kube.client.get({ ...CLUSTER_OBJECT_SET, name: `${NAME}-1` })).rejects.toSatisfy(isNotFound);
  }, 120_000);
});
