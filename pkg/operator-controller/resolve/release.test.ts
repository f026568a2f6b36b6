import { describe, expect, it } from 'vitest';
import { formatRelease, formatSemver } from '../../shared/semver/index.ts';
import { compareVersionRelease, metadataFor, type VersionRelease } from './index.ts';
import { formatLegacyVersion, parseExplicitVersionRelease, parseLegacyVersionRelease } from './release.ts';

function legacy(s: string): VersionRelease {
  const r = parseLegacyVersionRelease(s);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

function explicit(v: string, rel: string): VersionRelease {
  const r = parseExplicitVersionRelease(v, rel);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe('legacy version/release', () => {
  it('moves a valid build into the release', () => {
    const vr = legacy('1.0.0+2');
    expect(formatSemver(vr.version)).toBe('1.0.0');
    expect(formatRelease(vr.release)).toBe('2');
  });

  it.each(['1.0.0+001', '1.0.0+1.02', '1.0.0+123456789012345678901'])('keeps build %s that is not a valid release', (s) => {
    const vr = legacy(s);
    expect(vr.release).toBeNull();
    expect(formatSemver(vr.version)).toBe(s);
  });

  it('passes strict parse errors through', () => {
    expect(parseLegacyVersionRelease('v1.0.0')).toEqual({
      ok: false,
      error: 'Invalid character(s) found in major number "v1"',
    });
  });
});

describe('explicit version/release', () => {
  it('keeps build metadata and parses the release separately', () => {
    const vr = explicit('1.0.0+git.abc', '2');
    expect(formatSemver(vr.version)).toBe('1.0.0+git.abc');
    expect(formatRelease(vr.release)).toBe('2');
  });

  it('treats "" as an explicit empty release', () => {
    expect(explicit('1.0.0', '').release).toEqual([]);
  });

  it.each([
    ['1.0', '1', 'error parsing version "1.0": No Major.Minor.Patch elements found'],
    [
      '1.0.0',
      '001',
      'error parsing release "001": invalid release "001": segment 0: Numeric PreRelease version must not contain leading zeroes "001"',
    ],
  ])('rejects (%s, %s)', (v, r, message) => {
    expect(parseExplicitVersionRelease(v, r)).toEqual({ ok: false, error: message });
  });
});

describe('compareVersionRelease', () => {
  // Each row is strictly ascending.
  it.each([
    ['1.0.0', '1.0.0+1'],
    ['1.0.0+1', '1.0.0+2'],
    ['1.0.0+2', '1.0.0+10'],
    ['1.0.0+1', '1.0.0+a'],
    ['1.0.0+9', '1.0.1'],
    ['0.0.0-0+1.001', '0.0.0-0+0'],
    ['1.0.0-rc.1+5', '1.0.0'],
  ])('%s < %s', (a, b) => {
    expect(compareVersionRelease(legacy(a), legacy(b))).toBe(-1);
    expect(compareVersionRelease(legacy(b), legacy(a))).toBe(1);
  });

  it('compares builds that are not releases as equal', () => {
    expect(compareVersionRelease(legacy('1.0.0+001'), legacy('1.0.0+002'))).toBe(0);
    expect(compareVersionRelease(legacy('1.0.0+001'), legacy('1.0.0'))).toBe(0);
  });

  it('orders an explicit empty release like none', () => {
    expect(compareVersionRelease(explicit('1.0.0', ''), legacy('1.0.0'))).toBe(0);
    expect(compareVersionRelease(explicit('1.0.0+x', '1'), legacy('1.0.0+1'))).toBe(0);
  });
});

describe('metadataFor', () => {
  it('puts the release back into build metadata with the gate off', () => {
    expect(metadataFor('b', legacy('1.0.0+2'))).toEqual({ name: 'b', version: '1.0.0+2' });
    expect(metadataFor('b', explicit('1.0.0+git', '3'))).toEqual({ name: 'b', version: '1.0.0+3' });
    expect(metadataFor('b', legacy('1.0.0+001'))).toEqual({ name: 'b', version: '1.0.0+001' });
    expect(formatLegacyVersion(legacy('2.0.0'))).toBe('2.0.0');
  });

  it('reports version and release separately with the gate on', () => {
    const on = { bundleReleaseSupport: true };
    expect(metadataFor('b', explicit('1.0.0+git', '3'), on)).toEqual({ name: 'b', version: '1.0.0+git', release: '3' });
    expect(metadataFor('b', explicit('1.0.0', ''), on)).toEqual({ name: 'b', version: '1.0.0', release: '' });
    expect(metadataFor('b', legacy('1.0.0+2'), on)).toEqual({ name: 'b', version: '1.0.0', release: '2' });
    expect(metadataFor('b', legacy('1.0.0'), on)).toEqual({ name: 'b', version: '1.0.0' });
  });
});
