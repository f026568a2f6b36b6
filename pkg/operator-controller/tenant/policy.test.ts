import { describe, expect, it } from 'vitest';
import { parseExtensionPolicy, type ExtensionPolicy } from '../../shared/api/index.ts';
import { parseVersionRange, rangeContains } from '../resolve/index.ts';
import { parseSemver } from '../../shared/semver/index.ts';
import { RefusalRule, evaluatePolicies, intersectRanges, requestedInstallMode, type TenantRequest } from './policy.ts';

function policy(name: string, spec: Record<string, unknown>): ExtensionPolicy {
  const parsed = parseExtensionPolicy({ metadata: { name }, spec });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

const teamA = { 'kubernetes.io/metadata.name': 'team-a', tier: 'tenants' };
const tenants = policy('tenants', {
  namespaceSelector: { matchLabels: { tier: 'tenants' } },
  packages: [{ name: 'argocd', versionRange: '>=1.0.0 <2.0.0', channels: ['stable'] }, { name: 'prometheus' }],
  catalogs: ['operators'],
});
const req = (r: Partial<TenantRequest> = {}): TenantRequest => ({ namespace: 'team-a', packageName: 'argocd', ...r });

describe('evaluatePolicies', () => {
  it('allows a request the policy covers, passing on its constraints', () => {
    const v = evaluatePolicies(req(), [tenants], teamA);
    expect(v).toMatchObject({
      allowed: true,
      policy: 'tenants',
      installMode: 'OwnNamespace',
      upgrades: 'Automatic',
      versionRange: '>=1.0.0 <2.0.0',
      channels: ['stable'],
    });
    if (!v.allowed) return;
    expect(v.selector).toEqual({ matchExpressions: [{ key: 'olm.operatorframework.io/metadata.name', operator: 'In', values: ['operators'] }] });
  });

  it('refuses a namespace no policy selects', () => {
    expect(evaluatePolicies(req({ namespace: 'team-b' }), [tenants], { 'kubernetes.io/metadata.name': 'team-b' })).toEqual({
      allowed: false,
      rule: RefusalRule.Namespace,
      message: 'no ExtensionPolicy allows installing into namespace "team-b"',
    });
  });

  it('refuses a package no policy lists, naming what is allowed', () => {
    const v = evaluatePolicies(req({ packageName: 'etcd' }), [tenants], teamA);
    expect(v).toEqual({
      allowed: false,
      rule: RefusalRule.Package,
      message: 'package "etcd" is not allowed in namespace "team-a": ExtensionPolicy "tenants" allows argocd, prometheus',
    });
  });

  it('refuses an exact version outside the range, and intersects a loose one', () => {
    expect(evaluatePolicies(req({ version: '2.1.0' }), [tenants], teamA)).toMatchObject({ allowed: false, rule: RefusalRule.Version });
    expect(evaluatePolicies(req({ version: '=1.4.0' }), [tenants], teamA)).toMatchObject({ allowed: true, versionRange: '=1.4.0' });
    expect(evaluatePolicies(req({ version: '>=1.2.0' }), [tenants], teamA)).toMatchObject({ allowed: true, versionRange: '>=1.2.0, >=1.0.0 <2.0.0' });
  });

  it('refuses a channel outside the policy and a catalog it does not name', () => {
    expect(evaluatePolicies(req({ channels: ['candidate'] }), [tenants], teamA)).toMatchObject({ allowed: false, rule: RefusalRule.Channel });
    const other = { matchLabels: { 'olm.operatorframework.io/metadata.name': 'community' } };
    expect(evaluatePolicies(req({ selector: other }), [tenants], teamA)).toMatchObject({
      allowed: false,
      rule: RefusalRule.Catalog,
      message: 'catalog "community" is not allowed: ExtensionPolicy "tenants" allows installing from operators',
    });
  });

  it('allows OwnNamespace only by default, more when the policy says so', () => {
    expect(evaluatePolicies(req({ watchNamespace: '' }), [tenants], teamA)).toMatchObject({ allowed: false, rule: RefusalRule.InstallMode });
    expect(evaluatePolicies(req({ watchNamespace: 'team-a' }), [tenants], teamA)).toMatchObject({ allowed: true, installMode: 'OwnNamespace' });
    const wide = policy('wide', { namespaceSelector: {}, packages: [{ name: 'argocd' }], installModes: ['AllNamespaces'] });
    expect(evaluatePolicies(req({ watchNamespace: '' }), [tenants, wide], teamA)).toMatchObject({
      allowed: true,
      policy: 'wide',
      installMode: 'AllNamespaces',
    });
  });

  it('reports the refusal of the policy that allowed the most of the request', () => {
    const narrow = policy('a-narrow', { namespaceSelector: {}, packages: [{ name: 'other' }] });
    const v = evaluatePolicies(req({ version: '3.0.0' }), [narrow, tenants], teamA);
    expect(v).toMatchObject({ allowed: false, rule: RefusalRule.Version });
  });

  it('reads a request with no watch namespace as OwnNamespace', () => {
    expect(requestedInstallMode({ namespace: 'a' })).toBe('OwnNamespace');
    expect(requestedInstallMode({ namespace: 'a', watchNamespace: 'b' })).toBe('SingleNamespace');
    expect(requestedInstallMode({ namespace: 'a', watchNamespace: '' })).toBe('AllNamespaces');
  });
});

describe('intersectRanges', () => {
  it('is the AND of both ranges, OR group by OR group', () => {
    const both = intersectRanges('1.x || >=3.0.0', '<3.5.0');
    expect(both).toBe('1.x, <3.5.0 || >=3.0.0, <3.5.0');
    const range = parseVersionRange(both);
    if (!range.ok) throw new Error(range.error);
    const has = (v: string) => {
      const s = parseSemver(v);
      return s.ok && rangeContains(range.value, s.value);
    };
    expect([has('1.4.0'), has('2.0.0'), has('3.1.0'), has('3.5.0')]).toEqual([true, false, true, false]);
  });
});
