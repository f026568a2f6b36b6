/**
 * Upstream's flags that have no effect here (klog's): accepted and checked
 * as upstream checks them, so upstream's Deployment arguments start our binaries, and reported by
 * one warning each (docs/operations.md, "Upstream's Deployment arguments"). `--v` is logging.ts's.
 */
import { goBool } from '../../pkg/gocompat/gotext/index.ts';

/** An upstream flag (or feature gate) given a value that has no effect here. */
export interface FlagNotice {
  flag: string;
  /** The feature gate, for `--feature-gates`. */
  gate?: string;
  value: string;
  /** What happens here instead. */
  reason: string;
}

/** How an inert flag's value is checked, and which values mean what this implementation does anyway. */
export interface InertFlag {
  /** A Go bool flag: `--name` alone means true. */
  bool?: true;
  /** Throws Error naming the flag on a value upstream refuses; absent: any string. */
  check?: (flag: string, value: string) => void;
  /** Values that need no warning: they ask for what happens here anyway. */
  quiet: readonly string[];
  reason: string;
}

const FILES = 'logs are written to standard output only, never to files';
const HEADERS = "lines are JSON (or --log-format text), without klog's headers";

/** Go's strconv.ParseBool. */
function boolCheck(flag: string, value: string): void {
  if (goBool(value) === undefined) throw new Error(`invalid ${flag} value ${JSON.stringify(value)} (want true or false)`);
}

/** klog's severities: a name or its number. */
function severityCheck(flag: string, value: string): void {
  if (!/^(INFO|WARNING|ERROR|FATAL|[0-3])$/i.test(value))
    throw new Error(`invalid ${flag} ${JSON.stringify(value)} (want INFO, WARNING, ERROR or FATAL)`);
}

/** klog's `-vmodule`: comma-separated `pattern=N`, empty entries skipped. */
function vmoduleCheck(flag: string, value: string): void {
  for (const pat of value.split(',')) {
    if (pat !== '' && !/^[^=]+=[+-]?\d+$/.test(pat))
      throw new Error(`invalid ${flag} ${JSON.stringify(value)}: syntax error: expect comma-separated list of filename=N`);
  }
}

function uintCheck(flag: string, value: string): void {
  if (!/^\d+$/.test(value)) throw new Error(`invalid ${flag} ${JSON.stringify(value)} (want a whole number)`);
}

/** klog's `-log_backtrace_at`: empty or `file.go:N`. */
function traceCheck(flag: string, value: string): void {
  if (value !== '' && !/^[^:]+\.go:\d+$/.test(value)) throw new Error(`invalid ${flag} ${JSON.stringify(value)} (want file.go:N)`);
}

/** The inert flags both binaries take: klog's flags but `--v`. */
export const COMMON_INERT_FLAGS: Readonly<Record<string, InertFlag>> = {
  vmodule: { check: vmoduleCheck, quiet: [''], reason: 'no per-file verbosity here: --v (or --log-level) sets the level of every line' },
  log_dir: { quiet: [''], reason: FILES },
  log_file: { quiet: [''], reason: FILES },
  log_file_max_size: { check: uintCheck, quiet: ['1800'], reason: FILES },
  logtostderr: { bool: true, check: boolCheck, quiet: ['true', '1', 't', 'T', 'TRUE', 'True'], reason: FILES },
  alsologtostderr: { bool: true, check: boolCheck, quiet: ['false', '0', 'f', 'F', 'FALSE', 'False'], reason: FILES },
  legacy_stderr_threshold_behavior: { bool: true, check: boolCheck, quiet: ['true', '1', 't', 'T', 'TRUE', 'True'], reason: FILES },
  one_output: { bool: true, check: boolCheck, quiet: ['false', '0', 'f', 'F', 'FALSE', 'False'], reason: FILES },
  skip_log_headers: { bool: true, check: boolCheck, quiet: ['false', '0', 'f', 'F', 'FALSE', 'False'], reason: FILES },
  stderrthreshold: { check: severityCheck, quiet: [], reason: FILES },
  alsologtostderrthreshold: { check: severityCheck, quiet: [], reason: FILES },
  add_dir_header: { bool: true, check: boolCheck, quiet: ['false', '0', 'f', 'F', 'FALSE', 'False'], reason: HEADERS },
  skip_headers: { bool: true, check: boolCheck, quiet: ['false', '0', 'f', 'F', 'FALSE', 'False'], reason: HEADERS },
  log_backtrace_at: { check: traceCheck, quiet: [''], reason: 'no stack traces at chosen lines here' },
};

/** The `parseArgs` options of `table`'s flags (string-valued; a bool flag alone is made `=true` first). */
export function inertFlagOptions(table: Readonly<Record<string, InertFlag>>): Record<string, { type: 'string' }> {
  return Object.fromEntries(Object.keys(table).map((name) => [name, { type: 'string' as const }]));
}

/** The bool flags of `table`, as `--name`. */
export function inertBoolFlags(table: Readonly<Record<string, InertFlag>>): string[] {
  return Object.entries(table)
    .filter(([, f]) => f.bool === true)
    .map(([name]) => `--${name}`);
}

/**
 * Checks the values of `table`'s flags among `values` and returns a notice for each one given a
 * value that is not quiet. Throws Error naming the flag on a value upstream refuses too.
 */
export function inertFlagNotices(values: Readonly<Record<string, unknown>>, table: Readonly<Record<string, InertFlag>>): FlagNotice[] {
  const notices: FlagNotice[] = [];
  for (const [name, spec] of Object.entries(table)) {
    const value = values[name];
    if (typeof value !== 'string') continue;
    spec.check?.(`--${name}`, value);
    if (!spec.quiet.includes(value)) notices.push({ flag: `--${name}`, value, reason: spec.reason });
  }
  return notices;
}

/** Help lines of upstream's pprof flag and the inert flags both binaries take, descriptions at column `col`. */
export function commonInertFlagsHelp(col: number): string {
  const pad = ' '.repeat(col);
  return (
    `  ${'--pprof-bind-address ADDR'.padEnd(col - 2)}serve CPU and heap profiles of this process (V8 inspector formats,\n` +
    `${pad}not Go's pprof) on HOST:PORT, plain HTTP: bind to 127.0.0.1 (default 0: off)\n` +
    `  ${'--vmodule, --logtostderr, ...'.padEnd(col - 2)}klog's other flags (upstream logs through klog): accepted, no effect\n` +
    `${pad}here (warned unless at klog's default); the list is in docs/operations.md\n`
  );
}
