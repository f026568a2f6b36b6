import { describe, expect, it } from 'vitest';
import { deprecationConditions, type DeprecationCondition } from './index.ts';
import { deprecation } from '../../../test/support/fbc-builders.ts';

type Row = [status: string, reason: string, message: string];

function rows(conds: DeprecationCondition[]): Record<string, Row> {
  return Object.fromEntries(conds.map((c) => [c.type, [c.status, c.reason, c.message]]));
}

const dep = deprecation([
  ['olm.package', undefined, 'package foo is end of life'],
  ['olm.channel', 'alpha', 'alpha is closed'],
  ['olm.channel', 'beta', 'beta is closed'],
  ['olm.bundle', 'foo.v1', 'v1 has a CVE'],
  ['olm.bundle', 'foo.v2', ''],
]);

describe('deprecationConditions', () => {
  it('returns the four conditions in order', () => {
    expect(deprecationConditions('foo.v1', dep, true).map((c) => c.type)).toEqual([
      'Deprecated',
      'PackageDeprecated',
      'ChannelDeprecated',
      'BundleDeprecated',
    ]);
  });

  it('reports everything that applies, rolled up in package, channel, bundle order', () => {
    expect(rows(deprecationConditions('foo.v1', dep, true))).toEqual({
      Deprecated: ['True', 'Deprecated', 'package foo is end of life\nalpha is closed\nbeta is closed\nv1 has a CVE'],
      PackageDeprecated: ['True', 'Deprecated', 'package foo is end of life'],
      ChannelDeprecated: ['True', 'Deprecated', 'alpha is closed\nbeta is closed'],
      BundleDeprecated: ['True', 'Deprecated', 'v1 has a CVE'],
    });
  });

  it('counts only the channels the extension names', () => {
    const r = rows(deprecationConditions('foo.v3', dep, true, ['beta', 'stable']));
    expect(r['ChannelDeprecated']).toEqual(['True', 'Deprecated', 'beta is closed']);
    expect(rows(deprecationConditions('foo.v3', dep, true, ['stable']))['ChannelDeprecated']).toEqual([
      'False',
      'NotDeprecated',
      'channel not deprecated',
    ]);
  });

  it('treats entries with empty messages as not deprecated', () => {
    expect(rows(deprecationConditions('foo.v2', dep, true))['BundleDeprecated']).toEqual(['False', 'NotDeprecated', 'bundle not deprecated']);
  });

  it('reports "not deprecated" everywhere without a deprecation object', () => {
    expect(rows(deprecationConditions('foo.v1', null, true))).toEqual({
      Deprecated: ['False', 'NotDeprecated', 'not deprecated'],
      PackageDeprecated: ['False', 'NotDeprecated', 'package not deprecated'],
      ChannelDeprecated: ['False', 'NotDeprecated', 'channel not deprecated'],
      BundleDeprecated: ['False', 'NotDeprecated', 'bundle not deprecated'],
    });
  });

  it('reports BundleDeprecated Absent when nothing is installed', () => {
    const r = rows(deprecationConditions('', dep, true));
    expect(r['BundleDeprecated']).toEqual(['Unknown', 'Absent', 'no bundle installed yet']);
    expect(r['Deprecated']?.[2]).not.toContain('v1 has a CVE');
  });

  it('reports Unknown without catalog data', () => {
    const unknown: Row = ['Unknown', 'DeprecationStatusUnknown', 'deprecation status unknown: catalog data unavailable'];
    expect(rows(deprecationConditions('foo.v1', dep, false))).toEqual({
      Deprecated: unknown,
      PackageDeprecated: unknown,
      ChannelDeprecated: unknown,
      BundleDeprecated: unknown,
    });
    expect(rows(deprecationConditions('', null, false))['BundleDeprecated']).toEqual(['Unknown', 'Absent', 'no bundle installed yet']);
  });
});
