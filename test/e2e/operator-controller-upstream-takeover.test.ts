// A cluster where upstream operator-controller installed extensions is taken over in place
// (issue #26, decisions 0049 and 0074): the objects upstream applied (its owner labels, Helm's
// ownership metadata, owner references) and its release records (its chunked Secret driver,
// Helm's release JSON, written by test/support/upstream-release-records.ts from the documented
// format, never by our writer) are on the cluster; our operator-controller reads the installed
// bundle from upstream's record, continues its numbering and touches no object's identity:
// nothing deleted, nothing re-created. Unchunked and chunked records.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { refOf } from '../../pkg/operator-controller/applier/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { loadBundleDir, renderRelease, waitUntil, writeBundleDir } from '../support/bundle-flow.ts';
import {
  applyAsAdmin,
  bundleFiles,
  clusterExtension,
  installedAs,
  installerFor,
  packageCatalog,
  publishCatalog,
  pushBundle,
  useExtensionStack,
  waitForExtension,
  type BundleSpec,
} from '../support/extensions.ts';
import { helm } from '../support/helm.ts';
import { fixturePayload, upstreamRecord } from '../support/upstream-release-records.ts';

const run = randomBytes(3).toString('hex');
const suite = useExtensionStack();
const CE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };

/** `objects` as upstream's Helm applier leaves them: its owner reference and Helm's ownership metadata on top of the owner labels. */
function asUpstreamApplied(objects: readonly KubeObject[], extension: { name: string; uid: string }, namespace: string): KubeObject[] {
  return objects.map((o) => ({
    ...o,
    metadata: {
      ...o.metadata,
      labels: { ...o.metadata.labels, 'app.kubernetes.io/managed-by': 'Helm' },
      annotations: { ...o.metadata.annotations, 'meta.helm.sh/release-name': extension.name, 'meta.helm.sh/release-namespace': namespace },
      ownerReferences: [
        { apiVersion: CE.apiVersion, kind: CE.kind, name: extension.name, uid: extension.uid, controller: true, blockOwnerDeletion: true },
      ],
    },
  }));
}

/** Upstream's release JSON for revision 1 of `extension` with `objects` as its manifest and `bundle`'s storage labels. */
function upstreamPayload(
  extension: string,
  namespace: string,
  objects: readonly KubeObject[],
  bundle: { pkg: string; version: string; image: string },
): string {
  const doc = JSON.parse(fixturePayload()) as Record<string, unknown> & {
    labels: Record<string, string>;
    chart: { metadata: Record<string, unknown> };
  };
  doc['name'] = extension;
  doc['namespace'] = namespace;
  doc['version'] = 1;
  doc['manifest'] = objects.map((o) => JSON.stringify(o)).join('\n') + '\n';
  doc.labels = {
    'olm.operatorframework.io/bundle-name': `${bundle.pkg}.v${bundle.version}`,
    'olm.operatorframework.io/bundle-reference': bundle.image,
    'olm.operatorframework.io/bundle-version': bundle.version,
    'olm.operatorframework.io/package-name': bundle.pkg,
  };
  doc.chart.metadata = { ...doc.chart.metadata, name: bundle.pkg, version: bundle.version, annotations: { 'olm.properties': '[]' } };
  return JSON.stringify(doc) + '\n';
}

describe("taking over upstream operator-controller's extensions", () => {
  it.each([
    ['an unchunked', 0],
    ['a chunked', 1_600_000],
  ])('continues %s upstream release in place: no object deleted or re-created, the next revision numbered after it', async (_kind, padBytes) => {
    const { kube } = suite;
    const pkg = `upstream-${padBytes === 0 ? 'one' : 'many'}-${run}`;
    const spec: BundleSpec = { pkg, version: '1.0.0', configMaps: ['settings'], padBytes };
    const files = bundleFiles(spec);
    await installerFor(kube.client, pkg, 'installer', [spec]);
    const image = await pushBundle(files, `${suite.registry}/bundles/${pkg}:v1.0.0`);
    const catalog = `upstream-${padBytes === 0 ? 'one' : 'many'}-${run}`;
    const bundles = [{ version: '1.0.0', image }];
    await publishCatalog(
      suite.stack,
      catalog,
      packageCatalog(pkg, { defaultChannel: 'stable', channels: [{ name: 'stable', entries: [{ version: '1.0.0' }] }], bundles }),
    );

    // The ClusterExtension first selects nothing, so upstream's state can be put under it.
    const nothing = { matchLabels: { 'olm.operatorframework.io/metadata.name': `none-${run}` } };
    await kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg, selector: nothing }));
    const uid = (await kube.client.get({ ...CE, name: pkg })).metadata.uid ?? '';
    const tmp = await mkdtemp(join(tmpdir(), 'takeover-'));
    const loaded = await loadBundleDir(await writeBundleDir(join(tmp, 'bundle'), files)).finally(() => rm(tmp, { recursive: true, force: true }));
    const objects = asUpstreamApplied(renderRelease(loaded, { installNamespace: pkg }, pkg), { name: pkg, uid }, pkg);
    await applyAsAdmin(kube.client, objects);
    const record = upstreamRecord(upstreamPayload(pkg, pkg, objects, { pkg, version: '1.0.0', image }), 'olmv1-system', { name: pkg, uid });
    const index = await kube.client.create(record.index);
    for (const chunk of record.chunks(index.metadata.uid ?? '')) await kube.client.create(chunk);
    expect(record.chunks('x').length > 0).toBe(padBytes > 0);
    const uids = new Map<string, string>();
    for (const o of objects) uids.set(`${o.kind}/${o.metadata.name ?? ''}`, (await kube.client.get(refOf(o))).metadata.uid ?? '');

    await kube.client.patch(
      { ...CE, name: pkg },
      { spec: { source: { catalog: { selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': catalog } } } } } },
      'merge',
    );
    await waitForExtension(kube.client, pkg, 'installed, taken over', installedAs(`${pkg}.v1.0.0`), 90_000);
    // Upstream's record stands for the bundle until it is pulled (the installed bundle is repaired
    // from its record at once); then our rendering differs byte-wise from upstream's manifest,
    // so one upgrade revision is recorded (as upstream would on any manifest difference),
    // numbered after upstream's.
    const store = createReleaseStore({ client: kube.client, namespace: 'olmv1-system' });
    // Revision 2 is marked deployed before revision 1 superseded (two writes): wait for both.
    await waitUntil(
      'revision 2 deployed, revision 1 superseded (and no other revision)',
      async () => JSON.stringify((await store.history(pkg)).map((r) => [r.revision, r.status])) === '[[2,"deployed"],[1,"superseded"]]',
      90_000,
    );
    for (const o of objects)
      expect((await kube.client.get(refOf(o))).metadata.uid, `${o.kind} ${o.metadata.name ?? ''}`).toBe(
        uids.get(`${o.kind}/${o.metadata.name ?? ''}`),
      );
    if (padBytes === 0) {
      // Stock helm reads the deployed revision we wrote (decision 0074 says what it cannot read).
      const manifest = await helm('get', 'manifest', pkg, '--revision', '2', '-n', 'olmv1-system');
      expect(manifest.code, manifest.stderr).toBe(0);
      expect(manifest.stdout).toContain(`"name":"${pkg}-settings"`);
    }
  });
});
