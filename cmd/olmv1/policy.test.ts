import { describe, expect, it } from 'vitest';
import { parsePolicyAllowArgs, policyRow } from './policy.ts';

describe('olmv1 policy allow', () => {
  it('writes the namespaces, packages with ranges, catalogs, modes and upgrades given', () => {
    const a = parsePolicyAllowArgs([
      'tenants',
      '--namespaces',
      'tier=tenants,env in (dev,test)',
      '--package',
      'argocd=>=1.0.0 <2.0.0',
      '--package',
      'prometheus',
      '--catalog',
      'operators',
      '--install-mode',
      'OwnNamespace',
      '--install-mode',
      'AllNamespaces',
      '--upgrades',
      'Manual',
    ]);
    expect(a.policy).toEqual({
      apiVersion: 'olm.operatorframework.io/v1alpha1',
      kind: 'ExtensionPolicy',
      metadata: { name: 'tenants' },
      spec: {
        namespaceSelector: { matchLabels: { tier: 'tenants' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['dev', 'test'] }] },
        packages: [{ name: 'argocd', versionRange: '>=1.0.0 <2.0.0' }, { name: 'prometheus' }],
        catalogs: ['operators'],
        installModes: ['OwnNamespace', 'AllNamespaces'],
        upgrades: 'Manual',
      },
    });
    expect(policyRow(a.policy)).toEqual([
      'tenants',
      'tier=tenants,env in (dev,test)',
      'argocd >=1.0.0 <2.0.0; prometheus',
      'operators',
      'OwnNamespace,AllNamespaces',
      'Manual',
    ]);
  });

  it('needs the namespaces and a package, and knows the modes', () => {
    expect(() => parsePolicyAllowArgs(['p', '--package', 'a'])).toThrow('--namespaces is required');
    expect(() => parsePolicyAllowArgs(['p', '--namespaces', ''])).toThrow('at least one --package is required');
    expect(() => parsePolicyAllowArgs(['p', '--namespaces', '', '--package', 'a', '--install-mode', 'MultiNamespace'])).toThrow(
      '--install-mode must be',
    );
    expect(parsePolicyAllowArgs(['p', '--namespaces', '', '--package', 'a']).policy.spec).toEqual({
      namespaceSelector: {},
      packages: [{ name: 'a' }],
    });
  });
});
