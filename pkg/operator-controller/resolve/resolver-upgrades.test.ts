import { describe, expect, it } from 'vitest';
import type { DeclarativeConfig } from '../../shared/fbc/types.ts';
import { metadataFor, resolve, type ResolveInput } from './index.ts';
import { type InstalledBundle } from './types.ts';
import { bundle, channel, partition } from '../../../test/support/fbc-builders.ts';

function run(fbc: DeclarativeConfig | null, installed: InstalledBundle, extra: Partial<ResolveInput> = {}): string {
  const r = resolve({ packageName: 'foo', installed, catalogs: [{ name: 'cat', priority: 0, package: fbc }], ...extra });
  return r.ok ? r.value.bundle.name : `error: ${r.error}`;
}

// Follows resolutions the way the controller does: the resolved bundle becomes installed.
function walk(fbc: DeclarativeConfig, start: InstalledBundle, steps: number): string[] {
  const seen: string[] = [];
  let installed = start;
  for (let i = 0; i < steps; i++) {
    const r = resolve({ packageName: 'foo', installed, catalogs: [{ name: 'cat', priority: 0, package: fbc }] });
    if (!r.ok) throw new Error(r.error);
    installed = metadataFor(r.value.bundle.name, r.value.versionRelease);
    seen.push(installed.version);
  }
  return seen;
}

