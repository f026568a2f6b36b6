import { describe, expect, it } from 'vitest';
import type { Bundle, JsonValue } from '../../shared/fbc/types.ts';
import { formatRelease, formatSemver } from '../../shared/semver/index.ts';
import { bundleVersionRelease } from './index.ts';
import { bundle } from '../../../test/support/fbc-builders.ts';

function withPackageValue(value: JsonValue, extra: Bundle['properties'] = []): Bundle {
  return { ...bundle('b', '0.0.0'), properties: [...extra, { type: 'olm.package', value }] };
}

describe('bundleVersionRelease', () => {
  it('reads the first olm.package property', () => {
    const b: Bundle = {
      ...bundle('b', '1.2.3'),
      properties: [
        { type: 'olm.gvk', value: { group: 'g', kind: 'K', version: 'v1' } },
        { type: 'olm.package', value: { packageName: 'foo', version: '1.2.3+4' } },
        { type: 'olm.package', value: { packageName: 'foo', version: '9.9.9' } },
      ],
    };
    const r = bundleVersionRelease(b);
    expect(r.ok && [formatSemver(r.value.version), formatRelease(r.value.release)]).toEqual(['1.2.3', '4']);
  });

  it('matches JSON keys case-insensitively, the last one winning', () => {
    const r = bundleVersionRelease(withPackageValue({ Version: '1.0.0', VERSION: '2.0.0' }));
    expect(r.ok && formatSemver(r.value.version)).toBe('2.0.0');
  });

  it.each<[string, Bundle, string]>([
    ['no property', { ...bundle('b', '1.0.0'), properties: [] }, 'no package property found in bundle "b"'],
    [
      'a non-object value',
      withPackageValue('1.0.0'),
      'error unmarshalling package property: json: cannot unmarshal string into Go value of type property.Package',
    ],
    [
      'an array value',
      withPackageValue([]),
      'error unmarshalling package property: json: cannot unmarshal array into Go value of type property.Package',
    ],
    [
      'a numeric version',
      withPackageValue({ packageName: 'foo', version: 1 }),
      'error unmarshalling package property: json: cannot unmarshal number into Go struct field Package.version of type string',
    ],
    [
      'a boolean release (even with the gate off)',
      withPackageValue({ version: '1.0.0', release: true }),
      'error unmarshalling package property: json: cannot unmarshal bool into Go struct field Package.release of type string',
    ],
    ['a missing version', withPackageValue({ packageName: 'foo' }), 'Version string empty'],
    ['a null value', withPackageValue(null), 'Version string empty'],
    ['a partial version', withPackageValue({ version: '1.0' }), 'No Major.Minor.Patch elements found'],
  ])('reports %s', (_, b, message) => {
    expect(bundleVersionRelease(b)).toEqual({ ok: false, error: message });
  });

  describe('BundleReleaseSupport', () => {
    const b = bundle('b', '1.0.0+git', { release: '2' });

    it('ignores the release key while the gate is off (legacy reading)', () => {
      const r = bundleVersionRelease(b);
      expect(r.ok && [formatSemver(r.value.version), formatRelease(r.value.release)]).toEqual(['1.0.0', 'git']);
    });

    it('uses the release key with the gate on', () => {
      const r = bundleVersionRelease(b, { bundleReleaseSupport: true });
      expect(r.ok && [formatSemver(r.value.version), formatRelease(r.value.release)]).toEqual(['1.0.0+git', '2']);
    });

    it('treats an explicit empty release as present with the gate on', () => {
      const r = bundleVersionRelease(bundle('b', '1.0.0+7', { release: '' }), { bundleReleaseSupport: true });
      expect(r.ok && r.value.release).toEqual([]);
    });

    it('falls back to the legacy reading when there is no release key', () => {
      const r = bundleVersionRelease(bundle('b', '1.0.0+7'), { bundleReleaseSupport: true });
      expect(r.ok && formatRelease(r.value.release)).toBe('7');
    });

    it('reports explicit parse errors', () => {
      expect(bundleVersionRelease(bundle('b', '1.0.0', { release: '01' }), { bundleReleaseSupport: true })).toEqual({
        ok: false,
        error: 'error parsing release "01": invalid release "01": segment 0: Numeric PreRelease version must not contain leading zeroes "01"',
      });
    });
  });
});
