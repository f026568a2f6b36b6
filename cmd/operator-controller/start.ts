/**
 * operator-controller's start after the compile cache (main.ts): flags, then run.ts. Its own
 * module so that the image bundles it into one file (scripts/build-bundles.ts, decision 0147).
 */
import { saveCompileCache, startCompileCache } from '../shared/compile-cache.ts';

/** Parses the flags and runs operator-controller until it stops (cmd/shared/main.ts sets the exit code). */
export async function operatorControllerMain(): Promise<void> {
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
}

/**
 * Loads what operator-controller loads before it is ready (and with `all`, its control part too) without
 * running it: the startup benchmark's floor, from the bundle as the image runs it.
 */
export async function loadOperatorControllerModules(all: boolean): Promise<void> {
  await Promise.all([import('../shared/main.ts'), import('./options.ts'), import('./run.ts'), ...(all ? [import('./control.ts')] : [])]);
}
