/**
 * The console's browser bundle: esbuild bundles ui/main.tsx (React, PatternFly and their CSS and
 * fonts) into `<cacheDir>/<key>/`, where the key hashes the UI sources, the lock file and
 * esbuild's version; a bundle whose key matches is reused, so a source change rebuilds it.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const UI_DIR = join(dirname(fileURLToPath(import.meta.url)), 'ui');

/** The directory holding main.js and main.css of the current sources, built when missing. */
export async function ensureBundle(o: { cacheDir: string; lockFile: string }): Promise<string> {
  const esbuild = await import('esbuild');
  const hash = createHash('sha256').update(esbuild.version);
  for (const f of (await readdir(UI_DIR)).sort()) hash.update(f).update(await readFile(join(UI_DIR, f)));
  hash.update(await readFile(o.lockFile).catch(() => Buffer.alloc(0)));
  const key = hash.digest('hex').slice(0, 16);
  const out = join(o.cacheDir, key);
  if (existsSync(join(out, 'main.js'))) return out;
  await mkdir(o.cacheDir, { recursive: true });
  const tmp = `${out}.tmp-${process.pid}-${Date.now()}`;
  try {
    await esbuild.build({
      entryPoints: [join(UI_DIR, 'main.tsx')],
      bundle: true,
      outdir: tmp,
      format: 'esm',
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
    await rename(tmp, out).catch(async (e: unknown) => {
      // Another process built the same key first: theirs is as good as ours.
      if (!existsSync(join(out, 'main.js'))) throw e;
    });
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return out;
}
