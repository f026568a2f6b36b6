/**
 * Bundles and catalogs for the fault tests on a node (test/e2e/on-node-faults.test.ts), pushed
 * to the product's registry on the node (plain HTTP, reached by the host and by the Pods):
 * light bundles of ConfigMaps only (no Deployment, so no Pod per extension on a 2-core node),
 * hostile bundles (a layer declaring a GiB, more files than the cap, one manifest of tens of MB
 * in hundreds of thousands of small entries) and a catalog image bomb.
 */
import { randomBytes } from 'node:crypto';
import { buildCatalogImage, buildImage, buildLayer, CATALOG_CONFIGS_LABEL, createImageClient, filesToEntries } from '../../pkg/shared/image/index.ts';
import type { BuiltImage, BuiltLayer } from '../../pkg/shared/image/index.ts';
import { editManifest, type BundleText } from './bundle-flow.ts';
import { bundleFiles } from './bundle-gen.ts';
import { writeCatalogFiles } from './catalogs.ts';
import { packageCatalog } from './extensions.ts';
import { zeroFileLayer } from './image-bombs.ts';
import { withTempDir } from './temp-dir.ts';

const BUNDLE_LABELS = (pkg: string): Record<string, string> => ({
  'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
  'operators.operatorframework.io.bundle.package.v1': pkg,
});

/** A registry+v1 bundle of `pkg` at `version` whose only objects are the ConfigMaps `<pkg>-settings` and `<pkg>-extra` (data.version). */
export function lightBundle(pkg: string, version: string): BundleText {
  const files = bundleFiles({ pkg, version, crds: [], configMaps: ['settings', 'extra'] });
  editManifest<{ spec: { install: { spec: Record<string, unknown> } } }>(files, 'manifests/csv.json', (csv) => {
    csv.spec.install.spec = { deployments: [] };
  });
  return files;
}

export type HostileKind = 'bomb' | 'files' | 'huge';

/** The package of the hostile bundle `kind`. */
export const hostilePackage = (kind: HostileKind): string => `hostile-${kind}`;

/** The hostile bundles (each package `hostile-<kind>` at 1.0.0), by kind: each one refused or failed, never installed. */
export function hostileBundles(): Record<HostileKind, BuiltImage> {
  const pkgOf = hostilePackage;
  const image = (kind: HostileKind, extra: (files: BundleText) => void, layers: (files: BundleText) => BuiltLayer[]): BuiltImage => {
    const files = lightBundle(pkgOf(kind), '1.0.0');
    extra(files);
    return buildImage({ layers: layers(files), labels: BUNDLE_LABELS(pkgOf(kind)) });
  };
  const plain = (files: BundleText): BuiltLayer[] => [buildLayer(filesToEntries(files))];
  return {
    // ~1 MB compressed, a tar entry declaring 1 GiB: the unpacked-bytes cap (32 MiB).
    bomb: image(
      'bomb',
      () => undefined,
      (files) => [buildLayer(filesToEntries(files)), zeroFileLayer('manifests/zeros.bin', 1 << 30)],
    ),
    // More files than the files cap (10,000), each a tiny ConfigMap.
    files: image(
      'files',
      (files) => {
        for (let i = 0; i < 10_050; i++) {
          files.set(`manifests/cm-${i}.json`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${pkgOf('files')}-${i}` } }));
        }
      },
      plain,
    ),
    // Under the caps: one ConfigMap of ~24 MB in 350,000 small entries, which the API server
    // refuses (its request limit is 3 MiB) once it has been read, rendered and recorded.
    huge: image(
      'huge',
      (files) => {
        const data: Record<string, string> = {};
        const filler = randomBytes(24).toString('hex');
        for (let i = 0; i < 350_000; i++) data[`k${i}`] = filler;
        files.set(
          'manifests/cm-huge.json',
          JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${pkgOf('huge')}-huge` }, data }),
        );
      },
      plain,
    ),
  };
}

/** Pushes `image` to `ref` on `registry` (plain HTTP); returns `<repo>@<digest>`. */
export async function pushTo(registry: string, ref: string, image: BuiltImage): Promise<string> {
  const client = createImageClient({ insecureRegistries: [registry] });
  try {
    const digest = await client.push(ref, image);
    return `${ref.replace(/:[^:/]+$/, '')}@${digest}`;
  } finally {
    client.close();
  }
}

/**
 * Pushes the light bundles of every package in `versions` (package -> versions) and the given
 * prebuilt `images` (package -> image, offered as 1.0.0), then one catalog offering them all on
 * channel `stable` (no edges: extensions choose versions with upgradeConstraintPolicy
 * SelfCertified). Returns the catalog's reference.
 */
export async function offerAll(registry: string, versions: Record<string, string[]>, images: Record<string, BuiltImage> = {}): Promise<string> {
  const files: Record<string, string> = {};
  const offer = (pkg: string, refs: Record<string, string>): void => {
    const listed = Object.keys(refs);
    Object.assign(
      files,
      packageCatalog(pkg, {
        defaultChannel: 'stable',
        channels: [{ name: 'stable', entries: listed.map((version) => ({ version })) }],
        bundles: listed.map((version) => ({ version, image: refs[version] ?? '' })),
      }),
    );
  };
  for (const [pkg, list] of Object.entries(versions)) {
    const refs: Record<string, string> = {};
    for (const v of list) {
      const bundle = buildImage({ files: lightBundle(pkg, v), labels: BUNDLE_LABELS(pkg) });
      refs[v] = await pushTo(registry, `${registry}/bundles/${pkg}:v${v}`, bundle);
    }
    offer(pkg, refs);
  }
  for (const [pkg, image] of Object.entries(images)) offer(pkg, { '1.0.0': await pushTo(registry, `${registry}/bundles/${pkg}:v1.0.0`, image) });
  const ref = `${registry}/catalogs/faults:latest`;
  await withTempDir('fbc-', async (dir) => pushTo(registry, ref, await buildCatalogImage(await writeCatalogFiles(dir, files))));
  return ref;
}

/** A catalog image whose second layer declares a 1 GiB file (catalogd's unpacked cap is 256 MiB); returns its reference. */
export async function pushCatalogBomb(registry: string): Promise<string> {
  const catalog = buildLayer(filesToEntries({ 'configs/bomb/catalog.json': '{"schema":"olm.package","name":"bomb"}\n' }));
  const image = buildImage({ layers: [catalog, zeroFileLayer('configs/zeros.json', 1 << 30)], labels: { [CATALOG_CONFIGS_LABEL]: '/configs' } });
  return pushTo(registry, `${registry}/catalogs/bomb:v1`, image);
}
