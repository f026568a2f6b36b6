#!/usr/bin/env node
/**
 * catalogd entry point: reads flags and environment, then runs until SIGTERM/SIGINT.
 * Exit codes: 0 after a graceful stop, 1 on a start-up error or lost leadership, 2 on bad flags.
 * The composition (run.ts) is loaded once the flags are read, with the compile cache in
 * `--cache-dir` started first (cmd/shared/compile-cache.ts).
 */
import { saveCompileCache, startCompileCache } from '../shared/compile-cache.ts';
import { componentMain } from '../shared/main.ts';
import { HELP, parseCatalogdOptions } from './options.ts';

await componentMain({
  name: 'catalogd',
  help: HELP,
  parse: parseCatalogdOptions,
  run: async (options, log, signal) => {
    startCompileCache(options.cacheDir);
    const { runCatalogd } = await import('./run.ts');
    saveCompileCache();
    return runCatalogd(options, log, signal);
  },
});
