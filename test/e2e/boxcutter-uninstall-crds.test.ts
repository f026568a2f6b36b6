// Under the BoxcutterRuntime an uninstall keeps every CRD and its custom resources (issue 69 item
// 10, decision 0125): the CRDs' controller is the extension's ClusterObjectSet revision, and a
// revision deleted while a CRD still names it lets the garbage collector delete that CRD with
// every custom resource. On a control plane of its own with kube-controller-manager (the garbage
// collector) and no node, one install of a bundle with four CRDs (its Deployment Available with a
// Pending Pod) and a custom resource of each, then the
// ClusterExtension deleted: once the extension and its revision are gone and the collector has
// acted (a sentinel ConfigMap owned by the revision is collected), all four CRDs are there, not
// being deleted, naming no revision, and so are the custom resources.
//
// The loss is a race (the CRDs released one by one while the revisions were deleted), which a
// quiet machine usually wins. A validating webhook of this file holds each request that removes a
// CRD's owner reference to a revision for RELEASE_DELAY_MS, as a busy API server does: before
// commit 07dfde5 the revisions were then deleted with CRDs still naming them, and the collector
// took those; the fixed uninstall waits for every release, however long it takes.
import { createServer, type Server } from 'node:https';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createCertificateAuthority, issueCertificate, startControlPlane, type ControlPlane } from '../../pkg/olmv1/localstack/index.ts';
import { testTempDir } from '../support/temp-dir.ts';
import { CLUSTER_EXTENSION, CLUSTER_OBJECT_SET } from '../../pkg/shared/api/index.ts';
import { connect, isNotFound, type KubeClient, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { FEATURE_GATE_DEFAULTS } from '../../cmd/operator-controller/options.ts';
import { refOf, waitForCrdsEstablished, type BundleText } from '../support/bundle-flow.ts';
import {
  bundleFiles,
  clusterExtension,
  getExtension,
  groupOf,
  installedAs,
  installerFor,
  packageCatalog,
  publishCatalog,
  pushBundle,
  startExtensionStack,
  waitForExtension,
  type BundleSpec,
  type ExtensionStack,
} from '../support/extensions.ts';

const run = randomBytes(3).toString('hex');
const PKG = `keep-crds-${run}`;
const PLURALS = ['alphas', 'betas', 'deltas', 'gammas'];
const CE_TYPE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };
const COS_TYPE = { apiVersion: CLUSTER_OBJECT_SET.apiVersion, kind: CLUSTER_OBJECT_SET.kind };
/** How long the webhook holds each release of a CRD's owner reference to a revision. */
const RELEASE_DELAY_MS = 1500;
let cp: ControlPlane;
let stack: ExtensionStack;
let webhook: Server | undefined;

interface Review {
  request?: { uid: string; object?: KubeObject; oldObject?: KubeObject };
}

const namesRevision = (obj: KubeObject | undefined): boolean => (obj?.metadata.ownerReferences ?? []).some((r) => r.kind === COS_TYPE.kind);

/** Serves the webhook (allowing everything, holding releases) and registers it for the package's CRDs. */
async function slowReleases(client: KubeClient): Promise<void> {
  const dir = await testTempDir('slow-release-');
  const ca = await createCertificateAuthority(dir, 'ca', 'slow-release-ca');
  const cert = await issueCertificate(ca, dir, { name: 'webhook', commonName: '127.0.0.1', ipAddresses: ['127.0.0.1'], usage: 'server' });
  webhook = createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
      const answer = (): void => {
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request?.uid ?? '', allowed: true } }),
        );
      };
      const releasing = namesRevision(review.request?.oldObject) && !namesRevision(review.request?.object);
      if (releasing) setTimeout(answer, RELEASE_DELAY_MS);
      else answer();
    });
  });
  const server = webhook;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await client.create({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: `slow-release-${run}` },
    webhooks: [
      {
        name: 'slow-release.e2e.test',
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Ignore',
        timeoutSeconds: 10,
        clientConfig: { url: `https://127.0.0.1:${port}/`, caBundle: Buffer.from(ca.certPem).toString('base64') },
        rules: [{ apiGroups: ['apiextensions.k8s.io'], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['customresourcedefinitions'] }],
        objectSelector: { matchLabels: { 'olm.operatorframework.io/owner-name': PKG } },
      },
    ],
  });
}

