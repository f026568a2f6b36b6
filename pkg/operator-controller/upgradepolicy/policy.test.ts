import { describe, expect, it } from 'vitest';
import { APPROVED_BUNDLE_ANNOTATION, UPDATE_POLICY_ANNOTATION } from '../../shared/api/index.ts';
import { decideUpgrade, isPatchUpgrade, policySetting } from './policy.ts';

const bundle = (version: string, release?: string) => ({
  name: `foo.v${version}${release === undefined ? '' : `-${release}`}`,
  version,
  ...(release === undefined ? {} : { release }),
});
const annotations = (policy?: string, approved?: string): Record<string, string> => ({
  ...(policy === undefined ? {} : { [UPDATE_POLICY_ANNOTATION]: policy }),
  ...(approved === undefined ? {} : { [APPROVED_BUNDLE_ANNOTATION]: approved }),
});

describe('policySetting', () => {
  it.each([
    [undefined, 'Automatic', false, undefined],
    ['Automatic', 'Automatic', false, undefined],
    [' Automatic ', 'Automatic', false, undefined],
    ['Manual', 'Manual', true, undefined],
    ['AutomaticPatch', 'AutomaticPatch', true, undefined],
    ['manual', 'Manual', true, 'manual'],
    ['', 'Manual', true, ''],
    ['Patch', 'Manual', true, 'Patch'],
  ])('%j -> %s (reported %s, invalid %j)', (value, policy, reported, invalid) => {
    const s = policySetting(annotations(value));
    expect(s.policy).toBe(policy);
    expect(s.reported).toBe(reported);
    expect(s.invalid).toBe(invalid);
  });

  it('reads the approval trimmed; none is empty', () => {
    expect(policySetting(annotations('Manual', ' foo.v1.1.0\n')).approvedBundle).toBe('foo.v1.1.0');
    expect(policySetting(undefined).approvedBundle).toBe('');
  });
});

describe('isPatchUpgrade', () => {
  it.each([
    ['1.0.0', '1.0.1', true],
    ['1.0.0', '1.0.10', true],
    ['1.0.1', '1.0.0', false],
    ['1.0.0', '1.0.0', false],
    ['1.0.0', '1.1.0', false],
    ['1.0.0', '2.0.0', false],
    ['1.0.0-rc.1', '1.0.0', true],
    ['1.0.0', '1.0.1-rc.1', true],
    ['1.0.0+1', '1.0.0+2', true],
    ['1.0.0+2', '1.0.0+1', false],
    ['not-a-version', '1.0.1', false],
  ])('%s -> %s: %s', (from, to, expected) => {
    expect(isPatchUpgrade(bundle(from), bundle(to))).toBe(expected);
  });

  it('counts a higher catalog release of the same version as a patch', () => {
    expect(isPatchUpgrade(bundle('1.0.0', '1'), bundle('1.0.0', '2'))).toBe(true);
    expect(isPatchUpgrade(bundle('1.0.0', '2'), bundle('1.0.0', '1'))).toBe(false);
    expect(isPatchUpgrade(bundle('1.0.0'), bundle('1.0.0', '1'))).toBe(true);
  });
});

describe('decideUpgrade', () => {
  const move = (to: string, gainedPermissions = '') => ({ from: bundle('1.0.0'), to: bundle(to), gainedPermissions });

  it('Automatic always proceeds, whatever the move grants', () => {
    expect(decideUpgrade(policySetting(undefined), move('2.0.0', '+1 rule (1 escalating): cluster: * */*'))).toEqual({
      proceed: true,
      approved: false,
    });
  });

  it('Manual holds every move until the approval names the picked bundle', () => {
    expect(decideUpgrade(policySetting(annotations('Manual')), move('1.0.1'))).toEqual({ proceed: false, reasons: ['the update policy is Manual'] });
    expect(decideUpgrade(policySetting(annotations('Manual', 'foo.v1.0.1')), move('1.0.1'))).toEqual({ proceed: true, approved: true });
  });

  it('a stale approval (another bundle) approves nothing, and says so', () => {
    const d = decideUpgrade(policySetting(annotations('Manual', 'foo.v1.1.0')), move('1.2.0'));
    expect(d).toEqual({ proceed: false, reasons: ['the update policy is Manual', 'the approval names "foo.v1.1.0", not this bundle'] });
  });

  it('AutomaticPatch takes a patch release and holds minor and major ones', () => {
    const s = policySetting(annotations('AutomaticPatch'));
    expect(decideUpgrade(s, move('1.0.1'))).toEqual({ proceed: true, approved: false });
    expect(decideUpgrade(s, move('1.1.0'))).toEqual({
      proceed: false,
      reasons: ['the update policy is AutomaticPatch and 1.1.0 is not a patch release above 1.0.0'],
    });
    expect(decideUpgrade(s, move('0.9.0')).proceed).toBe(false);
    expect(decideUpgrade(policySetting(annotations('AutomaticPatch', 'foo.v1.1.0')), move('1.1.0'))).toEqual({ proceed: true, approved: true });
  });

  it('a patch release that grants more permissions waits under AutomaticPatch, with the delta in the reasons', () => {
    const d = decideUpgrade(policySetting(annotations('AutomaticPatch')), move('1.0.1', '+1 rule: cluster: list secrets'));
    expect(d).toEqual({ proceed: false, reasons: ['it grants more permissions: +1 rule: cluster: list secrets'] });
  });

  it('Manual names both reasons when the move also grants permissions', () => {
    const d = decideUpgrade(policySetting(annotations('Manual')), move('1.1.0', '+1 rule: cluster: list secrets'));
    expect(d.proceed).toBe(false);
    expect(d.proceed === false && d.reasons).toEqual(['the update policy is Manual', 'it grants more permissions: +1 rule: cluster: list secrets']);
  });

  it('an unreadable policy holds as Manual and says why', () => {
    const d = decideUpgrade(policySetting(annotations('Automatc')), move('1.0.1'));
    expect(d).toEqual({
      proceed: false,
      reasons: ['the update policy "Automatc" is not one of Automatic, Manual, AutomaticPatch, so upgrades are held as with Manual'],
    });
  });
});
