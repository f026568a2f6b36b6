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
import { buildCatalogImage, buildImage, createImageClient, type ImageClient } from '../../pkg/shared/image/index.ts';
import type { KubeClient, KubeObject } from '../../pkg/shared/kube/index.ts';
import { type BundleText, loadBundleDir, renderRelease, runRbacCommand, writeBundleDir } from '../../test/support/bundle-flow.ts';
import { type BundleSpec, bundleFiles } from '../../test/support/bundle-gen.ts';

/** One generated bundle, written to disk and pushed. */
export interface PushedBundle {
  pkg: string;
  version: string;
  /** `<pkg>.v<version>`: the bundle name the catalog and the ClusterExtension status use. */
  name: string;
  dir: string;
  /** `<repository>@<digest>`. */
  image: string;
  /** Objects the rendered release holds (counted by pkg/operator-controller/render before pushing). */
  objects: number;
  /** Size of the image's single (gzip) layer. */
  layerBytes: number;
}

/** Version and extra parts of a generated bundle (default 1.0.0, nothing extra). */
export interface BundleVariant {
  version?: string;
  /** A Service whose port the API server refuses: the bundle fails to apply (test/support/bundle-gen.ts). */
  invalidService?: boolean;
}

/** The generated bundle (test/support/bundle-gen.ts, as the e2e suites use) with `configMaps` fill-up ConfigMaps. */
function bundleText(pkg: string, crds: readonly string[], configMaps: number, variant: BundleVariant): BundleText {
  const spec: BundleSpec = {
    pkg,
    version: variant.version ?? '1.0.0',
    crds: [...crds],
    configMaps: Array.from({ length: configMaps }, (_, i) => `settings-${i}`),
    ...(variant.invalidService === true ? { invalidService: true } : {}),
  };
  return bundleFiles(spec);
}

async function renderedCount(dir: string, pkg: string): Promise<number> {
  return renderRelease(await loadBundleDir(dir), { installNamespace: pkg }, pkg).length;
}

/**
 * Writes a bundle of package `pkg` with `crds` owned CRDs whose rendered release holds exactly
 * `objects` objects (ConfigMaps fill the difference; undefined: none), under
 * `root/<pkg>.v<version>`, and pushes it to `<registry>/bench-bundles/<pkg>:v<version>`.
 */
export async function pushGeneratedBundle(
  images: ImageClient,
  registry: string,
  root: string,
  pkg: string,
  crds: readonly string[],
  objects?: number,
  variant: BundleVariant = {},
): Promise<PushedBundle> {
  const version = variant.version ?? '1.0.0';
  let fill = 0;
  if (objects !== undefined) {
    const base = await renderedCount(await writeBundleDir(join(root, `${pkg}-probe`), bundleText(pkg, crds, 0, variant)), pkg);
    if (base > objects) throw new Error(`a bundle with ${crds.length} CRDs renders ${base} objects, more than ${objects}`);
    fill = objects - base;
  }
  const files = bundleText(pkg, crds, fill, variant);
  const dir = await writeBundleDir(join(root, `${pkg}.v${version}`), files);
  const count = await renderedCount(dir, pkg);
  if (objects !== undefined && count !== objects) throw new Error(`bundle ${pkg} renders ${count} objects, not ${objects}`);
  const image = buildImage({
    files: new Map(files),
    labels: { 'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1', 'operators.operatorframework.io.bundle.package.v1': pkg },
  });
  const ref = `${registry}/bench-bundles/${pkg}:v${version}`;
  const digest = await images.push(ref, image);
  return {
    pkg,
    version,
    name: `${pkg}.v${version}`,
    dir,
    image: `${registry}/bench-bundles/${pkg}@${digest}`,
    objects: count,
    layerBytes: image.layers[0]?.size ?? 0,
  };
}

/**
 * Writes a file-based catalog of the pushed bundles and pushes it to `ref`; returns the digest.
 * Each package gets one channel `stable` (its default) listing its bundles in the order given,
 * each replacing the one before it, so a later version is an upgrade of the earlier one.
 */
export async function pushCatalog(images: ImageClient, dir: string, ref: string, bundles: readonly PushedBundle[]): Promise<string> {
  const byPackage = new Map<string, PushedBundle[]>();
  for (const b of bundles) byPackage.set(b.pkg, [...(byPackage.get(b.pkg) ?? []), b]);
  for (const [pkg, versions] of byPackage) {
    const docs = [
      { schema: 'olm.package', name: pkg, defaultChannel: 'stable' },
      {
        schema: 'olm.channel',
        package: pkg,
        name: 'stable',
        entries: versions.map((b, i) => (i === 0 ? { name: b.name } : { name: b.name, replaces: versions[i - 1]?.name })),
      },
      ...versions.map((b) => ({
        schema: 'olm.bundle',
        package: pkg,
        name: b.name,
        image: b.image,
        properties: [{ type: 'olm.package', value: { packageName: pkg, version: b.version } }],
      })),
    ];
    await mkdir(join(dir, pkg), { recursive: true });
    await writeFile(join(dir, pkg, 'catalog.json'), docs.map((d) => JSON.stringify(d)).join('\n'));
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
export function clusterExtension(name: string, bundle: PushedBundle, ns: string, sa: string, annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name, ...(annotations === undefined ? {} : { annotations }) },
    spec: { namespace: ns, serviceAccount: { name: sa }, source: { sourceType: 'Catalog', catalog: { packageName: bundle.pkg } } },
  };
}

/** Creates ClusterCatalog `name` for image `ref` and waits until it serves `digest`. */
export async function createCatalog(client: KubeClient, name: string, ref: string, digest: string, timeoutMs = 90_000): Promise<void> {
  await client.create({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name },
    spec: { source: { type: 'Image', image: { ref } } },
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const cc = await client.get({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name });
    const status = (cc.status ?? {}) as { conditions?: Array<{ type: string; status: string }> };
    if (status.conditions?.some((c) => c.type === 'Serving' && c.status === 'True') === true && JSON.stringify(status).includes(digest)) return;
    if (Date.now() > deadline) throw new Error(`ClusterCatalog ${name} is not serving ${digest}: ${JSON.stringify(cc.status)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Opens an image client for the loopback registry. */
export function benchImageClient(): ImageClient {
  return createImageClient({ insecureRegistries: ['127.0.0.1'] });
}
