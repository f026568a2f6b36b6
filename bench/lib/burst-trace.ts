/**
 * Where each extension's time went in a burst of installs (bench/benchmarks/burst.ts, issue 60),
 * read from operator-controller's debug log (JSON lines, `--zap-time-encoding millis`): the
 * controller's `reconcile finished` line (its wait in the queue, the reconcile's time and how it
 * ended, pkg/shared/controller/controller.ts), the step reconciler's `reconcile steps` line
 * (each step's time, pkg/shared/controller/step-reconciler.ts), joined on `reconcileID`, and the
 * background pulls' `bundle pull started` / `bundle pull finished` lines
 * (pkg/operator-controller/bundlepull/pulls.ts).
 */

/** One reconcile of one extension; times in ms since the burst's start. */
export interface TracedReconcile {
  /** When a worker took the key. */
  startMs: number;
  queuedMs: number;
  ms: number;
  outcome: string;
  steps: Record<string, number>;
}

/** One extension's reconciles and pulls. */
export interface ExtensionTrace {
  reconciles: TracedReconcile[];
  /** Background pulls, ms since the start: started and (when it did) finished. */
  pulls: Array<{ startMs: number; endMs?: number }>;
}

/** A parsed line: what this reader uses of it. */
interface LogLine {
  ts?: number;
  msg?: string;
  key?: string;
  extension?: string;
  reconcileID?: string;
  controller?: string;
  queuedMs?: number;
  ms?: number;
  outcome?: string;
  steps?: Record<string, number>;
}

/**
 * The traces of the extensions named in `names`, from the log `text`, with times relative to
 * `originMs` (epoch ms). Only the ClusterExtension controller's lines (`controller`) count.
 */
export function traceBurst(text: string, controller: string, names: ReadonlySet<string>, originMs: number): Map<string, ExtensionTrace> {
  const out = new Map<string, ExtensionTrace>();
  const of = (name: string): ExtensionTrace => {
    let t = out.get(name);
    if (t === undefined) out.set(name, (t = { reconciles: [], pulls: [] }));
    return t;
  };
  const steps = new Map<string, Record<string, number>>();
  const finished: LogLine[] = [];
  for (const raw of text.split('\n')) {
    if (!raw.startsWith('{')) continue;
    let line: LogLine;
    try {
      line = JSON.parse(raw) as LogLine;
    } catch {
      continue;
    }
    const at = (line.ts ?? Number.NaN) - originMs;
    if (line.msg === 'reconcile steps' && line.reconcileID !== undefined) steps.set(line.reconcileID, line.steps ?? {});
    else if (line.msg === 'reconcile finished' && line.controller === controller && names.has(line.key ?? '')) finished.push(line);
    else if (line.msg === 'bundle pull started' && names.has(line.extension ?? '')) of(line.extension ?? '').pulls.push({ startMs: at });
    else if (line.msg === 'bundle pull finished' && names.has(line.extension ?? '')) {
      const open = of(line.extension ?? '').pulls.findLast((p) => p.endMs === undefined);
      if (open !== undefined) open.endMs = at;
    }
  }
  for (const line of finished) {
    const ms = line.ms ?? 0;
    of(line.key ?? '').reconciles.push({
      startMs: (line.ts ?? Number.NaN) - originMs - ms,
      queuedMs: line.queuedMs ?? 0,
      ms,
      outcome: line.outcome ?? '?',
      steps: steps.get(line.reconcileID ?? '') ?? {},
    });
  }
  return out;
}

/** What one extension's install cost, up to `installedMs` (ms since the start). */
export interface InstallBreakdown {
  installedMs: number;
  /** Reconciles that started before it was installed. */
  reconciles: number;
  /** Their waits in the queue, summed. */
  queuedMs: number;
  /** Their time in reconciles, summed. */
  reconcilingMs: number;
  /** Their time by step, summed. */
  steps: Record<string, number>;
  /** From the end of its last background pull to the start of the next reconcile (NaN: no pull ended before it was installed). */
  afterPullMs: number;
  /** Its reconciles in order: `+start queued/ms outcome`, for the log. */
  timeline: string;
}

/** The breakdown of `trace` until `installedMs`. */
export function breakdown(trace: ExtensionTrace | undefined, installedMs: number): InstallBreakdown {
  const reconciles = (trace?.reconciles ?? []).filter((r) => r.startMs <= installedMs).sort((a, b) => a.startMs - b.startMs);
  const steps: Record<string, number> = {};
  for (const r of reconciles) for (const [k, v] of Object.entries(r.steps)) steps[k] = (steps[k] ?? 0) + v;
  const pullEnd = (trace?.pulls ?? []).map((p) => p.endMs).filter((e): e is number => e !== undefined && e <= installedMs);
  const lastPull = pullEnd.length === 0 ? undefined : Math.max(...pullEnd);
  const next = lastPull === undefined ? undefined : reconciles.find((r) => r.startMs >= lastPull);
  const pulls = (trace?.pulls ?? []).map((p) => `pull ${Math.round(p.startMs)}-${p.endMs === undefined ? '?' : Math.round(p.endMs)}`);
  return {
    installedMs,
    reconciles: reconciles.length,
    queuedMs: reconciles.reduce((n, r) => n + r.queuedMs, 0),
    reconcilingMs: reconciles.reduce((n, r) => n + r.ms, 0),
    steps,
    afterPullMs: lastPull === undefined || next === undefined ? Number.NaN : next.startMs - lastPull,
    timeline: [
      ...reconciles.map((r) => `+${Math.round(r.startMs)} waited ${r.queuedMs} ran ${r.ms} ${r.outcome} [${topSteps(r.steps)}]`),
      ...pulls,
    ].join('; '),
  };
}

/** The steps that took 50 ms or more, `name ms`. */
function topSteps(steps: Record<string, number>): string {
  return Object.entries(steps)
    .filter(([, v]) => v >= 50)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}
