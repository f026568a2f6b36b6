import { describe, expect, it } from 'vitest';
import { type SideFigures, comparisonTable, fixed, ratio } from './runtime-table.ts';

const side = (label: string, scale: number): SideFigures => ({
  label,
  oneInstallMs: 400 * scale,
  oneUninstallMs: 100 * scale,
  manyInstallMs: 20_000 * scale,
  manyUpgradeMs: 10_000 * scale,
  manyUninstallMs: 3_000 * scale,
  installRequests: 30 * scale,
  upgradeRequests: 15 * scale,
  uninstallRequests: 5 * scale,
  installCpu: { controller: 4 * scale, apiserver: 8 * scale },
  upgradeCpu: { controller: 2 * scale, apiserver: 4 * scale },
  rss: 80e6 * scale,
  peakRss: 100e6 * scale,
  idle: { controllerCpu: 0.05 * scale, apiserverCpu: 0.5 * scale, requests: 2 * scale },
});

describe('the runtimes comparison table', () => {
  it('rounds to three significant digits at most and says n/a for a missing figure', () => {
    expect([fixed(1234.5), fixed(12.345), fixed(1.2345), fixed(0.012345), fixed(Number.NaN)]).toEqual(['1235', '12.3', '1.23', '0.012', 'n/a']);
    expect([ratio(1, 2), ratio(1, 0), ratio(Number.NaN, 1)]).toEqual(['0.5x', 'n/a', 'n/a']);
  });

  it('gives a column per side, the compared pair as a ratio, and the install times over the floor', () => {
    const lines = comparisonTable([side('helm', 1), side('boxcutter', 1), side('upstream', 2)], 50, { oneMs: 200, manyMs: 4_000 }, [
      'boxcutter',
      'upstream',
    ]);
    expect(lines[0]).toBe('| figure | helm | boxcutter | upstream | boxcutter / upstream |');
    expect(lines).toContain('| 1 extension: install | 400 ms | 400 ms | 800 ms | 0.5x |');
    expect(lines).toContain('| 50 at once: all installed | 20 s | 20 s | 40 s | 0.5x |');
    expect(lines).toContain('| controller RSS, 50 installed and quiet | 80 MB | 80 MB | 160 MB | 0.5x |');
    expect(lines).toContain('| 1 install / floor | 2x | 2x | 4x | 0.5x |');
    expect(lines).toContain('| 50 installs / floor | 5x | 5x | 10x | 0.5x |');
    expect(lines.at(-1)).toContain('1 bundle 200 ms, 50 bundles 4 s');
  });

  it('gives the single install over the rollout floor when one was measured', () => {
    const lines = comparisonTable([side('boxcutter', 1), side('upstream', 2)], 50, { oneMs: 200, manyMs: 4_000, rolloutMs: 320 }, [
      'boxcutter',
      'upstream',
    ]);
    expect(lines).toContain('| 1 install / rollout floor | 1.25x | 2.5x | 0.5x |');
    expect(lines.at(-1)).toContain(
      'Rollout floor (one bundle applied the same way, its CRDs first until Established, then the rest until its Deployments are Available): 320 ms.',
    );
    expect(comparisonTable([side('boxcutter', 1)], 50, { oneMs: 200, manyMs: 4_000 }).join('\n')).not.toContain('rollout floor');
  });

  it('leaves the ratio column out when a compared side did not run', () => {
    const lines = comparisonTable([side('helm', 1), side('boxcutter', 1)], 50, { oneMs: 200, manyMs: 4_000 }, ['boxcutter', 'upstream']);
    expect(lines[0]).toBe('| figure | helm | boxcutter |');
    expect(lines).toContain('| 1 extension: install | 400 ms | 400 ms |');
  });
});
