import { describe, expect, it } from 'vitest';
import { formatSemver } from '../../shared/semver/index.ts';
import { parseClusterVersion } from './index.ts';
import { checkBundleProperties, parseMaxOpenShiftVersion } from './verdict.ts';

// The forms upstream's parser accepts, one row per form.
const PARSE: Array<[raw: string, want: string]> = [
  ['4.18', '4.18.0'],
  ['4.10', '4.10.0'], // the text decides, not the float (4.1)
  ['"4.18"', '4.18.0'],
  ['"5.0"', '5.0.0'],
  ['" 4.18 "', '4.18.0'], // ParseTolerant trims space
  ['"4.08"', '4.8.0'], // ParseTolerant strips leading zeros
  ['4.18.0', "error: invalid character '.' after top-level value"],
  ['4.19e1', 'error: invalid semver format "4.19e1": expected <major>.<minor>'],
  ['5.00', 'error: invalid semver format "5.00": expected <major>.<minor>'],
  ['4', 'error: invalid semver format "4": expected <major>.<minor>'],
  ['true', 'error: invalid type bool for olm.maxOpenshiftVersion: true'],
  ['null', 'error: invalid type <nil> for olm.maxOpenshiftVersion: null'],
  ['{"v":1}', 'error: invalid type map[string]interface {} for olm.maxOpenshiftVersion: {"v":1}'],
  ['"4.18.0"', 'error: invalid version format'],
  ['"4.18.3"', 'error: invalid version format'],
  ['"v4.18"', 'error: invalid version format'],
  ['"4"', 'error: invalid version format'],
  ['"4.18-rc"', 'error: short version cannot contain PreRelease/Build meta data'],
  ['"4.x"', 'error: Invalid character(s) found in minor number "x"'],
];

describe('parseMaxOpenShiftVersion', () => {
  it.each(PARSE)('%s -> %s', (raw, want) => {
    const r = parseMaxOpenShiftVersion(raw);
    expect(r.ok ? formatSemver(r.value) : `error: ${r.error}`).toBe(want);
  });
});

function cluster(v: string) {
  const r = parseClusterVersion(v);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

const max = (value: unknown) => ({ type: 'olm.maxOpenShiftVersion', value });

// Compatible when the maximum is above the effective current version.
const CHECK: Array<[what: string, props: unknown[], clusterVersion: string, want: string]> = [
  ['no property', [{ type: 'olm.package', value: { packageName: 'p', version: '1.0.0' } }], '4.18', 'no-limit'],
  ['4.18 on 4.17', [max('4.18')], '4.17', 'compatible'],
  ['4.18 on 4.18', [max('4.18')], '4.18', 'incompatible'],
  ['4.18 on 4.19', [max('4.18')], '4.19', 'incompatible'],
  ['number 4.18 on 4.17.3', [max(4.18)], '4.17.3', 'compatible'],
  ['5.0 on 4.23 (4.23 counts as 5.0)', [max('5.0')], '4.23', 'incompatible'],
  ['5.1 on 4.23', [max('5.1')], '4.23', 'compatible'],
  ['4.23 on 4.22', [max('4.23')], '4.22', 'compatible'],
  ['two properties', [max('4.18'), max('4.19')], '4.17', 'error: more than one olm.maxOpenShiftVersion found in bundle'],
  ['malformed', [max('4.18.0')], '4.17', 'error: error converting to semver for version "4.18.0": invalid version format'],
  ['bool', [max(false)], '4.17', 'error: error converting to semver for version false: invalid type bool for olm.maxOpenshiftVersion: false'],
];

describe('checkBundleProperties', () => {
  it.each(CHECK)('%s', (_what, props, clusterVersion, want) => {
    const g = checkBundleProperties(props, cluster(clusterVersion));
    expect(g.kind === 'error' ? `error: ${g.errors.join('\n')}` : g.kind).toBe(want);
  });
});
