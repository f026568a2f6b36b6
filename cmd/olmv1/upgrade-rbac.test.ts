import { describe, expect, it } from 'vitest';
import { Manifest, type Release } from '../../pkg/operator-controller/release/index.ts';
import { parseClusterExtension } from '../../pkg/shared/api/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { bundleFiles } from '../../test/support/bundle-gen.ts';
import { fakeCluster } from '../../test/support/fake-cluster.ts';
import { INSTALLED_BY_LABEL } from './install-objects.ts';
import { CommandError } from './render.ts';
import { grantUpgradeRbac, rbacDelta } from './upgrade-rbac.ts';

const RBAC = 'rbac.authorization.k8s.io/v1';
const role = (kind: 'ClusterRole' | 'Role', name: string, rules: object[], namespace?: string): KubeObject => ({
  apiVersion: RBAC,
  kind,
  metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
  rules,
});
const binding = (kind: 'ClusterRoleBinding' | 'RoleBinding', name: string, namespace?: string): KubeObject => ({
  apiVersion: RBAC,
  kind,
  metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: kind === 'RoleBinding' ? 'Role' : 'ClusterRole', name },
  subjects: [{ kind: 'ServiceAccount', name: 'sa', namespace: 'ns' }],
});

describe('the permissions an approved upgrade adds', () => {
  const held = [
    role('ClusterRole', 'v1', [
      {
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['customresourcedefinitions'],
        resourceNames: ['widgets.x.io'],
        verbs: ['create', 'get', 'patch'],
      },
      { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['list', 'watch'] },
    ]),
    role('Role', 'v1', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create'] }], 'ns'),
  ];

  it('keeps only the grants the held roles do not cover, with the bindings of the roles kept', () => {
    const wanted = [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: 'ns' } },
      role('ClusterRole', 'v2', [
        {
          apiGroups: ['apiextensions.k8s.io'],
          resources: ['customresourcedefinitions'],
          resourceNames: ['widgets.x.io', 'gadgets.x.io'],
          verbs: ['create', 'get', 'patch'],
        },
        { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['list', 'watch'] },
        { apiGroups: ['x.io'], resources: ['gadgets'], verbs: ['get', 'list'] },
      ]),
      binding('ClusterRoleBinding', 'v2'),
      // Covered whole by the held Role (no resourceNames there covers every name): dropped with its binding.
      role('Role', 'v2', [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'], verbs: ['get', 'create'] }], 'ns'),
      binding('RoleBinding', 'v2', 'ns'),
      // Another namespace: the Role in ns does not cover it.
      role('Role', 'v2', [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'], verbs: ['get'] }], 'watched'),
      binding('RoleBinding', 'v2', 'watched'),
    ];
    expect(rbacDelta(held, wanted)).toEqual([
      role('ClusterRole', 'v2', [
        {
          apiGroups: ['apiextensions.k8s.io'],
          resources: ['customresourcedefinitions'],
          resourceNames: ['gadgets.x.io'],
          verbs: ['create', 'get', 'patch'],
        },
        { apiGroups: ['x.io'], resources: ['gadgets'], verbs: ['get', 'list'] },
      ]),
      role('Role', 'v2', [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'], verbs: ['get'] }], 'watched'),
      binding('ClusterRoleBinding', 'v2'),
      binding('RoleBinding', 'v2', 'watched'),
    ]);
  });

  it('adds nothing when the held roles cover everything, and everything when none is held', () => {
    expect(
      rbacDelta(held, [
        role('ClusterRole', 'v2', [{ apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['watch'] }]),
        binding('ClusterRoleBinding', 'v2'),
      ]),
    ).toEqual([]);
    const all = [
      role('Role', 'v2', [{ apiGroups: [''], resources: ['secrets'], resourceNames: ['a', 'b'], verbs: ['get'] }], 'ns'),
      binding('RoleBinding', 'v2', 'ns'),
    ];
    expect(rbacDelta([], all)).toEqual(all);
  });
});

describe("the permissions of an approved upgrade are the bundle's as operator-controller renders it", () => {
  /** An extension `olmv1 install` made, with release 1 of `hooky` installed (no webhook, so no certificate provider told). */
  async function approve(controllerArgs: string[] | undefined): Promise<{ out: string; error?: unknown }> {
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
    let out = '';
    const io = { stdout: { write: (t: string) => (out += t) }, stderr: { write: () => true } };
    try {
      await grantUpgradeRbac(
        { client: cluster.client },
        { fetchBundle: () => Promise.resolve(files) },
        {
          ce: { object, extension: parsed.value, source: parsed.value.spec.source.catalog! },
          release,
          pick: { bundle: 'hooky.v2.0.0', image: 'registry.example/hooky:v2.0.0' },
        },
        { dryRun: true, systemNamespace: 'olmv1-system' },
        io,
      );
      return { out };
    } catch (error) {
      return { out, error };
    }
  }

  it('with cert-manager as operator-controller runs it, grants what the webhook needs', async () => {
    const { out, error } = await approve(['--feature-gates=WebhookProviderCertManager=true']);
    expect(error).toBeUndefined();
    expect(out).toContain('would grant');
    expect(out).toContain('cert-manager.io');
  });

  it('without a certificate provider, refuses the webhook bundle as operator-controller would', async () => {
    const { error } = await approve(['--feature-gates=WebhookProviderCertManager=false', '--feature-gates=WebhookProviderOpenshiftServiceCA=false']);
    expect(error).toBeInstanceOf(CommandError);
  });
});
