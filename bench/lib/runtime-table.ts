/**
 * The comparison table of the `runtimes` benchmark (bench/benchmarks/runtimes.ts): one row per
 * figure, one column per controller side, then the ratio of one side to another (ours under
 * BoxcutterRuntime against upstream's under the same gate) and, for the install rows, each
 * side's time over the floor (the same objects applied by server-side apply straight to
 * kube-apiserver). Pure: the figures in, markdown lines out.
 */

/** What one controller side measured; times in ms, CPU in seconds, memory in bytes. */
export interface SideFigures {
  label: string;
  oneInstallMs: number;
  oneUninstallMs: number;
  manyInstallMs: number;
  manyUpgradeMs: number;
  manyUninstallMs: number;
  /** API requests per extension until quiet (Lease apart). */
  installRequests: number;
  upgradeRequests: number;
  uninstallRequests: number;
  installCpu: { controller: number; apiserver: number };
  upgradeCpu: { controller: number; apiserver: number };
  /** Controller RSS once the install of many was quiet, and the highest seen over the side. */
  rss: number;
  peakRss: number;
  /** At rest with the many installed, per minute. */
  idle: { controllerCpu: number; apiserverCpu: number; requests: number };
}

/** The floor: the same objects applied straight to kube-apiserver, in ms. */
export interface FloorFigures {
  oneMs: number;
  manyMs: number;
  /** One bundle rolled out by hand as a rollout orders it: its CRDs until Established, then the rest until its Deployments are Available. */
  rolloutMs?: number;
}

/** One figure of the table, in the unit it is shown in. */
export interface FigureRow {
  figure: string;
  unit: string;
  value: (s: SideFigures) => number;
}

/** Three significant digits at most, no trailing zeros; "n/a" for a missing figure. */
export function fixed(v: number): string {
  if (!Number.isFinite(v)) return 'n/a';
  const abs = Math.abs(v);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return String(Number(v.toFixed(digits)));
}

/** `a / b` as "0.42x", or "n/a" when either is missing or b is 0. */
export function ratio(a: number, b: number): string {
  return Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? `${fixed(a / b)}x` : 'n/a';
}

/** The figures of a side, `n` the extensions installed at once. */
export function figureRows(n: number): FigureRow[] {
  const row = (figure: string, unit: string, value: (s: SideFigures) => number): FigureRow => ({ figure, unit, value });
  return [
    row('1 extension: install', 'ms', (s) => s.oneInstallMs),
    row('1 extension: uninstall until its objects are gone', 'ms', (s) => s.oneUninstallMs),
    row(`${n} at once: all installed`, 's', (s) => s.manyInstallMs / 1000),
    row(`${n} upgraded by a catalog update`, 's', (s) => s.manyUpgradeMs / 1000),
    row(`${n} uninstalled until their objects are gone`, 's', (s) => s.manyUninstallMs / 1000),
    row('API requests per install (until quiet, Lease apart)', '', (s) => s.installRequests),
    row('API requests per upgrade (until quiet, Lease apart)', '', (s) => s.upgradeRequests),
    row('API requests per uninstall', '', (s) => s.uninstallRequests),
    row(`controller CPU, install of ${n}`, 'CPU-s', (s) => s.installCpu.controller),
    row(`kube-apiserver CPU, install of ${n}`, 'CPU-s', (s) => s.installCpu.apiserver),
    row(`controller CPU, upgrade of ${n}`, 'CPU-s', (s) => s.upgradeCpu.controller),
    row(`kube-apiserver CPU, upgrade of ${n}`, 'CPU-s', (s) => s.upgradeCpu.apiserver),
    row(`controller RSS, ${n} installed and quiet`, 'MB', (s) => s.rss / 1e6),
    row('controller peak RSS (sampled every 200 ms)', 'MB', (s) => s.peakRss / 1e6),
    row(`at rest with ${n}: controller CPU a minute`, 'CPU-s', (s) => s.idle.controllerCpu),
    row(`at rest with ${n}: kube-apiserver CPU a minute`, 'CPU-s', (s) => s.idle.apiserverCpu),
    row(`at rest with ${n}: controller requests a minute (Lease apart)`, '', (s) => s.idle.requests),
  ];
}

const show = (v: number, unit: string): string => (unit === '' ? fixed(v) : `${fixed(v)} ${unit}`);

/**
 * The markdown table: a column per side, then `compare[0] / compare[1]` (labels of two sides)
 * when both are there; below it each side's install times over the floor.
 */
export function comparisonTable(sides: readonly SideFigures[], n: number, floor: FloorFigures, compare?: readonly [string, string]): string[] {
  const a = sides.find((s) => s.label === compare?.[0]);
  const b = sides.find((s) => s.label === compare?.[1]);
  const pair = a !== undefined && b !== undefined ? ([a, b] as const) : undefined;
  const header = ['figure', ...sides.map((s) => s.label), ...(pair === undefined ? [] : [`${pair[0].label} / ${pair[1].label}`])];
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  const out = [line(header), line(header.map(() => '---'))];
  const compared = (value: (s: SideFigures) => number): string[] => (pair === undefined ? [] : [ratio(value(pair[0]), value(pair[1]))]);
  for (const { figure, unit, value } of figureRows(n)) out.push(line([figure, ...sides.map((s) => show(value(s), unit)), ...compared(value)]));
  const overFloor = (figure: string, value: (s: SideFigures) => number): string =>
    line([figure, ...sides.map((s) => ratio(value(s), 1)), ...compared(value)]);
  out.push(overFloor('1 install / floor', (s) => s.oneInstallMs / floor.oneMs));
  out.push(overFloor(`${n} installs / floor`, (s) => s.manyInstallMs / floor.manyMs));
  const rollout = floor.rolloutMs;
  if (rollout !== undefined) out.push(overFloor('1 install / rollout floor', (s) => s.oneInstallMs / rollout));
  out.push(
    '',
    `Floor (the same bundles' objects applied by server-side apply straight to kube-apiserver, all at once, in the same run): 1 bundle ${show(floor.oneMs, 'ms')}, ${n} bundles ${show(floor.manyMs / 1000, 's')}.` +
      (rollout === undefined
        ? ''
        : ` Rollout floor (one bundle applied the same way, its CRDs first until Established, then the rest until its Deployments are Available): ${show(rollout, 'ms')}.`),
  );
  return out;
}