beforeAll(async () => {
  cp = await startControlPlane({ binaries: inject('envtestBinaries'), controllerManager: true });
  // The ClusterObjectSet CRD first: operator-controller's informer lists them from the start.
  const kube = await connect({ kind: 'file', path: cp.info.kubeconfigPath });
  const crd = load(
    readFileSync(new URL('../../config/crd/experimental/olm.operatorframework.io_clusterobjectsets.yaml', import.meta.url), 'utf8'),
  ) as KubeObject;
  await kube.client.apply(crd, { fieldManager: 'e2e-admin', force: true });
  await waitForCrdsEstablished(kube.client, [crd]);
  kube.close();
  stack = await startExtensionStack(cp.info, inject('envtestRegistries').anonymous.host, {
    controller: { featureGates: { ...FEATURE_GATE_DEFAULTS, BoxcutterRuntime: true } },
  });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await cp?.stop();
  webhook?.close();
});

/**
 * The garbage collector follows a new resource (ClusterObjectSet, whose CRD this file installs
 * after kube-controller-manager started) only from its next discovery, every 30 s: a revision
 * deleted before then leaves what names it alone. Probes until a dependent of a deleted probe
 * revision is collected.
 */
async function untilCollectorFollowsRevisions(client: KubeClient, namespace = PKG): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const name = `gc-probe-${namespace}-${attempt}`;
    const probe = await client.create({
      ...COS_TYPE,
      metadata: { name },
      spec: { lifecycleState: 'Active', revision: 1, collisionProtection: 'Prevent', phases: [] },
    });
    const dependent = await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace, ownerReferences: [{ ...COS_TYPE, name, uid: probe.metadata.uid ?? '' }] },
    });
    await client.delete({ ...COS_TYPE, name });
    try {
      await vi.waitFor(
        async () => {
          if (!(await gone(client, dependent))) throw new Error(`ConfigMap ${name} not collected after its ClusterObjectSet was deleted`);
        },
        { timeout: 8_000, interval: 250 },
      );
      return;
    } catch (err) {
      if (attempt >= 12) throw err;
    }
  }
}

/**
 * `files` with the CSV's Deployment allowed one unavailable replica: with no node its Pod stays
 * Pending, and the Deployment is Available all the same, so the revision succeeds and the
 * extension is Installed (its drift watches then hold the CRDs, as on a real cluster).
 */
function availableWithoutNode(files: BundleText): BundleText {
  const csv = JSON.parse(files.get('manifests/csv.json') ?? '{}') as {
    spec: { install: { spec: { deployments: { spec: Record<string, unknown> }[] } } };
  };
  for (const d of csv.spec.install.spec.deployments)
    d.spec['strategy'] = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } };
  return new Map([...files, ['manifests/csv.json', JSON.stringify(csv)]]);
}

async function gone(client: KubeClient, obj: KubeObject): Promise<boolean> {
  return client.get(refOf(obj)).then(
    () => false,
    (err: unknown) => {
      if (isNotFound(err)) return true;
      throw err;
    },
  );
}

