/**
 * The console's browser bundle (decision 0141): esbuild bundles ui/main.tsx (React, PatternFly and
 * their CSS and fonts) into static files at build time, `dist/console/` (scripts/build-console.ts;
 * the project image builds it with the JavaScript). Each bundle records its key, a hash of the UI
 * sources, the lock file and esbuild's version. The console serves `dist/console/` when its key is
 * that of the sources beside it, or when there are no sources (the image); else, from a checkout
 * not built, it builds once into `<cacheDir>/<key>/` and reuses that.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const UI_DIR = join(HERE, 'ui');
/** `dist/console` of the project: from pkg/olmv1/console (sources) and dist/pkg/olmv1/console (built) alike. */
const BUILT_DIR = join(HERE, '..', '..', '..', '..', 'dist', 'console');
/** The file of a bundle that records its key. */
const KEY_FILE = 'bundle-key';

/** The key of the current UI sources with this lock file; undefined when the sources are not here (an image). */
async function sourcesKey(lockFile: string): Promise<string | undefined> {
  if (!existsSync(join(UI_DIR, 'main.tsx'))) return undefined;
  const esbuild = await import('esbuild');
  const hash = createHash('sha256').update(esbuild.version);
  for (const f of (await readdir(UI_DIR)).sort()) hash.update(f).update(await readFile(join(UI_DIR, f)));
  hash.update(await readFile(lockFile).catch(() => Buffer.alloc(0)));
  return hash.digest('hex').slice(0, 16);
}

/** The directory holding main.js and main.css of the current sources: the built one, else one built now (once). */
export async function ensureBundle(o: { cacheDir: string; lockFile: string; builtDir?: string }): Promise<string> {
  const built = o.builtDir ?? BUILT_DIR;
  const key = await sourcesKey(o.lockFile);
  const builtKey = await readFile(join(built, KEY_FILE), 'utf8').catch(() => undefined);
  if (builtKey !== undefined && (key === undefined || builtKey.trim() === key)) return built;
  if (key === undefined) throw new Error(`the console's UI is neither built (${built}) nor its sources present (${UI_DIR})`);
  const out = join(o.cacheDir, key);
  if (existsSync(join(out, 'main.js'))) return out;
  await mkdir(o.cacheDir, { recursive: true });
  const tmp = `${out}.tmp-${process.pid}-${Date.now()}`;
  try {
    await bundle(tmp, key);
    await rename(tmp, out).catch(async (e: unknown) => {
      // Another process built the same key first: theirs is as good as ours.
      if (!existsSync(join(out, 'main.js'))) throw e;
    });
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return out;
}

/** Builds the bundle of the current sources into `outDir` (replaced), as `npm run build`'s console step does; returns its key. */
export async function buildBundle(o: { lockFile: string; outDir?: string }): Promise<string> {
  const key = await sourcesKey(o.lockFile);
  if (key === undefined) throw new Error(`no console UI sources in ${UI_DIR}`);
  const out = o.outDir ?? BUILT_DIR;
  await rm(out, { recursive: true, force: true });
  await bundle(out, key);
  return key;
}

async function bundle(outDir: string, key: string): Promise<void> {
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [join(UI_DIR, 'main.tsx')],
    bundle: true,
    outdir: outDir,
    format: 'esm',
    // The pages other than the hub are chunks main.js loads when they are first shown (ui/main.tsx).
    splitting: true,
    chunkNames: 'chunk-[hash]',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    jsx: 'automatic',
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
    loader: { '.woff2': 'file', '.woff': 'file', '.ttf': 'file', '.svg': 'file', '.png': 'file', '.jpg': 'file', '.gif': 'file' },
    assetNames: '[name]-[hash]',
    logLevel: 'silent',
  });
  await writeFile(join(outDir, KEY_FILE), `${key}\n`);
}
