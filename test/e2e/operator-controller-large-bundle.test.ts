// operator-controller end to end with bundles above an eighth of the unpacked-bytes cap, whose
// JSON lines (the parse's and the rendering's) are kept in files rather than the heap, and whose
// release records' manifests are read into files by each reconcile (pkg/shared/lines, decision
// 0098 items 16 and 17): installed, upgraded, repaired and uninstalled as any other,
// with nothing left in the cache directory's line files. The cap is set from the generated
// bundles' size so that they are above an eighth of it and below it.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BUNDLE_IMAGE_LIMITS } from '../../pkg/shared/image/index.ts';
import type { KubeContext } from '../../pkg/shared/kube/index.ts';
import { createReleaseStore, manifestLine } from '../../pkg/operator-controller/release/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import {
  bundleFiles,
  clusterExtension,
  installedAs,
  installerFor,
  objectExists,
  packageCatalog,
  publishCatalog,
  pushBundle,
  startExtensionStack,
  waitForExtension,
  type BundleSpec,
  type ExtensionStack,
} from '../support/extensions.ts';

const run = randomBytes(3).toString('hex');
const pkg = `large-${run}`;
const v100: BundleSpec = { pkg, version: '1.0.0', crds: ['widgets'], configMaps: ['settings', 'legacy'] };
const v110: BundleSpec = { pkg, version: '1.1.0', crds: ['widgets'], configMaps: ['settings'] };
const bytesOf = (spec: BundleSpec): number => [...bundleFiles(spec).values()].reduce((n, text) => n + Buffer.byteLength(text), 0);
// Both bundles above an eighth of the cap (their lines go to files) and well below it.
const cap = 4 * Math.max(bytesOf(v100), bytesOf(v110));

let stack: ExtensionStack;
let kube: KubeContext;
let cacheDir: string;

beforeAll(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), 'large-bundle-cache-'));
  stack = await startExtensionStack(inject('envtestControlPlane'), inject('envtestRegistries').anonymous.host, {
    controller: { cacheDir, imageLimits: { ...BUNDLE_IMAGE_LIMITS, maxUnpackedBytes: cap } },
  });
  kube = stack.kube;
});

afterAll(async () => {
  await stack?.stop();
  await rm(cacheDir, { recursive: true, force: true });
});

describe('a bundle whose lines are kept in files', () => {
  it('is installed, upgraded, repaired and uninstalled, leaving no line file behind', async () => {
    expect(Math.min(bytesOf(v100), bytesOf(v110))).toBeGreaterThan(cap / 8);
    const images: Record<string, string> = {};
    for (const spec of [v100, v110]) images[spec.version] = await pushBundle(bundleFiles(spec), `${stack.registry}/bundles/${pkg}:v${spec.version}`);
    await installerFor(kube.client, pkg, 'installer', [v100, v110]);
    const entries = (versions: { version: string; replaces?: string }[]) =>
      packageCatalog(pkg, {
        defaultChannel: 'stable',
        channels: [{ name: 'stable', entries: versions }],
        bundles: versions.map((e) => ({ version: e.version, image: images[e.version] ?? '' })),
      });
    await publishCatalog(stack, pkg, entries([{ version: '1.0.0' }]));
    await kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg }));
    await waitForExtension(kube.client, pkg, 'installed 1.0.0', installedAs(`${pkg}.v1.0.0`));
    const settings = { apiVersion: 'v1', kind: 'ConfigMap', namespace: pkg, name: `${pkg}-settings` };
    const legacy = { ...settings, name: `${pkg}-legacy` };
    expect(await objectExists(kube.client, legacy)).toBe(true);

    // Drift: a deleted object comes back from the rendering held in a file.
    await kube.client.delete(settings);
    await waitUntil('the deleted ConfigMap is put back', () => objectExists(kube.client, settings), 60_000);

    await publishCatalog(stack, pkg, entries([{ version: '1.0.0' }, { version: '1.1.0', replaces: '1.0.0' }]));
    await waitForExtension(kube.client, pkg, 'upgraded to 1.1.0', installedAs(`${pkg}.v1.1.0`), 90_000);
    expect(await objectExists(kube.client, legacy)).toBe(false);
    const history = await createReleaseStore({ client: kube.client, namespace: 'olmv1-system' }).history(pkg);
    expect(history.map((r) => [r.revision, r.status])).toEqual([
      [2, 'deployed'],
      [1, 'superseded'],
    ]);
    expect(history[0]?.manifest.map((o) => `${o.kind} ${o.metadata.name ?? ''}`)).toContain(`ConfigMap ${pkg}-settings`);
    // Both records are above an eighth of the cap too: the reconciles after the install (the
    // drift repair) and the upgrade read them from line files.
    for (const r of history) expect(r.manifest.map(manifestLine).join('').length).toBeGreaterThan(cap / 8);

    await kube.client.delete({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', name: pkg });
    await waitUntil('the extension is uninstalled', async () => !(await objectExists(kube.client, settings)), 60_000);
    // The line files are unlinked when made: the directory never lists any.
    expect(await readdir(join(cacheDir, 'lines'))).toEqual([]);
  });
});
