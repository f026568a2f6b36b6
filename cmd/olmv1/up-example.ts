/**
 * The example content `olmv1 up` publishes from examples/example-operator: the operator image (its
 * Go program built here), each bundle image naming that image by digest, and the catalog image,
 * rewritten to the registry pushed to when that is not the default one.
 */
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readBundleDir } from '../../pkg/operator-controller/bundle/index.ts';
import { pushExampleOperatorImages } from '../../pkg/olmv1/images/index.ts';
import { buildCatalogImage, buildImage, createImageClient } from '../../pkg/shared/image/index.ts';

/** The registry host the committed example catalog and ClusterCatalog sample refer to. */
export const EXAMPLE_REGISTRY = '127.0.0.1:5001';

/** The examples under `examples/`, each with `operator/`, `bundles/<version>/` and `catalog/<name>/catalog.yaml`. */
type ExampleName = 'example-operator' | 'webhook-operator';
const CATALOG_REPOSITORIES: Record<ExampleName, string> = {
  'example-operator': 'olmv1/example-catalog',
  'webhook-operator': 'olmv1/webhook-operator-catalog',
};

/** What was pushed. */
interface PushedExample {
  /** `<registry>/olmv1/example-catalog:latest`. */
  catalogRef: string;
  catalogDigest: string;
  /** Bundle image references by version. */
  bundles: Record<string, string>;
  /** Operator image digest references by version, as the pushed bundles name them. */
  operatorImages: Record<string, string>;
}

/** Pushes an example's images, bundles and catalog to `registry`; `workDir` is an empty scratch directory. */
export async function pushExample(
  repoRoot: string,
  registry: string,
  insecureRegistries: readonly string[],
  workDir: string,
  env: NodeJS.ProcessEnv,
  name: ExampleName = 'example-operator',
): Promise<PushedExample> {
  const exampleDir = join(repoRoot, 'examples', name);
  const OPERATOR_REPOSITORY = `olmv1/${name}`;
  const BUNDLE_REPOSITORY = `olmv1/${name}-bundle`;
  const versions = (await readdir(join(exampleDir, 'bundles'))).sort();
  const binDir = join(workDir, 'operator');
  await mkdir(binDir);
  const operators = await pushExampleOperatorImages({
    sourceDir: join(exampleDir, 'operator'),
    versions,
    registry,
    insecureRegistries,
    workDir: binDir,
    env,
    repository: OPERATOR_REPOSITORY,
  });
  const operatorImages = Object.fromEntries(operators.map((o) => [o.version, o.digestRef]));
  const client = createImageClient({ insecureRegistries });
  try {
    const bundles: Record<string, string> = {};
    for (const version of versions) {
      const committedRef = `${EXAMPLE_REGISTRY}/${OPERATOR_REPOSITORY}:v${version}`;
      const files = new Map<string, Buffer>();
      for (const [path, bytes] of await readBundleDir(join(exampleDir, 'bundles', version))) {
        if (path.endsWith('/')) continue;
        const text = Buffer.from(bytes).toString('utf8');
        const pinned = operatorImages[version];
        files.set(
          path,
          pinned !== undefined && text.includes(committedRef) ? Buffer.from(text.replaceAll(committedRef, pinned)) : Buffer.from(bytes),
        );
      }
      const image = buildImage({
        files,
        labels: {
          'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
          'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
          'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
          'operators.operatorframework.io.bundle.package.v1': name,
        },
      });
      const ref = `${registry}/${BUNDLE_REPOSITORY}:v${version}`;
      await client.push(ref, image);
      bundles[version] = ref;
    }
    const catalogDir = join(workDir, 'catalog');
    await cp(join(exampleDir, 'catalog'), catalogDir, { recursive: true });
    if (registry !== EXAMPLE_REGISTRY) {
      const file = join(catalogDir, name, 'catalog.yaml');
      await writeFile(file, (await readFile(file, 'utf8')).replaceAll(`image: ${EXAMPLE_REGISTRY}/`, `image: ${registry}/`));
    }
    const catalogRef = `${registry}/${CATALOG_REPOSITORIES[name]}:latest`;
    const catalogDigest = await client.push(catalogRef, await buildCatalogImage(catalogDir));
    return { catalogRef, catalogDigest, bundles, operatorImages };
  } finally {
    client.close();
  }
}
