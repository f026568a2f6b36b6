/**
 * Node's compile cache for the components (decision 0097), in `compile-cache/` of `--cache-dir`
 * (an emptyDir in the Deployments, so it outlives container restarts); Node checks each entry
 * against the file, and an unwritable directory only means compiling. NODE_COMPILE_CACHE, when
 * set, wins. Started before anything else loads when the arguments name the directory
 * (`startCompileCacheEarly`), else once the flags are read (`startCompileCache`).
 */
import { enableCompileCache, flushCompileCache } from 'node:module';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

/** Enables the compile cache under `cacheDir` (a no-op when it already is, e.g. through NODE_COMPILE_CACHE). */
export function startCompileCache(cacheDir: string): void {
  enableCompileCache(join(cacheDir, 'compile-cache'));
}

/**
 * The last `--cache-dir DIR`/`--cache-dir=DIR` of `argv`, read before the flags are parsed;
 * undefined when absent, missing, empty, starting with `-`, or with -h/--help.
 */
export function explicitCacheDir(argv: readonly string[]): string | undefined {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: false,
      allowPositionals: true,
      options: { 'cache-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch {
    return undefined;
  }
  if (values['help'] !== undefined) return undefined;
  const dir = values['cache-dir'];
  // A value that looks like a flag is one the parser refuses as ambiguous.
  return typeof dir === 'string' && dir !== '' && !dir.startsWith('-') ? dir : undefined;
}

/**
 * Enables the compile cache before the entry loads its modules when `argv` names an existing
 * cache directory (so a start with wrong flags creates none); else the entry starts it later.
 */
export function startCompileCacheEarly(argv: readonly string[]): void {
  const dir = explicitCacheDir(argv);
  if (dir === undefined) return;
  try {
    if (!statSync(dir).isDirectory()) return;
  } catch {
    return;
  }
  startCompileCache(dir);
}

/** Writes what was compiled so far: a killed process (OOM, liveness probe) never reaches Node's write at exit. */
export function saveCompileCache(): void {
  flushCompileCache();
}
