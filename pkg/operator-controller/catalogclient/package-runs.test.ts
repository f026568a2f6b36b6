import { describe, expect, it } from 'vitest';
import type { Meta } from '../../shared/fbc/index.ts';
import { createPackageRuns } from './package-runs.ts';

const meta = (schema: string, pkg: string, name: string): Meta => ({ schema, package: schema === 'olm.package' ? '' : pkg, name, blob: '{}' });

function split(metas: Meta[]): { runs: [string, string[]][]; end: ReturnType<ReturnType<typeof createPackageRuns>['end']> } {
  const runs: [string, string[]][] = [];
  const r = createPackageRuns((pkg, ms) => runs.push([pkg, ms.map((m) => `${m.schema}/${m.name}`)]));
  for (const m of metas) r.add(m);
  return { runs, end: r.end() };
}

describe('createPackageRuns', () => {
  it('hands each package its blobs as one run when the stream keeps them together', () => {
    const { runs, end } = split([
      meta('olm.package', 'a', 'a'),
      meta('olm.channel', 'a', 'stable'),
      meta('olm.bundle', 'a', 'a.v1'),
      meta('olm.package', 'b', 'b'),
      meta('olm.bundle', 'b', 'b.v1'),
      meta('olm.deprecations', 'b', ''),
    ]);
    expect(runs).toEqual([
      ['a', ['olm.package/a', 'olm.channel/stable', 'olm.bundle/a.v1']],
      ['b', ['olm.package/b', 'olm.bundle/b.v1', 'olm.deprecations/']],
    ]);
    expect(end).toEqual({ packageNames: new Set(['a', 'b']), scattered: new Set() });
  });

  it('names a package whose blobs come back after another package as scattered, and hands on no second run of it', () => {
    const { runs, end } = split([
      meta('olm.package', 'a', 'a'),
      meta('olm.package', 'b', 'b'),
      meta('olm.bundle', 'a', 'a.v1'),
      meta('olm.bundle', 'b', 'b.v1'),
    ]);
    expect(runs.map(([p]) => p)).toEqual(['a', 'b']);
    expect(end.scattered).toEqual(new Set(['a', 'b']));
  });

  it('drops blobs of no package', () => {
    const { runs } = split([{ schema: 'custom', package: '', name: 'x', blob: '{}' }, meta('olm.package', 'a', 'a')]);
    expect(runs).toEqual([['a', ['olm.package/a']]]);
  });
});
