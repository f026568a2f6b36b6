/**
 * Where a test run's time goes, for the summary timing-reporter.ts prints at its end: the
 * global setup records its phases (control plane builds, environment start, each build of the
 * background chain) with phaseRecorder and saves them after each change to timingsFile (the
 * setup and the reporter both run in vitest's main process, hence its pid in the name); the
 * reporter adds each test file's wall time and formats at most SUMMARY_LINES lines.
 */
import { join } from 'node:path';
import { errorMessage } from '../../pkg/shared/errors/index.ts';

/** One timed phase of the global setup; times are epoch milliseconds. */
export interface Phase {
  name: string;
  /** Built by the background chain while tests run (else the setup waited for it). */
  background: boolean;
  start: number;
  /** Absent while the phase runs. */
  end?: number;
  /** The failure's first line, when the phase failed. */
  error?: string;
}

/** A test file's wall time: from the moment a worker took it (before its imports) to its end. */
export interface FileTiming {
  /** Path relative to the repository, with a `project: ` prefix outside `integration`. */
  name: string;
  start: number;
  end: number;
}

/** The summary's length limit (CI shows the last ~150 lines of a run). */
export const SUMMARY_LINES = 25;
const SLOWEST_FILES = 15;

/** The file the global setup of the vitest process `pid` writes its phases to. */
export function timingsFile(tmpDir: string, pid: number): string {
  return join(tmpDir, `olmv1-test-phases-${pid}.json`);
}

/**
 * Which of the names in the temp directory are timing files of vitest processes that are gone
 * (left when a run's reporters did not include timing-reporter.ts, e.g. `--reporter=verbose`).
 */
export function staleTimingsFiles(names: readonly string[], alive: (pid: number) => boolean): string[] {
  return names.filter((name) => {
    const pid = /^olmv1-test-phases-(\d+)\.json$/.exec(name)?.[1];
    return pid !== undefined && !alive(Number(pid));
  });
}

/** Times phases, handing the whole list to `save` whenever one starts or ends. */
export function phaseRecorder(
  save: (phases: readonly Phase[]) => void,
  now: () => number = Date.now,
): { time<T>(name: string, background: boolean, fn: () => Promise<T>): Promise<T> } {
  const phases: Phase[] = [];
  return {
    async time(name, background, fn) {
      const phase: Phase = { name, background, start: now() };
      phases.push(phase);
      save(phases);
      try {
        return await fn();
      } catch (err) {
        phase.error = errorMessage(err).split('\n')[0] ?? '';
        throw err;
      } finally {
        phase.end = now();
        save(phases);
      }
    },
  };
}

/** The phases saved in `text`, or [] when it is not what phaseRecorder saved. */
export function parsePhases(text: string): Phase[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.filter(
    (p): p is Phase =>
      typeof p === 'object' &&
      p !== null &&
      typeof (p as Phase).name === 'string' &&
      typeof (p as Phase).start === 'number' &&
      typeof (p as Phase).background === 'boolean',
  );
}

/** `+m:ss` from `origin` to `at`. */
function offset(origin: number, at: number): string {
  const s = Math.max(0, Math.round((at - origin) / 1000));
  return `+${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`.padStart(7);
}

/**
 * The summary: each phase with its start and end offsets from `origin` (the run's start), then
 * the slowest files with their start offsets and wall times; at most SUMMARY_LINES lines.
 */
export function formatSummary(origin: number, phases: readonly Phase[], files: readonly FileTiming[]): string[] {
  const lines = ['Timings (offsets from the start of this vitest run):'];
  const width = Math.max(0, ...phases.map((p) => p.name.length));
  for (const p of phases.slice(0, SUMMARY_LINES - 3)) {
    const kind = p.background ? 'background' : 'setup     ';
    const span = `${offset(origin, p.start)} to ${p.end === undefined ? 'unfinished' : offset(origin, p.end)}`;
    const took = p.end === undefined ? '' : seconds(p.end - p.start);
    const failed = p.error === undefined ? '' : `  FAILED: ${p.error.slice(0, 100)}`;
    lines.push(`  ${kind} ${p.name.padEnd(width)}  ${span.padEnd(19)}${took}${failed}`);
  }
  const room = Math.min(SLOWEST_FILES, SUMMARY_LINES - lines.length - 1);
  const slowest = [...files].sort((a, b) => b.end - b.start - (a.end - a.start)).slice(0, room);
  if (slowest.length > 0) {
    lines.push(`Slowest test files (start, wall time from a worker taking the file to its end):`);
    for (const f of slowest) lines.push(`  ${offset(origin, f.start).padStart(7)} ${seconds(f.end - f.start)}  ${f.name}`);
  }
  return lines;
}