describe('uninstalling under the BoxcutterRuntime, with the garbage collector running', () => {
  it('keeps all four CRDs and their custom resources once the extension and its revision are gone', async () => {
    const client = stack.kube.client;
    const spec: BundleSpec = { pkg: PKG, version: '1.0.0', crds: PLURALS, configMaps: ['settings'] };
    await installerFor(client, PKG, 'installer', [spec]);
    const image = await pushBundle(availableWithoutNode(bundleFiles(spec)), `${stack.registry}/bundles/${PKG}:v1.0.0`);
    await publishCatalog(
      stack,
      PKG,
      packageCatalog(PKG, {
        defaultChannel: 'stable',
        channels: [{ name: 'stable', entries: [{ version: '1.0.0' }] }],
        bundles: [{ version: '1.0.0', image }],
      }),
    );
    await client.create(clusterExtension(PKG, { namespace: PKG, serviceAccount: 'installer', packageName: PKG }));
    await waitForExtension(client, PKG, 'installed', installedAs(`${PKG}.v1.0.0`), 120_000);
    const crds = PLURALS.map((plural) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${groupOf(PKG)}` },
    }));
    const revision = await client.get({ ...COS_TYPE, name: `${PKG}-1` });
    for (const crd of crds) {
      // Each is the revision's: what the garbage collector follows.
      expect((await client.get(refOf(crd))).metadata.ownerReferences?.map((r) => r.uid)).toEqual([revision.metadata.uid]);
    }
    await waitForCrdsEstablished(client, crds);
    await untilCollectorFollowsRevisions(client);
    await slowReleases(client);
    const customResources: KubeObject[] = [];
    for (const plural of PLURALS) {
      const kind = plural.charAt(0).toUpperCase() + plural.slice(1).replace(/s$/, '');
      customResources.push(
        await client.create({ apiVersion: `${groupOf(PKG)}/v1`, kind, metadata: { name: 'precious', namespace: PKG }, spec: { size: 7 } }),
      );
    }
    // Collected once the collector has followed the revision's deletion.
    const sentinel = await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'gc-sentinel',
        namespace: PKG,
        ownerReferences: [{ ...COS_TYPE, name: revision.metadata.name ?? '', uid: revision.metadata.uid ?? '', blockOwnerDeletion: false }],
      },
    });

    await client.delete({ ...CE_TYPE, name: PKG });
    await expect.poll(() => gone(client, { ...CE_TYPE, metadata: { name: PKG } }), { timeout: 90_000, interval: 200 }).toBe(true);
    await expect.poll(() => gone(client, revision), { timeout: 60_000, interval: 200 }).toBe(true);
    await expect.poll(() => gone(client, sentinel), { timeout: 90_000, interval: 200 }).toBe(true);

    for (const crd of crds) {
      const live = await client.get(refOf(crd));
      expect(live.metadata.deletionTimestamp, crd.metadata.name).toBeUndefined();
      expect(live.metadata.ownerReferences ?? [], crd.metadata.name).toEqual([]);
    }
    for (const cr of customResources) {
      const kept = await client.get(refOf(cr));
      expect(kept.metadata.uid).toBe(cr.metadata.uid);
      expect(kept['spec']).toEqual({ size: 7 });
    }
    // The rest of the bundle was uninstalled: what the revision controlled goes with it, through
    // the garbage collector (decision 0145).
    const settings = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${PKG}-settings`, namespace: PKG } };
    await expect.poll(() => gone(client, settings), { timeout: 60_000, interval: 200 }).toBe(true);
  }, 300_000);
});

