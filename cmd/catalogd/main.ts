#!/usr/bin/env node
/**
 * catalogd entry point: runs until SIGTERM/SIGINT. Exit codes: 0 after a graceful stop, 1 on a
 * start-up error or lost leadership, 2 on bad flags. The compile cache starts before run.ts loads.
 */
import { saveCompileCache, startCompileCache, startCompileCacheEarly } from '../shared/compile-cache.ts';

startCompileCacheEarly(process.argv.slice(2));
const [{ componentMain }, { HELP, parseCatalogdOptions }] = await Promise.all([import('../shared/main.ts'), import('./options.ts')]);

await componentMain({
  name: 'catalogd',
  help: HELP,
  featureGateMessage: 'catalogd feature gate status',
  // Upstream prints it with Go's %#v: the text quoted once more.
  versionLine: (text) => JSON.stringify(text),
  parse: parseCatalogdOptions,
  run: async (options, log, signal, leadershipLost) => {
    startCompileCache(options.cacheDir);
    const { runCatalogd } = await import('./run.ts');
    saveCompileCache();
    return runCatalogd(options, log, signal, leadershipLost);
  },
});
