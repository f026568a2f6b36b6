#!/usr/bin/env node
/**
 * operator-controller entry point: runs until SIGTERM/SIGINT. Exit codes: 0 after a graceful stop, 1 on a
 * start-up error or lost leadership, 2 on bad flags. The compile cache starts before run.ts loads.
 */
import { saveCompileCache, startCompileCache, startCompileCacheEarly } from '../shared/compile-cache.ts';

startCompileCacheEarly(process.argv.slice(2));
const [{ componentMain }, { HELP, parseOperatorControllerOptions }] = await Promise.all([import('../shared/main.ts'), import('./options.ts')]);

await componentMain({
  name: 'operator-controller',
  help: HELP,
  featureGateMessage: 'feature gate status',
  versionLine: (text) => text,
  parse: parseOperatorControllerOptions,
  run: async (options, log, signal, leadershipLost) => {
    startCompileCache(options.cacheDir);
    const { runOperatorController } = await import('./run.ts');
    saveCompileCache();
    return runOperatorController(options, log, signal, leadershipLost);
  },
});
