/**
 * catalogd's start after the compile cache (main.ts): flags, then run.ts. Its own module so that
 * the image bundles it into one file (scripts/build-bundles.ts, decision 0147).
 */
import { saveCompileCache, startCompileCache } from '../shared/compile-cache.ts';

/** Parses the flags and runs catalogd until it stops (cmd/shared/main.ts sets the exit code). */
export async function catalogdMain(): Promise<void> {
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
}

/**
 * Loads what catalogd loads before it serves (and with `all`, its control part too) without
 * running it: the startup benchmark's floor, from the bundle as the image runs it.
 */
export async function loadCatalogdModules(all: boolean): Promise<void> {
  await Promise.all([import('../shared/main.ts'), import('./options.ts'), import('./run.ts'), ...(all ? [import('./control.ts')] : [])]);
}
