import { describe, expect, it } from 'vitest';
import { requestSummary } from './requests.ts';

const ext = (status: Record<string, unknown>) => ({
  apiVersion: 'olm.operatorframework.io/v1alpha1',
  kind: 'Extension',
  metadata: { name: 'ops', namespace: 'team-a', uid: 'u-1' },
  spec: { source: { sourceType: 'Catalog', catalog: { packageName: 'argocd', version: '>=1.0.0' } } },
  status,
});

describe('requestSummary', () => {
  it('an installed request: its bundle and states, no message', () => {
    expect(
      requestSummary(
        ext({
          policy: 'tenants',
          install: { bundle: { name: 'argocd.v1.0.0', version: '1.0.0' } },
          conditions: [
            { type: 'Allowed', status: 'True', reason: 'Allowed', message: 'allowed by ExtensionPolicy "tenants"' },
            { type: 'Installed', status: 'True', reason: 'Succeeded', message: 'installed' },
            { type: 'Progressing', status: 'True', reason: 'Succeeded', message: 'done' },
          ],
        }),
      ),
    ).toEqual({
      name: 'ops',
      uid: 'u-1',
      packageName: 'argocd',
      version: '>=1.0.0',
      installed: { bundle: 'argocd.v1.0.0', version: '1.0.0' },
      allowed: 'True',
      allowedReason: 'Allowed',
      installedStatus: 'True',
      progressing: 'Succeeded',
      message: '',
      policy: 'tenants',
      deleting: false,
    });
  });

  it('a refused request: the rule and its message; one not judged yet: Unknown', () => {
    const refused = requestSummary(
      ext({ conditions: [{ type: 'Allowed', status: 'False', reason: 'PackageNotAllowed', message: 'package "argocd" is not allowed' }] }),
    );
    expect(refused).toMatchObject({
      allowed: 'False',
      allowedReason: 'PackageNotAllowed',
      message: 'package "argocd" is not allowed',
      installed: undefined,
    });
    expect(requestSummary(ext({}))).toMatchObject({ allowed: 'Unknown', installedStatus: 'Unknown', progressing: '', message: '' });
  });
});
