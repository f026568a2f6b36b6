/**
 * Benchmark inputs, built once per run under a temporary work directory and shared by the
 * benchmarks that need them: the generated 31 MB / 5,000-bundle catalog, the ~60 MB set of
 * three catalogs, a catalog of a few large packages (~1.1 MB `/metas` answers each), and the
 * catalog image pushed to a real registry (test/envtest's registry
 * binary, built once and cached under ~/.cache/olmv1/envtest).
 */
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type GenerateSummary, generateCatalog, generateCatalogSet } from '../../test/fixtures/generate/catalog.ts';
import { type Registry, defaultCacheRoot, resolveBinaries, startRegistry } from '../../test/envtest/index.ts';
import { buildCatalogImage, createImageClient } from '../../pkg/shared/image/index.ts';

/** The generated reference catalog. */
export interface CatalogFixture {
  dir: string;
  summary: GenerateSummary;
  /** Package names (one directory each). */
  packages: string[];
}

/** The reference catalog as an image in a running registry. */
export interface CatalogImageFixture {
  /** Digest reference to pull. */
  ref: string;
  /** `127.0.0.1:PORT`, to be configured as an insecure (plain HTTP) registry. */
  registryHost: string;
  /** The gzip layer blob, also written to disk at `layerPath`. */
  layerBytes: number;
  layerPath: string;
  buildMs: number;
}

/** Settings of {@link Fixtures}. */
export interface FixturesOptions {
  workDir: string;
  /** Environment for locating or building the registry binary (HOME, PATH, KUBEBUILDER_ASSETS). */
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

const LARGE_PACKAGES = 8;
const LARGE_PACKAGE_BUNDLES = 265;

/** Lazily built, memoised inputs; `close()` stops the registry. */
export class Fixtures {
  readonly workDir: string;
  readonly #env: NodeJS.ProcessEnv;
  readonly #log: (line: string) => void;
  #catalog: Promise<CatalogFixture> | undefined;
  #set: Promise<CatalogFixture[]> | undefined;
  #large: Promise<CatalogFixture> | undefined;
  #image: Promise<CatalogImageFixture> | undefined;
  #registry: Registry | undefined;

  constructor(opts: FixturesOptions) {
    this.workDir = opts.workDir;
    this.#env = opts.env;
    this.#log = opts.log;
  }

  /** The ~31 MB, 5,000-bundle catalog (seed 1). */
  catalog(): Promise<CatalogFixture> {
    this.#catalog ??= (async () => {
      this.#log('generating the 5,000-bundle catalog');
      const dir = join(this.workDir, 'catalog');
      const summary = await generateCatalog(dir, { seed: 1 });
      return { dir, summary, packages: await packageDirs(dir) };
    })();
    return this.#catalog;
  }

  /** The three-catalog set (~60 MB). */
  catalogSet(): Promise<CatalogFixture[]> {
    this.#set ??= (async () => {
      this.#log('generating the 3-catalog set');
      const summaries = await generateCatalogSet(join(this.workDir, 'set'), { seed: 1 });
      return Promise.all(summaries.map(async (summary) => ({ dir: summary.dir, summary, packages: await packageDirs(summary.dir) })));
    })();
    return this.#set;
  }

  /**
   * LARGE_PACKAGES packages of LARGE_PACKAGE_BUNDLES bundles each, one JSON document per line:
   * a package's `/metas?package=` answer is ~0.9-1.2 MB (1.05 MB on average), the size of a large
   * community-catalog package with many bundles (issue 30's 1.1 MB answers). Each package is
   * generated alone (seeds 101..) and moved into one catalog directory.
   */
  largePackages(): Promise<CatalogFixture> {
    this.#large ??= (async () => {
      this.#log(`generating ${LARGE_PACKAGES} large packages`);
      const dir = join(this.workDir, 'large-packages');
      const summary: GenerateSummary = { dir, packages: 0, channels: 0, bundles: 0, deprecations: 0, bytes: 0 };
      await mkdir(dir, { recursive: true });
      for (let i = 0; i < LARGE_PACKAGES; i++) {
        const part = join(this.workDir, `large-package-${i}`);
        const one = await generateCatalog(part, { seed: 101 + i, bundles: LARGE_PACKAGE_BUNDLES, packages: 1, yamlShare: 0, prettyShare: 0 });
        for (const name of await packageDirs(part)) await rename(join(part, name), join(dir, name));
        await rm(part, { recursive: true });
        for (const k of ['packages', 'channels', 'bundles', 'deprecations', 'bytes'] as const) summary[k] += one[k];
      }
      return { dir, summary, packages: await packageDirs(dir) };
    })();
    return this.#large;
  }

  /** The reference catalog built as a catalog image and pushed to a local registry. */
  catalogImage(): Promise<CatalogImageFixture> {
    this.#image ??= (async () => {
      const catalog = await this.catalog();
      this.#log('building the catalog image');
      const start = performance.now();
      const image = await buildCatalogImage(catalog.dir);
      const buildMs = performance.now() - start;
      const layer = image.layers[0];
      if (layer === undefined) throw new Error('catalog image has no layer');
      const layerPath = join(this.workDir, 'catalog-layer.tar.gz');
      await writeFile(layerPath, layer.data);

      this.#log('starting the registry (first run builds it from Go modules, several minutes)');
      const binaries = await resolveBinaries({
        kubebuilderAssets: this.#env['KUBEBUILDER_ASSETS'],
        cacheRoot: defaultCacheRoot(this.#env),
        env: this.#env,
        log: this.#log,
      });
      this.#registry = await startRegistry({ binaries, tmpRoot: this.workDir });
      const client = createImageClient({ insecureRegistries: [this.#registry.host] });
      try {
        const digest = await client.push(`${this.#registry.host}/bench/catalog:v1`, image);
        return {
          ref: `${this.#registry.host}/bench/catalog@${digest}`,
          registryHost: this.#registry.host,
          layerBytes: layer.size,
          layerPath,
          buildMs,
        };
      } finally {
        client.close();
      }
    })();
    return this.#image;
  }

  /** Stops the registry (the caller removes the work directory). */
  async close(): Promise<void> {
    await this.#registry?.stop();
  }
}

async function packageDirs(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}
