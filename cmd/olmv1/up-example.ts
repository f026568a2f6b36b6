/**
 * The example content `olmv1 up` publishes: every bundle directory under
 * `examples/example-operator/bundles/` as a bundle image, and the file-based catalog of
 * `examples/example-operator/catalog/` as a catalog image, pushed without Docker.
 *
 * The committed catalog names its bundle images under the default local registry
 * (`127.0.0.1:5001`); when pushing elsewhere the catalog is rewritten to that registry first.
 */
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readBundleDir } from '../../pkg/operator-controller/bundle/index.ts';
import { buildCatalogImage, buildImage, createImageClient } from '../../pkg/shared/image/index.ts';

/** The registry host the committed example catalog and ClusterCatalog sample refer to. */
export const EXAMPLE_REGISTRY = '127.0.0.1:5001';
/** Repository of the example catalog image inside a registry. */
const EXAMPLE_CATALOG_REPOSITORY = 'olmv1/example-catalog';
const BUNDLE_REPOSITORY = 'olmv1/example-operator-bundle';

/** What was pushed. */
interface PushedExample {
  /** `<registry>/olmv1/example-catalog:latest`. */
  catalogRef: string;
  catalogDigest: string;
  /** Bundle image references by version. */
  bundles: Record<string, string>;
}

/**
 * Pushes the example bundles and catalog to `registry` (a host[:port]; plain HTTP when it is in
 * `insecureRegistries`). `workDir` is an empty scratch directory for the rewritten catalog.
 */
export async function pushExample(
  repoRoot: string,
  registry: string,
  insecureRegistries: readonly string[],
  workDir: string,
): Promise<PushedExample> {
  const exampleDir = join(repoRoot, 'examples/example-operator');
  const client = createImageClient({ insecureRegistries });
  try {
    const bundles: Record<string, string> = {};
    const versions = (await readdir(join(exampleDir, 'bundles'))).sort();
    for (const version of versions) {
      const files = new Map<string, Buffer>();
      for (const [path, bytes] of await readBundleDir(join(exampleDir, 'bundles', version))) {
        if (!path.endsWith('/')) files.set(path, Buffer.from(bytes));
      }
      const image = buildImage({
        files,
        labels: {
          'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
          'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
          'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
          'operators.operatorframework.io.bundle.package.v1': 'example-operator',
        },
      });
      const ref = `${registry}/${BUNDLE_REPOSITORY}:v${version}`;
      await client.push(ref, image);
      bundles[version] = ref;
    }
    const catalogDir = join(workDir, 'catalog');
    await cp(join(exampleDir, 'catalog'), catalogDir, { recursive: true });
    if (registry !== EXAMPLE_REGISTRY) {
      const file = join(catalogDir, 'example-operator', 'catalog.yaml');
      await writeFile(file, (await readFile(file, 'utf8')).replaceAll(`image: ${EXAMPLE_REGISTRY}/`, `image: ${registry}/`));
    }
    const catalogRef = `${registry}/${EXAMPLE_CATALOG_REPOSITORY}:latest`;
    const catalogDigest = await client.push(catalogRef, await buildCatalogImage(catalogDir));
    return { catalogRef, catalogDigest, bundles };
  } finally {
    client.close();
  }
}
