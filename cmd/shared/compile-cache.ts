/**
 * Node's compile cache for the components (decision 0097): V8 code caches of the modules
 * loaded after `startCompileCache`, kept in `compile-cache/` of the component's `--cache-dir`
 * (in the Deployments an emptyDir, which outlives container restarts) and reused by the next
 * start, which then skips compiling (and type stripping for `.ts` sources). Node checks each
 * entry against the file's contents, so a changed file is compiled anew; a directory that
 * cannot be written leaves Node compiling as without one. With NODE_COMPILE_CACHE set, Node's
 * own cache in that directory is used instead (from the first module on).
 */
import { enableCompileCache, flushCompileCache } from 'node:module';
import { join } from 'node:path';

/** Enables the compile cache under `cacheDir` (a no-op when it already is, e.g. through NODE_COMPILE_CACHE). */
export function startCompileCache(cacheDir: string): void {
  enableCompileCache(join(cacheDir, 'compile-cache'));
}

/**
 * Writes what was compiled so far: Node writes it at exit, which a process killed (OOM, a
 * liveness probe) never reaches; the components call this once their start-up modules, and
 * again once the rest, are loaded. Entries already written and unchanged are skipped.
 */
export function saveCompileCache(): void {
  flushCompileCache();
}
