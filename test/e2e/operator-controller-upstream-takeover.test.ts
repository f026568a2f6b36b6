// A cluster where upstream operator-controller installed extensions is taken over in place
// (issue #26, decisions 0049 and 0074): the objects upstream applied (its owner labels, Helm's
// ownership metadata, owner references) and its release records (its chunked Secret driver,
// Helm's release JSON, written by test/support/upstream-release-records.ts from the documented
// format, never by our writer) are on the cluster; our operator-controller reads the installed
// bundle from upstream's record, continues its numbering and touches no object's identity:
// nothing deleted, nothing re-created. Unchunked and chunked records.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { refOf } from '../../pkg/operator-controller/applier/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import {
  bundleFiles,
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
import { handOver, installAsUpstream } from '../support/upstream-takeover.ts';

const run = randomBytes(3).toString('hex');
const suite = useExtensionStack();

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

    const { objects } = await installAsUpstream(kube.client, spec, image, { serviceAccount: 'installer', nothing: `none-${run}` });
    const index = await kube.client.get<KubeObject & { data: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: 'olmv1-system',
      name: `sh.helm.release.v1.${pkg}.v1`,
    });
    // The padded record is chunked: its index names extra chunks.
    expect((JSON.parse(Buffer.from(index.data['extraChunks'] ?? '', 'base64').toString()) as unknown[]).length > 0).toBe(padBytes > 0);
    const uids = new Map<string, string>();
    for (const o of objects) uids.set(`${o.kind}/${o.metadata.name ?? ''}`, (await kube.client.get(refOf(o))).metadata.uid ?? '');

    await handOver(kube.client, pkg, catalog);
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
    for (const o of objects) {
      const live = await kube.client.get(refOf(o));
      expect(live.metadata.uid, `${o.kind} ${o.metadata.name ?? ''}`).toBe(uids.get(`${o.kind}/${o.metadata.name ?? ''}`));
      // Upstream's owner reference to the ClusterExtension is gone: uninstall keeps what it keeps.
      expect(live.metadata.ownerReferences ?? [], `${o.kind} ${o.metadata.name ?? ''}`).toEqual([]);
    }
    if (padBytes === 0) {
      // Stock helm reads the deployed revision we wrote (decision 0074 says what it cannot read).
      const manifest = await helm('get', 'manifest', pkg, '--revision', '2', '-n', 'olmv1-system');
      expect(manifest.code, manifest.stderr).toBe(0);
      expect(manifest.stdout).toContain(`"name":"${pkg}-settings"`);
    }
  });
});
