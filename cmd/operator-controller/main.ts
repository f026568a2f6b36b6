#!/usr/bin/env node
/**
 * operator-controller entry point: reads flags and environment, then runs until SIGTERM/SIGINT.
 * Exit codes: 0 after a graceful stop, 1 on a start-up error or lost leadership, 2 on bad flags.
 * The compile cache starts before any other module is loaded (cmd/shared/compile-cache.ts).
 */
import { saveCompileCache, startCompileCache } from '../shared/compile-cache.ts';

startCompileCache();
const [{ componentMain }, { HELP, parseOperatorControllerOptions }, { runOperatorController }] = await Promise.all([
  import('../shared/main.ts'),
  import('./options.ts'),
  import('./run.ts'),
]);
saveCompileCache();
await componentMain({ name: 'operator-controller', help: HELP, parse: parseOperatorControllerOptions, run: runOperatorController });
