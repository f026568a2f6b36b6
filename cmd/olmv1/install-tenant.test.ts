import { describe, expect, it } from 'vitest';
import { parseInstallArgs } from './install-args.ts';
import { tenantRequest, tenantState } from '../../pkg/olmv1/tenant/index.ts';

describe('install --tenant', () => {
  it('requests the package in the namespace as an Extension, with the fields given', () => {
    const a = parseInstallArgs([
      'argocd',
      '--tenant',
      '-n',
      'team-a',
      '--name',
      'cd',
      '-v',
      '>=1.0.0',
      '-c',
      'stable',
      '--catalog',
      'ops',
      '--watch-namespace',
      '',
    ]);
    expect(a.tenant).toBe(true);
    expect(tenantRequest(a)).toEqual({
      apiVersion: 'olm.operatorframework.io/v1alpha1',
      kind: 'Extension',
      metadata: { name: 'cd', namespace: 'team-a' },
      spec: {
        source: {
          sourceType: 'Catalog',
          catalog: {
            packageName: 'argocd',
            channels: ['stable'],
            version: '>=1.0.0',
            selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': 'ops' } },
          },
        },
        config: { configType: 'Inline', inline: { watchNamespace: '' } },
      },
    });
    expect(tenantRequest(parseInstallArgs(['argocd', '--tenant', '-n', 'team-a', '--service-account', 'mine'])).spec).toMatchObject({
      serviceAccount: { name: 'mine' },
    });
  });

  it('refuses the flags that are not the tenant to choose', () => {
    expect(() => parseInstallArgs(['argocd', '--tenant', '--update-policy', 'Manual'])).toThrow('--update-policy cannot be combined with --tenant');
    expect(() => parseInstallArgs(['argocd', '--tenant', '--with-dependencies'])).toThrow('--with-dependencies cannot be combined with --tenant');
  });

  it('reads the request: refused by its Allowed condition, installed by Installed and Progressing Succeeded, for its generation', () => {
    const at = (conditions: object[], install?: object) => ({
      apiVersion: 'v',
      kind: 'Extension',
      metadata: { name: 'cd', generation: 2 },
      status: { conditions, ...(install === undefined ? {} : { install }) },
    });
    expect(tenantState(at([{ type: 'Allowed', status: 'False', reason: 'PackageNotAllowed', message: 'no', observedGeneration: 2 }]))).toEqual({
      state: 'refused',
      rule: 'PackageNotAllowed',
      message: 'no',
    });
    expect(tenantState(at([{ type: 'Allowed', status: 'False', reason: 'PackageNotAllowed', message: 'no', observedGeneration: 1 }]))).toEqual({
      state: 'waiting',
      progress: 'waiting for operator-controller',
    });
    const done = [
      { type: 'Allowed', status: 'True', reason: 'Allowed', message: '', observedGeneration: 2 },
      { type: 'Installed', status: 'True', reason: 'Succeeded', message: '', observedGeneration: 2 },
      { type: 'Progressing', status: 'True', reason: 'Succeeded', message: '', observedGeneration: 2 },
    ];
    expect(tenantState(at(done, { bundle: { name: 'argocd.v1.0.0', version: '1.0.0' } }))).toEqual({
      state: 'installed',
      bundle: 'argocd.v1.0.0',
      version: '1.0.0',
    });
  });
});
