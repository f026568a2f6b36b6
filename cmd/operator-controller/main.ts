#!/usr/bin/env node
/**
 * operator-controller entry point: reads flags and environment, then runs until SIGTERM/SIGINT.
 * Exit codes: 0 after a graceful stop, 1 on a start-up error or lost leadership, 2 on bad flags.
 */
import pino from 'pino';
import { wireShutdownSignals } from '../../pkg/controller/index.ts';
import { HELP, parseOperatorControllerOptions } from './options.ts';
import { runOperatorController } from './run.ts';

let options;
try {
  options = parseOperatorControllerOptions(process.argv.slice(2), process.env);
} catch (err) {
  process.stderr.write(`operator-controller: ${(err as Error).message}\n\n${HELP}`);
  process.exit(2);
}
if (options === 'help') {
  process.stdout.write(HELP);
  process.exit(0);
}

// errWithCause keeps each error's own message and nests its causes, instead of repeating them.
const log = pino({ level: options.logLevel, base: { component: 'operator-controller' }, serializers: { err: pino.stdSerializers.errWithCause } });
const stop = new AbortController();
wireShutdownSignals(process, stop, { log, forceExitAfterMs: 60_000 });
try {
  const outcome = await runOperatorController(options, log, stop.signal);
  if (outcome === 'lost-leadership') {
    log.error({}, 'leader election lost');
    process.exitCode = 1;
  }
} catch (err) {
  log.fatal({ err }, 'operator-controller failed');
  process.exitCode = 1;
}
