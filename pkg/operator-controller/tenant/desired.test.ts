import { describe, expect, it } from 'vitest';
import { parseExtension, type Extension } from '../../shared/api/index.ts';
import { bundleLabelValue, desiredClusterExtension, labelledInstaller, requestConfig } from './desired.ts';
import { mirrorClusterExtension, setRefused } from './status.ts';

function ext(spec: Record<string, unknown> = {}): Extension {
  const parsed = parseExtension({
    metadata: { name: 'ops', namespace: 'team-a', uid: 'u1', generation: 3 },
    spec: { source: { sourceType: 'Catalog', catalog: { packageName: 'argocd', version: '>=1.0.0' } }, ...spec },
  });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}
const req = { namespace: 'team-a', name: 'ops', uid: 'u1' };

describe('desiredClusterExtension', () => {
  it('pins the version the installer was made for, installs into the request namespace and watches it (OwnNamespace)', () => {
    const ce = desiredClusterExtension({
      ext: ext(),
      req,
      name: 'team-a-ops-0123456789',
      version: '1.0.1',
      serviceAccount: 'ops-installer',
      installMode: 'OwnNamespace',
      channels: ['stable'],
      selector: { matchExpressions: [{ key: 'olm.operatorframework.io/metadata.name', operator: 'In', values: ['operators'] }] },
    });
    expect(ce).toEqual({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterExtension',
      metadata: {
        name: 'team-a-ops-0123456789',
        labels: {
          'olm.operatorframework.io/extension-namespace': 'team-a',
          'olm.operatorframework.io/extension-name': 'ops',
          'olm.operatorframework.io/extension-uid': 'u1',
        },
        annotations: { 'olm.operatorframework.io/extension-generation': '3' },
      },
      spec: {
        namespace: 'team-a',
        serviceAccount: { name: 'ops-installer' },
        source: {
          sourceType: 'Catalog',
          catalog: {
            packageName: 'argocd',
            version: '1.0.1',
            channels: ['stable'],
            selector: { matchExpressions: [{ key: 'olm.operatorframework.io/metadata.name', operator: 'In', values: ['operators'] }] },
            upgradeConstraintPolicy: 'CatalogProvided',
          },
        },
        config: { configType: 'Inline', inline: { watchNamespace: 'team-a' } },
      },
    });
  });

  it('leaves the watch namespace out for AllNamespaces and keeps the rest of the configuration', () => {
    const e = ext({ config: { configType: 'Inline', inline: { watchNamespace: '', deploymentConfig: { env: [] } } } });
    expect(requestConfig(e, 'AllNamespaces')).toEqual({ deploymentConfig: { env: [] } });
    expect(requestConfig(ext(), 'AllNamespaces')).toBeUndefined();
    expect(requestConfig(ext({ config: { configType: 'Inline', inline: { watchNamespace: 'other' } } }), 'SingleNamespace')).toEqual({
      watchNamespace: 'other',
    });
  });
});

describe('labelledInstaller', () => {
  it('labels every object with the request, and the grants with their bundle', () => {
    const objects = labelledInstaller(
      [
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'ops-installer', namespace: 'team-a' } },
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'olmv1-installer:team-a:ops-installer:argocd.v1.0.1' } },
      ],
      req,
      'argocd.v1.0.1',
    );
    expect(objects[0]?.metadata.labels).not.toHaveProperty(['olm.operatorframework.io/installer-for-bundle']);
    expect(objects[1]?.metadata.labels).toMatchObject({
      'olm.operatorframework.io/extension-uid': 'u1',
      'olm.operatorframework.io/installer-for-bundle': 'argocd.v1.0.1',
    });
    expect(bundleLabelValue('x'.repeat(70))).toMatch(/^[0-9a-f]{40}$/);
  });
});

describe('status', () => {
  it('mirrors the ClusterExtension, observed for the generation its spec was written for', () => {
    const e = ext();
    const ce = {
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterExtension',
      metadata: { name: 'x', generation: 7, annotations: { 'olm.operatorframework.io/extension-generation': '3' } },
      status: {
        conditions: [
          {
            type: 'Installed',
            status: 'True',
            reason: 'Succeeded',
            message: 'ok',
            lastTransitionTime: '2026-01-01T00:00:00Z',
            observedGeneration: 7,
          },
          {
            type: 'Progressing',
            status: 'True',
            reason: 'Retrying',
            message: 'x',
            lastTransitionTime: '2026-01-01T00:00:00Z',
            observedGeneration: 6,
          },
        ],
        install: { bundle: { name: 'argocd.v1.0.1', version: '1.0.1' } },
      },
    };
    mirrorClusterExtension(e, ce);
    expect(e.status?.conditions?.map((c) => [c.type, c.observedGeneration])).toEqual([
      ['Installed', 3],
      ['Progressing', undefined],
    ]);
    expect(e.status?.install).toEqual({ bundle: { name: 'argocd.v1.0.1', version: '1.0.1' } });
  });

  it('a refusal names the rule in Allowed and blocks Progressing', () => {
    const e = ext();
    setRefused(e, 'PackageNotAllowed', 'package "argocd" is not allowed');
    expect(e.status?.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Allowed', 'False', 'PackageNotAllowed'],
      ['Progressing', 'False', 'Blocked'],
      ['Installed', 'False', 'Failed'],
    ]);
  });
});
