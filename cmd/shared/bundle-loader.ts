/**
 * Runs a component bundled into one CommonJS file (scripts/build-bundles.ts, decision 0147) with
 * a V8 code cache of its own. Node's compile cache (compile-cache.ts) stores a module's code as
 * compiled before it runs: for a bundle, whose modules are functions compiled when first called,
 * that is little more than the wrappers. This cache is taken from the running script once the
 * component has started (`CODE_CACHE_AFTER_MS`) or when it exits sooner, so it holds every
 * function compiled by then;
 * V8 checks it against the source and its own version and flags, and a rejected or missing
 * cache is written anew. It lives in `compile-cache/` of `--cache-dir`, beside Node's.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { explicitCacheDir, startCompileCacheEarly } from './compile-cache.ts';

/** How long after start the code cache is taken: past readiness, serving and the first reconciles. */
const CODE_CACHE_AFTER_MS = 10_000;

/** Where a code cache is read and written; undefined: none. */
interface CodeCacheFile {
  read(): Buffer | undefined;
  write(data: Buffer): void;
}

/** A loaded bundle: its exports, and whether a code cache was used. */
interface LoadedBundle {
  exports: Record<string, unknown>;
  /** True when V8 took the code cache it was given. */
  cacheUsed: boolean;
  /** Writes the code cache of what has been compiled so far. */
  saveCodeCache(): void;
}

/** The code cache file for `bundle` in `compile-cache/` of `cacheDir`; a read or write that fails only means compiling. */
export function codeCacheFile(cacheDir: string, bundle: string): CodeCacheFile {
  const file = join(cacheDir, 'compile-cache', `${basename(bundle)}.v8-code-cache`);
  return {
    read: () => {
      try {
        return readFileSync(file);
      } catch {
        return undefined;
      }
    },
    write: (data) => {
      try {
        // Not the cache directory itself: a start refused for its flags creates none.
        if (!existsSync(dirname(file))) mkdirSync(dirname(file));
        writeFileSync(file, data);
      } catch {
        // Unwritable (a read-only directory): the next start compiles again.
      }
    },
  };
}

/** Evaluates the CommonJS file `bundle` as Node would, with `cache`'s code cache when V8 accepts it. */
export function loadBundle(bundle: string, cache: CodeCacheFile | undefined): LoadedBundle {
  const cachedData = cache?.read();
  // One line for the wrapper's head, so that the bundle's lines (and its source map) stay as built.
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(bundle, 'utf8')}\n})`;
  const script = new vm.Script(source, {
    filename: bundle,
    ...(cachedData === undefined ? {} : { cachedData }),
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const module = { exports: {} as Record<string, unknown> };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  return {
    exports: module.exports,
    cacheUsed: cachedData !== undefined && !script.cachedDataRejected,
    saveCodeCache: () => cache?.write(script.createCachedData()),
  };
}

/**
 * The image's entry (dist/cmd/<name>/main.js, written by scripts/build-bundles.ts): Node's
 * compile cache for what the bundle loads by path, then the bundle, then its `main` export.
 */
export async function runBundle(bundleUrl: URL, main: string, argv: readonly string[]): Promise<void> {
  startCompileCacheEarly(argv);
  const bundle = fileURLToPath(bundleUrl);
  // Node maps stack traces through start.cjs.map (`--enable-source-maps`) only for what its own
  // loader loads, not for a vm.Script: then the bundle is required, without the code cache.
  if (process.sourceMapsEnabled) return callMain(bundle, createRequire(bundle)(bundle) as Record<string, unknown>, main);
  const cacheDir = explicitCacheDir(argv);
  const loaded = loadBundle(bundle, cacheDir === undefined ? undefined : codeCacheFile(cacheDir, bundle));
  // Written anew each start, once it has run its start-up; a process that exits sooner (a
  // rollout, the benchmark's restarts) writes one at exit when it had none that V8 took.
  let saved = false;
  const save = (): void => {
    saved = true;
    loaded.saveCodeCache();
  };
  setTimeout(save, CODE_CACHE_AFTER_MS).unref();
  process.once('exit', () => {
    if (!saved && !loaded.cacheUsed) save();
  });
  await callMain(bundle, loaded.exports, main);
}

async function callMain(bundle: string, exports: Record<string, unknown>, main: string): Promise<void> {
  const run = exports[main];
  if (typeof run !== 'function') throw new Error(`${bundle} exports no function ${main}`);
  await (run as () => Promise<void>)();
}
