/**
 * The components' logging flags and pino logger: JSON lines shaped like upstream's zap production
 * encoder, or readable lines (`--log-format text`). controller-runtime's zap flags are accepted
 * as aliases, so upstream's Deployment arguments keep working.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { createRequire } from 'node:module';
// The serializer's file, not pkg/shared/controller's index: that loads the controllers, the
// cluster client and prom-client, which a component loads later or not at all (decision 0097).
import { logErrorSerializer } from '../../pkg/shared/controller/log-error.ts';

/** `--log-format`: `json` (default, as upstream's zap production config) or `text`. */
type LogFormat = 'json' | 'text';

/** How `ts` is written in JSON lines (`--zap-time-encoding`); text lines always show ISO-8601 UTC. */
type LogTimeEncoding = 'epoch' | 'millis' | 'nano' | 'iso8601' | 'rfc3339' | 'rfc3339nano';

/** The logging part of a component's options. */
export interface LogOptions {
  /** A pino level: trace, debug, info, warn, error, fatal or silent. */
  logLevel: string;
  logFormat: LogFormat;
  /** Unset: ISO-8601 with milliseconds in UTC (also valid RFC 3339). */
  logTimeEncoding?: LogTimeEncoding | undefined;
}

/** The `parseArgs` options of the logging flags (COMPONENT_FLAGS includes them). */
export const LOG_FLAGS = {
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  'zap-log-level': { type: 'string' },
  'zap-encoder': { type: 'string' },
  'zap-time-encoding': { type: 'string' },
  // klog's verbosity, upstream's level flag since it logs through klog (`-v N` as well).
  v: { type: 'string', short: 'v' },
} as const;

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
const TIME_ENCODINGS: readonly LogTimeEncoding[] = ['epoch', 'millis', 'nano', 'iso8601', 'rfc3339', 'rfc3339nano'];

/** The help lines of the logging flags, their descriptions starting at column `col`. */
export function logFlagsHelp(col: number): string {
  const line = (flag: string, text: string): string => `  ${flag.padEnd(col - 2)}${text}\n`;
  return (
    line('--log-level LEVEL', 'trace, debug, info, warn, error (default info)') +
    line('--log-format FORMAT', 'json (one JSON object a line, as upstream) or text (readable lines) (default json)') +
    line('--zap-log-level, --zap-encoder', "upstream's names of --log-level and --log-format (console is text)") +
    line('--zap-time-encoding ENC', 'JSON ts as iso8601 (default), rfc3339, rfc3339nano, epoch, millis or nano') +
    line('--v N, -v N', "upstream's klog verbosity: 0-3 info, 4 debug, 5 and above trace (below 0 warn)")
  );
}

/**
 * The logging options from flag values. `--zap-log-level` takes zap's names (debug, info, error,
 * panic) or a verbosity N > 0 (1 is debug, more is trace), `--zap-encoder` json or console,
 * `--v` klog's verbosity (klogLevel).
 * @throws Error naming the flag on a value it does not take, or when a flag and its alias disagree.
 */
export function logOptions(values: { [K in keyof typeof LOG_FLAGS]?: string | undefined }): LogOptions {
  const zap = pick('--log-level', values['log-level'], '--zap-log-level', zapLevel(values['zap-log-level']));
  const level = pick(values['log-level'] === undefined ? '--zap-log-level' : '--log-level', zap, '--v', klogLevel(values['v']));
  if (level !== undefined && !LEVELS.includes(level))
    throw new Error(`invalid --log-level ${JSON.stringify(level)} (want ${LEVELS.slice(0, 5).join(', ')})`);
  const encoder = values['zap-encoder'];
  if (encoder !== undefined && encoder !== 'json' && encoder !== 'console')
    throw new Error(`invalid --zap-encoder ${JSON.stringify(encoder)} (want json or console)`);
  const format = pick('--log-format', values['log-format'], '--zap-encoder', encoder === 'console' ? 'text' : encoder);
  if (format !== undefined && format !== 'json' && format !== 'text')
    throw new Error(`invalid --log-format ${JSON.stringify(format)} (want json or text)`);
  const time = values['zap-time-encoding'];
  const timeEncoding = TIME_ENCODINGS.find((t) => t === time);
  if (time !== undefined && timeEncoding === undefined)
    throw new Error(`invalid --zap-time-encoding ${JSON.stringify(time)} (want ${TIME_ENCODINGS.join(', ')})`);
  return { logLevel: level ?? 'info', logFormat: format ?? 'json', logTimeEncoding: timeEncoding };
}

/** One value from a flag or its alias; both given and different is an error. */
function pick(flag: string, value: string | undefined, alias: string, aliasValue: string | undefined): string | undefined {
  if (value !== undefined && aliasValue !== undefined && value !== aliasValue) throw new Error(`${flag} and ${alias} disagree`);
  return value ?? aliasValue;
}

/** zap's level names and logr verbosities as pino levels; anything else passes through to be rejected. */
function zapLevel(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (v === 'panic' || v === 'dpanic') return 'fatal';
  if (/^[1-9]\d*$/.test(v)) return v === '1' ? 'debug' : 'trace';
  return v;
}

/**
 * klog's verbosity as a pino level, by Kubernetes' conventions: V(0)-V(3) info, V(4) debug,
 * V(5)+ trace, below 0 warn.
 * @throws Error when the value is not a whole number (klog's Level.Set refuses it too).
 */
function klogLevel(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (!/^[+-]?\d+$/.test(v) || Math.abs(Number(v)) > 2 ** 31)
    throw new Error(`invalid --v ${JSON.stringify(v)} (want klog's verbosity, a whole number)`);
  const n = Number(v);
  return n < 0 ? 'warn' : n <= 3 ? 'info' : n === 4 ? 'debug' : 'trace';
}

/** The `ts` field of a JSON line, as pino's timestamp option wants it (a `,"key":value` fragment). */
function timestamp(encoding: LogTimeEncoding | undefined): () => string {
  switch (encoding) {
    case 'epoch':
      return () => `,"ts":${Date.now() / 1000}`;
    case 'millis':
      return () => `,"ts":${Date.now()}`;
    case 'nano':
      return () => `,"ts":${BigInt(Date.now()) * 1_000_000n}`;
    case 'rfc3339':
      // Whole seconds, as zap's RFC3339TimeEncoder.
      return () => `,"ts":"${new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')}"`;
    default:
      return () => `,"ts":"${new Date().toISOString()}"`;
  }
}

/**
 * The pino logger of component `name`, writing synchronously to `destination` (stdout), so the
 * last lines before an exit are not lost. In text format each record is exactly one line.
 */
export function componentLogger(name: string, options: LogOptions, destination?: DestinationStream): Logger {
  const out = destination ?? pino.destination({ dest: 1, sync: true });
  const config = {
    level: options.logLevel,
    base: { component: name },
    serializers: { err: logErrorSerializer },
    formatters: { level: (label: string) => ({ level: label }) },
  };
  if (options.logFormat === 'json') return pino({ ...config, timestamp: timestamp(options.logTimeEncoding) }, out);
  // prettyFactory, not pino-pretty's stream, which prints errors over several lines. Loaded
  // only for the text format (about 30 modules).
  const { prettyFactory } = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  const pretty = prettyFactory({
    colorize: false,
    singleLine: true,
    errorLikeObjectKeys: [],
    timestampKey: 'ts',
    translateTime: false,
  });
  return pino({ ...config, timestamp: timestamp(undefined) }, { write: (line: string) => out.write(pretty(line)) });
}
