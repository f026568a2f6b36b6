// The permissions `olmv1 upgrade approve` grants, through the ports the command gives the
// service (upgrade-deps.ts): operator-controller's own gate parser and `olmv1 install`'s RBAC.
import { describe, expect, it } from 'vitest';
import { grantUpgradeRbac } from '../../pkg/olmv1/upgrade/index.ts';
import { Manifest, type Release } from '../../pkg/operator-controller/release/index.ts';
import { parseClusterExtension } from '../../pkg/shared/api/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { bundleFiles } from '../../test/support/bundle-gen.ts';
import { fakeCluster } from '../../test/support/fake-cluster.ts';
import { fakeKubeContext } from '../../test/support/revision-fixtures.ts';
import { INSTALLED_BY_LABEL } from './install-objects.ts';
import { upgradeServiceDeps } from './upgrade-deps.ts';
import { BUNDLE_IMAGE_LIMITS } from '../../pkg/shared/image/index.ts';

describe("the permissions of an approved upgrade are the bundle's as operator-controller renders it", () => {
  /** An extension `olmv1 install` made, with release 1 of `hooky` installed (no webhook, so no certificate provider told). */
  async function approve(controllerArgs: string[] | undefined) {
    const cluster = fakeCluster();
    if (controllerArgs !== undefined) {
      cluster.seed({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'operator-controller-controller-manager', namespace: 'olmv1-system' },
        spec: { template: { spec: { containers: [{ name: 'manager', args: controllerArgs }] } } },
      } as KubeObject);
    }
    const object = {
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterExtension',
      metadata: { name: 'hooky', labels: { [INSTALLED_BY_LABEL]: 'olmv1' } },
      spec: { namespace: 'hooky', serviceAccount: { name: 'installer' }, source: { sourceType: 'Catalog', catalog: { packageName: 'hooky' } } },
    } as KubeObject;
    const parsed = parseClusterExtension(object);
    if (!parsed.ok) throw new Error(parsed.error);
    const files = new Map([...bundleFiles({ pkg: 'hooky', version: '2.0.0', webhook: true })].map(([k, v]) => [k, Buffer.from(v)] as const));
    const release = { manifest: Manifest.ofObjects([]) } as unknown as Release;
    const deps = upgradeServiceDeps(
      await fakeKubeContext(cluster),
      { connectCluster: () => Promise.reject(new Error('unused')), catalogContent: {} as never, fetchBundle: () => Promise.resolve(files) },
      { catalogdUrl: undefined, registryValues: {}, imageLimits: BUNDLE_IMAGE_LIMITS },
    );
    const approved = {
      ce: { object, extension: parsed.value, source: parsed.value.spec.source.catalog! },
      release,
      pick: { bundle: 'hooky.v2.0.0', image: 'registry.example/hooky:v2.0.0' },
    };
    return grantUpgradeRbac(deps, approved, { dryRun: true, systemNamespace: 'olmv1-system' });
  }

  it('with cert-manager as operator-controller runs it, grants what the webhook needs', async () => {
    const r = await approve(['--feature-gates=WebhookProviderCertManager=true']);
    if (!r.ok) throw new Error(r.error.error);
    expect(r.value?.grants.length).toBeGreaterThan(0);
    expect(JSON.stringify(r.value?.grants)).toContain('cert-manager.io');
  });

  it('without a certificate provider, refuses the webhook bundle as operator-controller would', async () => {
    const r = await approve(['--feature-gates=WebhookProviderCertManager=false', '--feature-gates=WebhookProviderOpenshiftServiceCA=false']);
    expect(r).toMatchObject({ ok: false, error: { grants: [] } });
  });
});