describe('upgrade edges', () => {
  it("follows the documentation's example 1.0.0 -> 2.0.0 -> 3.0.0", () => {
    const fbc = partition({
      channels: [
        channel('stable', [
          { name: 'example.v1.0.0' },
          { name: 'example.v2.0.0', skipRange: '>=1.0.0 <2.0.0' },
          { name: 'example.v3.0.0', skips: ['example.v2.0.0'] },
        ]),
      ],
      bundles: [bundle('example.v1.0.0', '1.0.0'), bundle('example.v2.0.0', '2.0.0'), bundle('example.v3.0.0', '3.0.0')],
    });
    expect(run(fbc, { name: 'example.v1.0.0', version: '1.0.0' })).toBe('example.v2.0.0');
    expect(run(fbc, { name: 'example.v2.0.0', version: '2.0.0' })).toBe('example.v3.0.0');
    expect(walk(fbc, { name: 'example.v1.0.0', version: '1.0.0' }, 3)).toEqual(['2.0.0', '3.0.0', '3.0.0']);
  });

  it('takes the highest successor, not the one closest to the channel head', () => {
    const fbc = partition({
      channels: [
        channel('stable', [
          { name: 'p.v1.0.0' },
          { name: 'p.v3.0.0', replaces: 'p.v1.0.0' },
          { name: 'p.v2.0.0', replaces: 'p.v3.0.0', skips: ['p.v1.0.0'] },
        ]),
      ],
      bundles: [bundle('p.v1.0.0', '1.0.0'), bundle('p.v3.0.0', '3.0.0'), bundle('p.v2.0.0', '2.0.0')],
    });
    expect(run(fbc, { name: 'p.v1.0.0', version: '1.0.0' })).toBe('p.v3.0.0');
    // C replaces B but is lower than the installed 3.0.0, which is always a candidate.
    expect(run(fbc, { name: 'p.v3.0.0', version: '3.0.0' })).toBe('p.v3.0.0');
  });

  it('moves one edge per resolution (no transitivity)', () => {
    const fbc = partition({
      channels: [channel('stable', [{ name: 'foo.v1' }, { name: 'foo.v2', replaces: 'foo.v1' }, { name: 'foo.v3', replaces: 'foo.v2' }])],
      bundles: [bundle('foo.v1', '1.0.0'), bundle('foo.v2', '2.0.0'), bundle('foo.v3', '3.0.0')],
    });
    expect(walk(fbc, { name: 'foo.v1', version: '1.0.0' }, 3)).toEqual(['2.0.0', '3.0.0', '3.0.0']);
  });

  it('stays on the installed version when nothing declares an edge from it', () => {
    const fbc = partition({
      channels: [channel('stable', [{ name: 'foo.v1' }, { name: 'foo.v2' }])],
      bundles: [bundle('foo.v1', '1.0.0'), bundle('foo.v2', '2.0.0')],
    });
    expect(run(fbc, { name: 'foo.v1', version: '1.0.0' })).toBe('foo.v1');
  });

  it('matches the installed bundle by version and release, not by name or channel', () => {
    const fbc = partition({ bundles: [bundle('foo.renamed', '1.0.0')] });
    expect(run(fbc, { name: 'foo.v1', version: '1.0.0' })).toBe('foo.renamed');
    expect(run(fbc, { name: 'foo.v1', version: '1.0.0+1' })).toBe(
      'error: error upgrading from currently installed version "1.0.0+1": no bundles found for package "foo"',
    );
    // Build metadata that is not a valid release is ignored.
    expect(run(partition({ bundles: [bundle('foo.x', '1.0.0+002')] }), { name: 'foo.v1', version: '1.0.0+001' })).toBe('foo.x');
  });

  it('follows release upgrades carried in build metadata', () => {
    const fbc = partition({
      channels: [channel('stable', [{ name: 'foo.r1' }, { name: 'foo.r2', replaces: 'foo.r1' }])],
      bundles: [bundle('foo.r1', '1.0.0+1'), bundle('foo.r2', '1.0.0+2')],
    });
    expect(walk(fbc, { name: 'foo.r1', version: '1.0.0+1' }, 2)).toEqual(['1.0.0+2', '1.0.0+2']);
  });

  it('counts every edge kind: replaces, skips and skipRange', () => {
    const installed = { name: 'foo.v1', version: '1.5.0' };
    const fbc = (entry: Record<string, unknown>): DeclarativeConfig =>
      partition({ channels: [channel('c', [{ name: 'foo.v2', ...entry }])], bundles: [bundle('foo.v2', '2.0.0')] });
    expect(run(fbc({ replaces: 'foo.v1' }), installed)).toBe('foo.v2');
    expect(run(fbc({ skips: ['foo.x', 'foo.v1'] }), installed)).toBe('foo.v2');
    expect(run(fbc({ skipRange: '>=1.0.0 <2.0.0' }), installed)).toBe('foo.v2');
    expect(run(fbc({ skipRange: '>=1.6.0' }), installed)).toMatch(/^error: /);
    // An unparsable skipRange is no edge, but the entry's replaces still is.
    expect(run(fbc({ skipRange: '>=1.0.0, <2.0.0' }), installed)).toMatch(/^error: /);
    expect(run(fbc({ skipRange: '>=1.0.0, <2.0.0', replaces: 'foo.v1' }), installed)).toBe('foo.v2');
  });

  it('checks skipRange against the raw installed version, build ignored and no pre-release gate', () => {
    const fbc = partition({
      channels: [channel('c', [{ name: 'foo.v2', skipRange: '<2.0.0' }])],
      bundles: [bundle('foo.v2', '2.0.0')],
    });
    expect(run(fbc, { name: 'foo.rc', version: '2.0.0-rc.1' })).toBe('foo.v2');
    expect(run(fbc, { name: 'foo.v1', version: '1.9.0+3' })).toBe('foo.v2');
  });

  it('takes edges only from the selected channels when channels are given', () => {
    const fbc = partition({
      channels: [
        channel('stable', [{ name: 'foo.v1' }, { name: 'foo.v2' }]),
        channel('fast', [{ name: 'foo.v1' }, { name: 'foo.v2', replaces: 'foo.v1' }]),
      ],
      bundles: [bundle('foo.v1', '1.0.0'), bundle('foo.v2', '2.0.0')],
    });
    const installed = { name: 'foo.v1', version: '1.0.0' };
    expect(run(fbc, installed)).toBe('foo.v2');
    expect(run(fbc, installed, { channels: ['stable'] })).toBe('foo.v1');
    expect(run(fbc, installed, { channels: ['fast'] })).toBe('foo.v2');
  });

  it('still applies the version range to the installed version', () => {
    const fbc = partition({ bundles: [bundle('foo.v1', '0.1.0'), bundle('foo.v2', '2.0.0')] });
    expect(run(fbc, { name: 'foo.v1', version: '0.1.0' }, { versionRange: '<1.0.0 >=2.0.0' })).toBe(
      'error: error upgrading from currently installed version "0.1.0": no bundles found for package "foo" matching version "<1.0.0 >=2.0.0"',
    );
  });

  it('treats any policy other than SelfCertified as CatalogProvided', () => {
    const fbc = partition({ bundles: [bundle('foo.v1', '1.0.0'), bundle('foo.v2', '2.0.0')] });
    expect(run(fbc, { name: 'foo.v1', version: '1.0.0' }, { upgradeConstraintPolicy: 'Whatever' })).toBe('foo.v1');
    expect(run(fbc, { name: 'foo.v1', version: '1.0.0' }, { upgradeConstraintPolicy: 'SelfCertified' })).toBe('foo.v2');
  });
});

