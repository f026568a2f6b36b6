/**
 * The process entry of a component: runs until SIGTERM/SIGINT. Exit 0 after a graceful stop,
 * --help or `version`; 1 on a start-up error, a failure of the leader's work (at once, whatever
 * still listens: a process that cannot reconcile must not stay Ready) or lost leadership (within
 * a bound: lost-leadership.ts); 2 on bad flags. Upstream flags that have no effect here are logged first, one warning each.
 */
import type { Logger } from 'pino';
// The file, not pkg/shared/controller's index, which an entry loads later (decision 0097).
import { wireShutdownSignals } from '../../pkg/shared/controller/shutdown.ts';
import { type LogOptions, componentLogger } from './logging.ts';
import type { ComponentOptions } from './component-options.ts';
import { exitOnLostLeadership } from './lost-leadership.ts';
import { componentVersion } from './version.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';

/** What componentMain reads of a component's options. */
type StartOptions = LogOptions & Pick<ComponentOptions, 'flagNotices' | 'featureGateStatus' | 'pprof'>;

/** What differs between the components' entry points. */
interface ComponentMain<O extends StartOptions> {
  /** The `component` of every log line and the prefix of a flag error. */
  name: string;
  help: string;
  /** The message of the feature gate line at start (upstream's: `feature gate status`, catalogd's prefixed). */
  featureGateMessage: string;
  /** The `version` command's line from upstream's version text (each upstream binary prints it its own way). */
  versionLine(text: string): string;
  parse(argv: string[], env: NodeJS.ProcessEnv): O | 'help';
  /**
   * Runs until `signal` aborts or leadership is lost; calls `leadershipLost` as soon as the elected
   * leader lost its Lease (the process then exits within a bound, whatever still runs).
   */
  run(options: O, log: Logger, signal: AbortSignal, leadershipLost: () => void): Promise<'stopped' | 'lost-leadership'>;
}

/** Runs the component in this process with its arguments and environment. */
export async function componentMain<O extends StartOptions>(c: ComponentMain<O>): Promise<void> {
  // Upstream's cobra command `version`.
  if (process.argv.length === 3 && process.argv[2] === 'version') {
    process.stdout.write(`${c.versionLine(await componentVersion())}\n`);
    process.exit(0);
  }
  let options;
  try {
    options = c.parse(process.argv.slice(2), process.env);
  } catch (err) {
    process.stderr.write(`${c.name}: ${errorMessage(err)}\n\n${c.help}`);
    process.exit(2);
  }
  if (options === 'help') {
    process.stdout.write(c.help);
    process.exit(0);
  }

  const log = componentLogger(c.name, options);
  if (options.featureGateStatus !== undefined) log.info(options.featureGateStatus, c.featureGateMessage);
  for (const notice of options.flagNotices ?? []) log.warn(notice, 'flag has no effect here');
  const stop = new AbortController();
  wireShutdownSignals(process, stop, { log, forceExitAfterMs: 60_000 });
  const leadershipLost = exitOnLostLeadership(process, stop, log);
  let stopPprof: (() => Promise<void>) | undefined;
  let failed = false;
  try {
    stopPprof = await startPprof(options.pprof, log);
    const outcome = await c.run(options, log, stop.signal, leadershipLost);
    if (outcome === 'lost-leadership') {
      leadershipLost();
      // Stopped within the bound: nothing is left to wait for (timers, sockets) before the exit.
      process.exit(1);
    }
  } catch (err) {
    log.fatal({ err }, `${c.name} failed`);
    failed = true;
  } finally {
    await stopPprof?.();
  }
  // The health server, informers and timers of a failed run would keep the process alive (the log is written synchronously).
  if (failed) process.exit(1);
}

/** Starts the pprof endpoint when `--pprof-bind-address` asks for it (loaded only then); resolves its stop. */
async function startPprof(address: ComponentOptions['pprof'], log: Logger): Promise<(() => Promise<void>) | undefined> {
  if (address === undefined) return undefined;
  const { PprofServer } = await import('../../pkg/shared/pprof/index.ts');
  const server = new PprofServer({ ...address, log: log.child({ server: 'pprof' }) });
  try {
    await server.start();
  } catch (err) {
    throw new Error(`cannot serve pprof on ${address.host}:${address.port}`, { cause: err });
  }
  log.info({ address, port: server.port }, 'pprof server listening');
  return () => server.stop();
}
