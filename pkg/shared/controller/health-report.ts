/**
 * The probe answers of HealthServer as Kubernetes' healthz writes them, shared by the main
 * thread (readiness) and the probe worker (liveness, and the answer when the main thread is late).
 */

/** How a check came out: true passes; false or a reason string fails it. */
export type CheckOutcome = boolean | string;

/** A probe's status and body. */
export interface ProbeAnswer {
  status: number;
  body: string;
}

/** One report line: `[+]name ok` or `[-]name failed: reason`. */
export function reportLine(name: string, outcome: CheckOutcome): string {
  if (outcome === true) return `[+]${name} ok\n`;
  return `[-]${name} failed: ${outcome === false ? 'reason withheld' : outcome}\n`;
}

/**
 * The answer to probe `probe` (`healthz`, `readyz`) with these checks' outcomes: 200 `ok` when all
 * passed, else (or when `verbose`) one line per check and `<probe> check passed|failed`.
 */
export function probeAnswer(probe: string, outcomes: ReadonlyArray<readonly [string, CheckOutcome]>, verbose: boolean): ProbeAnswer {
  const ok = outcomes.every(([, outcome]) => outcome === true);
  if (ok && !verbose) return { status: 200, body: 'ok' };
  const report = outcomes.map(([name, outcome]) => reportLine(name, outcome)).join('');
  return { status: ok ? 200 : 500, body: `${report}${probe} check ${ok ? 'passed' : 'failed'}\n` };
}

/** A duration for a report line: `47.3s`, `0.3s`. */
export function seconds(ms: number, decimals = 1): string {
  return `${Number((ms / 1000).toFixed(decimals))}s`;
}