describe('SelfCertified', () => {
  const fbc = partition({
    bundles: [bundle('foo.v0.1.0', '0.1.0'), bundle('foo.v1.0.1', '1.0.1'), bundle('foo.v1.0.2', '1.0.2')],
  });
  const installed = { name: 'foo.v1.0.2', version: '1.0.2' };

  it('allows downgrades without edges', () => {
    expect(run(fbc, installed, { upgradeConstraintPolicy: 'SelfCertified', versionRange: '<1.0.2' })).toBe('foo.v1.0.1');
  });

  it('keeps the "upgrading from" prefix in errors', () => {
    expect(run(fbc, installed, { upgradeConstraintPolicy: 'SelfCertified', versionRange: '>0.1.0 <1.0.0' })).toBe(
      'error: error upgrading from currently installed version "1.0.2": no bundles found for package "foo" matching version ">0.1.0 <1.0.0"',
    );
  });

  it('does not parse the installed version', () => {
    expect(run(fbc, { name: 'x', version: 'garbage' }, { upgradeConstraintPolicy: 'SelfCertified' })).toBe('foo.v1.0.2');
  });
});

describe('E-edges: the installed version does not parse', () => {
  const fbc = partition({ bundles: [bundle('foo.v1', '1.0.0')] });

  it('reports legacy parse errors', () => {
    expect(run(fbc, { name: 'foo.v1', version: '1.0' })).toBe(
      'error: error walking catalogs: error finding upgrade edges: failed to get version and release of installed bundle: No Major.Minor.Patch elements found',
    );
  });

  it('reports explicit release errors', () => {
    expect(run(fbc, { name: 'foo.v1', version: '1.0.0', release: '001' })).toBe(
      'error: error walking catalogs: error finding upgrade edges: failed to parse installed bundle version and release: error parsing release "001": invalid release "001": segment 0: Numeric PreRelease version must not contain leading zeroes "001"',
    );
    expect(run(fbc, { name: 'foo.v1', version: 'v1', release: '1' })).toBe(
      'error: error walking catalogs: error finding upgrade edges: failed to parse installed bundle version and release: error parsing version "v1": No Major.Minor.Patch elements found',
    );
  });

  it('only fires once some catalog has the package', () => {
    expect(run(null, { name: 'foo.v1', version: '1.0' })).toBe(
      'error: error upgrading from currently installed version "1.0": no bundles found for package "foo"',
    );
  });

  it('matches an explicit release against bundle releases', () => {
    const fbc2 = partition({ bundles: [bundle('foo.a', '1.0.0+2'), bundle('foo.b', '1.0.0+3')] });
    expect(run(fbc2, { name: 'x', version: '1.0.0', release: '2' })).toBe('foo.a');
    expect(run(fbc2, { name: 'x', version: '1.0.0', release: '' })).toMatch(/^error: error upgrading/);
  });
});
