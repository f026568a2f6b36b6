import { describe, expect, it } from 'vitest';
import {
  clusterOperatorUpgradeable,
  evaluateGate,
  memoizedBundleCheck,
  olmUpgradeableCondition,
  parseClusterVersion,
  type DeployedExtension,
} from './index.ts';

function at(v: string) {
  const r = parseClusterVersion(v);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}
const ext = (extension: string, bundle: string, ...values: unknown[]): DeployedExtension => ({
  extension,
  bundle,
  properties: values.map((value) => ({ type: 'olm.maxOpenShiftVersion', value })),
});

describe('olmUpgradeableCondition', () => {
  it('is True with empty reason and message when nothing blocks', () => {
    const v = evaluateGate(at('4.17'), [ext('a', 'a.v1'), ext('b', 'b.v1', '4.18')]);
    expect(v).toMatchObject({ current: '4.17', next: '4.18', upgradeable: true, blockers: [], errors: [], maxVersions: { b: '4.18' } });
    expect(olmUpgradeableCondition(v)).toEqual({ type: 'InstalledOLMOperatorsUpgradeable', status: 'True', reason: '', message: '' });
  });

  it('lists blockers sorted, comma-joined, with the next version', () => {
    const v = evaluateGate(at('4.18'), [ext('zeta', 'zeta.v2', '4.18'), ext('alpha', 'alpha.v1', '4.17'), ext('ok', 'ok.v1', '4.19')]);
    expect(v.upgradeable).toBe(false);
    expect(v.blockers).toEqual([
      { extension: 'alpha', bundle: 'alpha.v1', maxVersion: '4.17' },
      { extension: 'zeta', bundle: 'zeta.v2', maxVersion: '4.18' },
    ]);
    expect(olmUpgradeableCondition(v)).toEqual({
      type: 'InstalledOLMOperatorsUpgradeable',
      status: 'False',
      reason: 'IncompatibleOperatorsInstalled',
      message:
        'Found ClusterExtensions that require upgrades prior to upgrading cluster to version 4.19: bundle "alpha.v1" for ClusterExtension "alpha",bundle "zeta.v2" for ClusterExtension "zeta".',
    });
  });

  it('appends metadata errors to a blocked message', () => {
    const v = evaluateGate(at('4.23'), [ext('a', 'a.v1', '5.0'), ext('b', 'b.v1', '4.18', '4.19')]);
    expect(olmUpgradeableCondition(v).message).toBe(
      'Found ClusterExtensions that require upgrades prior to upgrading cluster to version 5.1: bundle "a.v1" for ClusterExtension "a".' +
        '\n Additionally the following errors were encountered while getting extension metadata: ' +
        'error(s) with cluster extension b: error in bundle b.v1: more than one olm.maxOpenShiftVersion found in bundle',
    );
  });

  it('reports errors alone as FailureGettingExtensionMetadata, never as blockers', () => {
    const v = evaluateGate(at('4.17'), [ext('b', 'b.v1', 'v4.18'), ext('a', 'a.v1', '4.19')], ['error returning the last deployed release for c']);
    expect(v.upgradeable).toBe(false);
    expect(v.blockers).toEqual([]);
    expect(olmUpgradeableCondition(v)).toEqual({
      type: 'InstalledOLMOperatorsUpgradeable',
      status: 'False',
      reason: 'FailureGettingExtensionMetadata',
      message:
        'error(s) with cluster extension b: error in bundle b.v1: error converting to semver for version "v4.18": invalid version format\n' +
        'error returning the last deployed release for c',
    });
  });
});

describe('memoizedBundleCheck', () => {
  it('gives the verdicts checkBundleProperties gives, as the cluster minor moves', () => {
    const extensions = [
      ext('a', 'a.v1', '4.18'),
      ext('b', 'b.v1'),
      ext('c', 'c.v1', '4.19'),
      ext('d', 'd.v1', '4.18', '4.19'),
      ext('e', 'e.v1', 'x'),
    ];
    const check = memoizedBundleCheck();
    for (const v of ['4.17', '4.18', '4.17', '4.19', '4.19'])
      expect(evaluateGate(at(v), extensions, [], check)).toEqual(evaluateGate(at(v), extensions));
  });

  it('judges a bundle once per cluster minor', () => {
    let reads = 0;
    const properties = new Proxy([{ type: 'olm.maxOpenShiftVersion', value: '4.18' }], {
      get(target, key, receiver) {
        if (key === 'filter') reads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const extensions: DeployedExtension[] = [{ extension: 'a', bundle: 'a.v1', properties }];
    const check = memoizedBundleCheck();
    expect(evaluateGate(at('4.17'), extensions, [], check).upgradeable).toBe(true);
    expect(evaluateGate(at('4.17'), extensions, [], check).upgradeable).toBe(true);
    expect(reads).toBe(1);
    expect(evaluateGate(at('4.18'), extensions, [], check).upgradeable).toBe(false);
    expect(reads).toBe(2);
  });
});

describe('clusterOperatorUpgradeable (library-go union)', () => {
  it('is AsExpected when every *Upgradeable condition is True', () => {
    const got = clusterOperatorUpgradeable([
      { type: 'InstalledOLMOperatorsUpgradeable', status: 'True', reason: '', message: '' },
      { type: 'Degraded', status: 'False', reason: 'X', message: 'not part of the union' },
    ]);
    expect(got).toEqual({ type: 'Upgradeable', status: 'True', reason: 'AsExpected', message: '' });
  });

  it('prefixes reasons and every message line', () => {
    const got = clusterOperatorUpgradeable([
      { type: 'InstalledOLMOperatorsUpgradeable', status: 'False', reason: 'IncompatibleOperatorsInstalled', message: 'line 1\n line 2' },
      { type: 'CatalogdUpgradeable', status: 'False', reason: '', message: 'busy' },
      { type: 'OtherUpgradeable', status: 'True', reason: 'Fine', message: 'ignored' },
    ]);
    expect(got).toEqual({
      type: 'Upgradeable',
      status: 'False',
      reason: 'Catalogd::InstalledOLMOperators_IncompatibleOperatorsInstalled',
      message: 'InstalledOLMOperatorsUpgradeable: line 1\nInstalledOLMOperatorsUpgradeable:  line 2\nCatalogdUpgradeable: busy',
    });
  });
});
