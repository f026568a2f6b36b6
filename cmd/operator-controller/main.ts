#!/usr/bin/env node
/**
 * operator-controller entry point: reads flags and environment, then runs until SIGTERM/SIGINT.
 * Exit codes: 0 after a graceful stop, 1 on a start-up error or lost leadership, 2 on bad flags.
 */
import { componentMain } from '../shared/main.ts';
import { HELP, parseOperatorControllerOptions } from './options.ts';
import { runOperatorController } from './run.ts';

await componentMain({ name: 'operator-controller', help: HELP, parse: parseOperatorControllerOptions, run: runOperatorController });
