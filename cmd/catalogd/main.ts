#!/usr/bin/env node
/**
 * catalogd entry point: reads flags and environment, then runs until SIGTERM/SIGINT.
 * Exit codes: 0 after a graceful stop, 1 on a start-up error or lost leadership, 2 on bad flags.
 */
import { componentMain } from '../shared/main.ts';
import { HELP, parseCatalogdOptions } from './options.ts';
import { runCatalogd } from './run.ts';

await componentMain({ name: 'catalogd', help: HELP, parse: parseCatalogdOptions, run: runCatalogd });
