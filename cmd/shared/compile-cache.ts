/**
 * Node's compile cache for the components' and the CLI's processes (decision 0097): V8 code
 * caches of every module loaded, kept in `$NODE_COMPILE_CACHE` or else `<tmpdir>/node-compile-cache`
 * (the Deployments' /tmp emptyDir, which outlives container restarts) and reused by the next
 * start, which then skips compiling (and type stripping for `.ts` sources). Node checks each
 * entry against the file's contents, so a changed file is compiled anew; a cache directory that
 * cannot be written leaves Node compiling as without one. Entry points call
 * `startCompileCache()` before they import anything else, since only modules loaded afterwards
 * are cached.
 */
import { enableCompileCache, flushCompileCache } from 'node:module';

/** Enables the compile cache (a no-op when it already is, e.g. through NODE_COMPILE_CACHE). */
export function startCompileCache(): void {
  enableCompileCache();
}

/**
 * Writes what was compiled so far: Node writes it at exit, which a process killed (OOM, a
 * liveness probe) never reaches; the components call this once their start-up modules, and
 * again once the rest, are loaded. Entries already written and unchanged are skipped.
 */
export function saveCompileCache(): void {
  flushCompileCache();
}
