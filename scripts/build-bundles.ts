/**
 * Bundles each component (catalogd, operator-controller) into one file, decision 0147: esbuild
 * writes `cmd/<name>/start.ts` and everything it imports, the libraries too, to
 * `dist/cmd/<name>/start.cjs`, and `dist/cmd/<name>/main.js` (the image's entry point, over tsc's)
 * becomes a few lines running it through cmd/shared/bundle-loader.ts, which keeps a V8 code cache
 * of it. So Node reads one file before the component answers instead of some 300 modules, and
 * on a restart compiles none of what ran before. The control parts, which the components import
 * after serving or readiness, are in the same file and evaluated only then (esbuild's lazy
 * wrappers). What is loaded by path at run time stays as tsc emitted it: the worker threads and
 * the ingest child (health-worker.js, execute-worker.js, ingest-child.js), prom-client's files
 * (pkg/shared/metrics), pino-pretty and package.json; so each module's `import.meta.url` is
 * rewritten to where tsc emitted that module. A source map with the sources lies beside each
 * bundle. Run after tsc:
 *
 *   node scripts/build-bundles.ts [OUT_DIR]     (default dist)
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Plugin } from 'esbuild';

/** The bundled components and the function each one's start.ts exports. */
export const BUNDLED_COMPONENTS = { catalogd: 'catalogdMain', 'operator-controller': 'operatorControllerMain' } as const;

/**
 * Libraries left to Node's loader (and its compile cache): those no component loads before it
 * serves or is ready (cmd/shared/start-up-modules.test.ts), which would make a start compile the
 * bundle's larger half for nothing (zod, openpgp, CEL, GraphQL, TOML); pino-pretty, loaded only for
 * `--log-format text` through its own require; client-node (16 MB bundled), only for a
 * kubeconfig's exec or auth-provider plugin.
 */
const UNBUNDLED = [
  'zod',
  'openpgp',
  '@bufbuild/cel',
  '@bufbuild/protobuf',
  '@bufbuild/re2',
  'graphql',
  'smol-toml',
  'pino-pretty',
  '@kubernetes/client-node',
] as const;

/** `import.meta.url` of a module at `source`, as the URL of tsc's output for it, seen from the bundle at `bundleFile`. */
export function emittedUrlExpression(root: string, outDir: string, source: string, bundleFile: string): string {
  const emitted = join(outDir, relative(root, source)).replace(/\.ts$/, '.js');
  const rel = relative(dirname(bundleFile), emitted).split(sep).join('/');
  // The bundle runs as CommonJS (bundle-loader.ts): its own require and __dirname.
  return `require("node:url").pathToFileURL(require("node:path").join(__dirname, ${JSON.stringify(rel)})).href`;
}

/** Rewrites `import.meta.url` in the repository's own modules (not node_modules) for a bundle at `bundleFile`. */
function emittedLocations(root: string, outDir: string, bundleFile: string): Plugin {
  const own = new RegExp(`^${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(cmd|pkg)/.*\\.ts$`);
  return {
    name: 'emitted-locations',
    setup(build) {
      build.onLoad({ filter: own }, async ({ path }) => {
        const text = await readFile(path, 'utf8');
        return { contents: text.replaceAll('import.meta.url', emittedUrlExpression(root, outDir, path, bundleFile)), loader: 'ts' };
      });
    },
  };
}

/** The entry point over tsc's main.js: the bundle through the loader (tsc's bundle-loader.js). */
function entrySource(main: string): string {
  return [
    '// Written by scripts/build-bundles.ts (decision 0147): this component bundled into start.cjs.',
    "import { runBundle } from '../shared/bundle-loader.js';",
    '',
    `await runBundle(new URL('./start.cjs', import.meta.url), ${JSON.stringify(main)}, process.argv.slice(2));`,
    '',
  ].join('\n');
}

/** Writes `<outDir>/cmd/<name>/start.cjs` (and its `.map`) and main.js for each component, from the sources under `repoRoot`. */
export async function buildBundles(repoRoot: string, outDir: string): Promise<string[]> {
  const root = resolve(repoRoot);
  const esbuild = await import('esbuild');
  const written: string[] = [];
  for (const [name, main] of Object.entries(BUNDLED_COMPONENTS)) {
    const outfile = join(outDir, 'cmd', name, 'start.cjs');
    await esbuild.build({
      entryPoints: [join(root, 'cmd', name, 'start.ts')],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node24',
      // Class and function names as in the sources: log lines and errors name them.
      keepNames: true,
      sourcemap: 'linked',
      sourcesContent: true,
      external: [...UNBUNDLED],
      // The libraries' own `import.meta.url` (openpgp's createRequire): the bundle's file.
      define: { 'import.meta.url': '__bundleUrl' },
      banner: { js: 'const __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
      plugins: [emittedLocations(root, outDir, outfile)],
      logLevel: 'warning',
    });
    const entry = join(outDir, 'cmd', name, 'main.js');
    await writeFile(entry, entrySource(main));
    written.push(outfile, entry);
  }
  return written;
}

if (import.meta.main) {
  const root = join(import.meta.dirname, '..');
  const out = resolve(root, process.argv[2] ?? 'dist');
  for (const file of await buildBundles(root, out)) process.stdout.write(`${relative(root, file)}\n`);
}