// A CRD an uninstall kept is marked `olm.operatorframework.io/kept-for-package: <package>`, and
// the next install of that package takes it back (docs/boxcutter-runtime.md, decision 0150): under
// BoxcutterRuntime its revision gives exactly those CRDs collision protection IfNoController.
// Before, the revision refused them all (`revision object collisions in phase 1`) and the
// extension stayed Installed=False. A CRD kept for another package still collides.
describe('installing again under the BoxcutterRuntime what an uninstall kept', () => {
  const PKG2 = `take-back-${run}`;
  const OTHER = `other-${run}`;
  const KEPT = 'olm.operatorframework.io/kept-for-package';
  const crdOf = (plural: string): KubeObject => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${groupOf(PKG2)}` },
  });
  const [alphas, betas] = [crdOf('alphas'), crdOf('betas')];
  const controllerUid = async (client: KubeClient, obj: KubeObject): Promise<string | undefined> =>
    (await client.get(refOf(obj))).metadata.ownerReferences?.find((r) => r.controller === true)?.uid;
  const revisionMessage = async (client: KubeClient, name: string): Promise<string> => {
    const set = await client.get({ ...COS_TYPE, name });
    const conditions = ((set['status'] ?? {}) as { conditions?: { type: string; message: string }[] }).conditions ?? [];
    return conditions.find((c) => c.type === 'Progressing')?.message ?? '';
  };

  it('takes back the CRDs kept for the same package, and still refuses one kept for another package', async () => {
    const client = stack.kube.client;
    const spec: BundleSpec = { pkg: PKG2, version: '1.0.0', crds: ['alphas', 'betas'], configMaps: ['settings'] };
    await installerFor(client, PKG2, 'installer', [spec]);
    const image = await pushBundle(availableWithoutNode(bundleFiles(spec)), `${stack.registry}/bundles/${PKG2}:v1.0.0`);
    await publishCatalog(
      stack,
      PKG2,
      packageCatalog(PKG2, {
        defaultChannel: 'stable',
        channels: [{ name: 'stable', entries: [{ version: '1.0.0' }] }],
        bundles: [{ version: '1.0.0', image }],
      }),
    );
    const extension = clusterExtension(PKG2, { namespace: PKG2, serviceAccount: 'installer', packageName: PKG2 });
    await client.create(extension);
    await waitForExtension(client, PKG2, 'installed', installedAs(`${PKG2}.v1.0.0`), 120_000);
    const first = await client.get({ ...COS_TYPE, name: `${PKG2}-1` });
    await waitForCrdsEstablished(client, [alphas, betas]);
    // The garbage collector deletes the rest of the bundle with the revision (decision 0145).
    await untilCollectorFollowsRevisions(client, PKG2);

    await client.delete({ ...CE_TYPE, name: PKG2 });
    await expect.poll(() => gone(client, { ...CE_TYPE, metadata: { name: PKG2 } }), { timeout: 90_000, interval: 200 }).toBe(true);
    await expect.poll(() => gone(client, first), { timeout: 60_000, interval: 200 }).toBe(true);
    const settings = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${PKG2}-settings`, namespace: PKG2 } };
    await expect.poll(() => gone(client, settings), { timeout: 90_000, interval: 200 }).toBe(true);
    for (const crd of [alphas, betas]) {
      const live = await client.get(refOf(crd));
      expect(live.metadata.ownerReferences ?? [], crd.metadata.name).toEqual([]);
      expect(live.metadata.annotations?.[KEPT], crd.metadata.name).toBe(PKG2);
      // Still the annotation of the revision that wrote it: not a just-orphaned object all the same.
      expect(live.metadata.annotations?.['olm.operatorframework.io/revision'], crd.metadata.name).toBe('1');
    }
    // As if another package's uninstall had kept betas.
    await client.patch(refOf(betas), { metadata: { annotations: { [KEPT]: OTHER } } }, 'merge');

    await client.create(extension);
    const secondRef = { ...COS_TYPE, metadata: { name: `${PKG2}-1` } };
    await expect.poll(() => gone(client, secondRef), { timeout: 60_000, interval: 200 }).toBe(false);
    const second = await client.get({ ...COS_TYPE, name: `${PKG2}-1` });
    // alphas is the new revision's, its mark removed; betas, kept for another package, collides (upstream's text).
    await expect.poll(() => controllerUid(client, alphas), { timeout: 60_000, interval: 200 }).toBe(second.metadata.uid);
    await expect.poll(async () => (await client.get(refOf(alphas))).metadata.annotations?.[KEPT], { timeout: 60_000, interval: 200 }).toBeUndefined();
    await expect
      .poll(() => revisionMessage(client, `${PKG2}-1`), { timeout: 60_000, interval: 200 })
      .toContain('revision object collisions in phase');
    expect(await revisionMessage(client, `${PKG2}-1`)).toContain(betas.metadata.name);
    expect(await revisionMessage(client, `${PKG2}-1`)).not.toContain(alphas.metadata.name);
    expect(await controllerUid(client, betas)).toBeUndefined();
    expect((await client.get(refOf(betas))).metadata.annotations?.[KEPT]).toBe(OTHER);
    expect((await getExtensionInstalled(client, PKG2))?.status).not.toBe('True');

    // The other package's CRD removed, the revision makes its own and the extension is installed.
    await client.delete({ ...refOf(betas) });
    await waitForExtension(client, PKG2, 'installed again', installedAs(`${PKG2}.v1.0.0`), 120_000);
    expect(await controllerUid(client, alphas)).toBe(second.metadata.uid);
    expect(await controllerUid(client, betas)).toBe(second.metadata.uid);
  }, 300_000);
});

async function getExtensionInstalled(client: KubeClient, name: string): Promise<{ status: string } | undefined> {
  return (await getExtension(client, name)).cond('Installed');
}
