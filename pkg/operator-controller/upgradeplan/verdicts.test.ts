// The plan's verdict on olm.maxOpenShiftVersion, as olmv1 status judges the cluster's next minor upgrade.
import { describe, expect, it } from 'vitest';
import { maxVersionVerdict } from './verdicts.ts';

describe('maxVersionVerdict', () => {
  const props = (max?: string) => (max === undefined ? [] : [{ type: 'olm.maxOpenShiftVersion', value: max }]);
  const release = (max?: string) =>
    ({ bundle: { name: 'foo.v1', version: '1', image: 'x' }, properties: props(max) }) as Parameters<typeof maxVersionVerdict>[1];
  it('with a cluster version: now and after, for the next minor', () => {
    const v = maxVersionVerdict('foo', release('4.15'), 'foo.v2', props('4.17'), { ok: true, current: { major: 4n, minor: 15n } });
    expect(v).toEqual({
      installed: '4.15',
      next: '4.17',
      cluster: '4.15',
      verdict:
        "the installed bundle declares olm.maxOpenShiftVersion 4.15; foo.v2 declares olm.maxOpenShiftVersion 4.17; the cluster's upgrade from 4.15 to 4.16: now blocks, after the upgrade allows",
    });
  });
  it('without one: the declared maximums only', () => {
    const v = maxVersionVerdict('foo', release(), 'foo.v2', props('4.16'), { ok: false, error: 'not OpenShift' });
    expect(v).toEqual({
      installed: null,
      next: '4.16',
      cluster: null,
      verdict:
        'the installed bundle declares no olm.maxOpenShiftVersion; foo.v2 declares olm.maxOpenShiftVersion 4.16 (cluster version unknown: not OpenShift)',
    });
  });
  it('a malformed property is reported, not a verdict', () => {
    const v = maxVersionVerdict('foo', release(), 'foo.v2', [{ type: 'olm.maxOpenShiftVersion', value: 'not a version' }], {
      ok: true,
      current: { major: 4n, minor: 15n },
    });
    expect(v.next).toBeNull();
    expect(v.verdict).toMatch(/error\(s\) with cluster extension foo: .*after the upgrade leaves undecided$/);
  });
});
