#!/usr/bin/env node
/**
 * operator-controller entry point: runs until SIGTERM/SIGINT. Exit codes: 0 after a graceful stop, 1 on a
 * start-up error or lost leadership, 2 on bad flags. The compile cache starts before the rest
 * (start.ts, which the image runs bundled: scripts/build-bundles.ts) loads.
 */
import { startCompileCacheEarly } from '../shared/compile-cache.ts';

startCompileCacheEarly(process.argv.slice(2));
const { operatorControllerMain } = await import('./start.ts');
await operatorControllerMain();
