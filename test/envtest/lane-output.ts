/**
 * The output side of `npm test`'s lanes (lanes.ts): splitting a child's chunks into lines, and
 * the summary printed when every lane has ended.
 */

/** One vitest run of a lane, ended. */
export interface RunResult {
  /** The lane's name. */
  name: string;
  /** Its arguments after `vitest run`. */
  args: readonly string[];
  code: number;
  seconds: number;
  /** Its last output lines. */
  tail: readonly string[];
}

/** Feeds text chunks in and hands `onLine` each complete line; `end` hands the rest. */
export function lineSplitter(onLine: (line: string) => void): { push(chunk: string): void; end(): void } {
  let partial = '';
  return {
    push(chunk) {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
    },
    end() {
      if (partial !== '') onLine(partial);
      partial = '';
    },
  };
}

const duration = (seconds: number): string => `${Math.floor(seconds / 60)}:${String(Math.round(seconds % 60)).padStart(2, '0')}`;

/**
 * The lines printed after every lane has ended: each failed run's last lines again, under a
 * header naming it (so that the failures end the output), then a line per run.
 */
export function laneSummary(results: readonly RunResult[]): string[] {
  const lines: string[] = [];
  for (const r of results.filter((run) => run.code !== 0)) {
    lines.push(
      '',
      `──── lane ${r.name} failed: vitest run ${r.args.join(' ')} (exit ${r.code}), its last ${r.tail.length} lines again ────`,
      ...r.tail,
    );
  }
  lines.push('', 'Lanes:');
  for (const r of results) {
    lines.push(
      `  ${r.name.padEnd(8)} ${r.code === 0 ? 'passed' : `FAILED (exit ${r.code})`.padEnd(6)}  ${duration(r.seconds).padStart(6)}  vitest run ${r.args.join(' ')}`,
    );
  }
  return lines;
}
