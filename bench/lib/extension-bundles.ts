/**
 * Inputs of the operator-controller benchmark: generated registry+v1 bundles of a chosen size
 * (a CSV with one Deployment and cluster permissions, owned CRDs, and ConfigMaps to fill up to
 * the wanted number of rendered objects), pushed as bundle images; one file-based catalog
 * listing them, pushed as a catalog image; and the ServiceAccount + RBAC `olmv1 rbac` prints
 * for each, applied as the admin. Every package has its own CRD group, so packages can be
 * installed side by side on one API server.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildCatalogImage, buildImage, createImageClient, type ImageClient } from '../../pkg/image/index.ts';
import type { KubeClient, KubeObject } from '../../pkg/kube/index.ts';
import { type BundleText, loadBundleDir, renderRelease, runRbacCommand, writeBundleDir } from '../../test/support/bundle-flow.ts';
import { bundleFiles } from '../../test/support/bundle-gen.ts';

/** One generated bundle, written to disk and pushed. */
export interface PushedBundle {
  pkg: string;
  version: string;
  /** `<pkg>.v<version>`: the bundle name the catalog and the ClusterExtension status use. */
  name: string;
  dir: string;
  /** `<repository>@<digest>`. */
  image: string;
  /** Objects the rendered release holds (counted by pkg/render before pushing). */
  objects: number;
  /** Size of the image's single (gzip) layer. */
  layerBytes: number;
}

const VERSION = '1.0.0';

/** The generated bundle (test/support/bundle-gen.ts, as the e2e suites use) with `configMaps` fill-up ConfigMaps. */
function bundleText(pkg: string, crds: readonly string[], configMaps: number): BundleText {
  return bundleFiles({ pkg, version: VERSION, crds: [...crds], configMaps: Array.from({ length: configMaps }, (_, i) => `settings-${i}`) });
}

async function renderedCount(dir: string, pkg: string): Promise<number> {
  return renderRelease(await loadBundleDir(dir), { installNamespace: pkg }, pkg).length;
}

/**
 * Writes a bundle of package `pkg` with `crds` owned CRDs whose rendered release holds exactly
 * `objects` objects (ConfigMaps fill the difference; undefined: none), under `root/<pkg>`, and
 * pushes it to `<registry>/bench-bundles/<pkg>:v1.0.0`.
 */
export async function pushGeneratedBundle(
  images: ImageClient,
  registry: string,
  root: string,
  pkg: string,
  crds: readonly string[],
  objects?: number,
): Promise<PushedBundle> {
  let fill = 0;
  if (objects !== undefined) {
    const base = await renderedCount(await writeBundleDir(join(root, `${pkg}-probe`), bundleText(pkg, crds, 0)), pkg);
    if (base > objects) throw new Error(`a bundle with ${crds.length} CRDs renders ${base} objects, more than ${objects}`);
    fill = objects - base;
  }
  const files = bundleText(pkg, crds, fill);
  const dir = await writeBundleDir(join(root, pkg), files);
  const count = await renderedCount(dir, pkg);
  if (objects !== undefined && count !== objects) throw new Error(`bundle ${pkg} renders ${count} objects, not ${objects}`);
  const image = buildImage({
    files: new Map(files),
    labels: { 'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1', 'operators.operatorframework.io.bundle.package.v1': pkg },
  });
  const ref = `${registry}/bench-bundles/${pkg}:v${VERSION}`;
  const digest = await images.push(ref, image);
  return {
    pkg,
    version: VERSION,
    name: `${pkg}.v${VERSION}`,
    dir,
    image: `${registry}/bench-bundles/${pkg}@${digest}`,
    objects: count,
    layerBytes: image.layers[0]?.size ?? 0,
  };
}

/** Writes a file-based catalog with one package (one channel, one bundle) per pushed bundle and pushes it to `ref`; returns the digest. */
export async function pushCatalog(images: ImageClient, dir: string, ref: string, bundles: readonly PushedBundle[]): Promise<string> {
  for (const b of bundles) {
    const docs = [
      { schema: 'olm.package', name: b.pkg, defaultChannel: 'stable' },
      { schema: 'olm.channel', package: b.pkg, name: 'stable', entries: [{ name: b.name }] },
      {
        schema: 'olm.bundle',
        package: b.pkg,
        name: b.name,
        image: b.image,
        properties: [{ type: 'olm.package', value: { packageName: b.pkg, version: b.version } }],
      },
    ];
    await mkdir(join(dir, b.pkg), { recursive: true });
    await writeFile(join(dir, b.pkg, 'catalog.json'), docs.map((d) => JSON.stringify(d)).join('\n'));
  }
  return images.push(ref, await buildCatalogImage(dir));
}

/** Creates namespace `ns` and applies, as the admin, the ServiceAccount `sa` and the RBAC `olmv1 rbac` prints for `bundle`. */
export async function createInstaller(client: KubeClient, bundle: PushedBundle, ns: string, sa: string): Promise<number> {
  await client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, { fieldManager: 'olmv1-bench', force: true });
  const out = await runRbacCommand([bundle.dir, '--install-namespace', ns, '--service-account', sa]);
  if (out.code !== 0) throw new Error(`olmv1 rbac ${bundle.dir} exited with ${out.code}: ${out.stderr}`);
  for (const obj of out.objects) await client.apply(obj, { fieldManager: 'olmv1-bench', force: true });
  return out.objects.length;
}

/** A ClusterExtension installing `bundle`'s package into `ns` as ServiceAccount `sa`. */
export function clusterExtension(name: string, bundle: PushedBundle, ns: string, sa: string): KubeObject {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name },
    spec: { namespace: ns, serviceAccount: { name: sa }, source: { sourceType: 'Catalog', catalog: { packageName: bundle.pkg } } },
  };
}

/** Opens an image client for the loopback registry. */
export function benchImageClient(): ImageClient {
  return createImageClient({ insecureRegistries: ['127.0.0.1'] });
}
