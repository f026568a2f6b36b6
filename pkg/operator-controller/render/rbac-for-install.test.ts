import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBundle, readBundleDir, type KubeObject, type RegistryV1Bundle } from '../bundle/index.ts';
import { FIXTURE_BUNDLES_DIR } from '../../../test/fixtures/bundles/golden-cases.ts';
import { computeInstallRules, render, staticKindScopes, type RenderOptions } from './index.ts';
import { computeInstallRbac } from './rbac-for-install.ts';

async function fixture(name: string): Promise<RegistryV1Bundle> {
  const r = parseBundle(await readBundleDir(join(FIXTURE_BUNDLES_DIR, name)));
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

function rbacFor(bundle: RegistryV1Bundle, options: RenderOptions) {
  const rendered = render(bundle, options);
  if (!rendered.ok) throw new Error(rendered.error.message);
  const r = computeInstallRbac(rendered.value, {
    installNamespace: options.installNamespace,
    serviceAccountName: 'installer',
    bundleName: bundle.csv.metadata?.name ?? '',
    mapper: staticKindScopes(bundle.crds),
  });
  if (!r.ok) throw new Error(r.error);
  return { rendered: rendered.value, ...r.value };
}

type Rule = { apiGroups?: string[]; resources?: string[]; resourceNames?: string[]; nonResourceURLs?: string[]; verbs: string[] };
const rulesOf = (objs: KubeObject[], kind: string, ns?: string): Rule[] =>
  (objs.find((o) => o.kind === kind && o.metadata?.namespace === ns)?.['rules'] ?? []) as Rule[];

describe('computeInstallRbac', () => {
  it('grants named access to every rendered object, list/watch per resource, and the bundle roles', async () => {
    const bundle = await fixture('multi-crd');
    const { rendered, objects, warnings } = rbacFor(bundle, { installNamespace: 'acme-system' });
    const name = 'olmv1-installer:acme-system:installer:acme-widgets.v1.2.0';
    expect(objects.map((o) => `${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name}`)).toEqual([
      'ServiceAccount/acme-system/installer',
      `ClusterRole//${name}`,
      `ClusterRoleBinding//${name}`,
      `Role/acme-system/${name}`,
      `RoleBinding/acme-system/${name}`,
    ]);
    expect(warnings).toEqual([]);

    const cluster = rulesOf(objects, 'ClusterRole');
    const crdRule = cluster.find((r) => r.resources?.[0] === 'customresourcedefinitions' && r.resourceNames !== undefined);
    expect(crdRule).toEqual({
      apiGroups: ['apiextensions.k8s.io'],
      resources: ['customresourcedefinitions'],
      resourceNames: ['gadgets.widgets.acme.example.com', 'gizmos.widgets.acme.example.com', 'widgets.widgets.acme.example.com'],
      verbs: ['create', 'get', 'patch'], // CRDs are never deleted
    });
    const clusterRoleNames = rendered
      .filter((o) => o.kind === 'ClusterRole')
      .map((o) => o.metadata?.name)
      .sort();
    expect(cluster.find((r) => r.resources?.[0] === 'clusterroles' && r.resourceNames !== undefined)).toEqual({
      apiGroups: ['rbac.authorization.k8s.io'],
      resources: ['clusterroles'],
      resourceNames: clusterRoleNames,
      verbs: ['create', 'delete', 'get', 'patch'],
    });
    expect(cluster).toContainEqual({ apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['list', 'watch'] });
    // Escalation prevention: every rule of every rendered ClusterRole is held too.
    for (const role of rendered.filter((o) => o.kind === 'ClusterRole')) {
      for (const rule of role['rules'] as Rule[]) expect(cluster).toContainEqual(rule);
    }

    const namespaced = rulesOf(objects, 'Role', 'acme-system');
    expect(namespaced).toContainEqual({
      apiGroups: ['apps'],
      resources: ['deployments'],
      resourceNames: ['acme-widgets-controller-manager'],
      verbs: ['create', 'delete', 'get', 'patch'],
    });
    expect(namespaced).toContainEqual({ apiGroups: [''], resources: ['configmaps', 'serviceaccounts', 'services'], verbs: ['list', 'watch'] });
  });

  it('puts the Roles of other target namespaces into Roles there', async () => {
    const bundle = await fixture('multi-crd');
    const { rendered, objects } = rbacFor(bundle, { installNamespace: 'acme-system', config: { watchNamespace: 'acme-watched' } });
    const watched = rulesOf(objects, 'Role', 'acme-watched');
    for (const role of rendered.filter((o) => o.kind === 'Role')) {
      expect(role.metadata?.namespace).toBe('acme-watched');
      for (const rule of role['rules'] as Rule[]) expect(watched).toContainEqual(rule);
    }
    expect(watched).toContainEqual({ apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings', 'roles'], verbs: ['list', 'watch'] });
  });

  it('covers certificate-provider objects and webhook configurations', async () => {
    const bundle = await fixture('webhook');
    const { objects } = rbacFor(bundle, { installNamespace: 'hooks-system', certProvider: 'cert-manager' });
    const ns = rulesOf(objects, 'Role', 'hooks-system');
    expect(ns).toContainEqual({
      apiGroups: ['cert-manager.io'],
      resources: ['issuers'],
      resourceNames: ['acme-hooks-controller-manager-service-cert-selfsigned-issuer'],
      verbs: ['create', 'delete', 'get', 'patch'],
    });
    expect(rulesOf(objects, 'ClusterRole')).toContainEqual({
      apiGroups: ['admissionregistration.k8s.io'],
      resources: ['validatingwebhookconfigurations'],
      resourceNames: ['vhook.hooks.acme.example.com'],
      verbs: ['create', 'delete', 'get', 'patch'],
    });
  });

  it('warns about bindings to roles outside the bundle', async () => {
    const bundle = await fixture('extra-kinds');
    const { warnings } = rbacFor(bundle, { installNamespace: 'extras-system', config: { watchNamespace: 'extras-system' } });
    expect(warnings).toEqual([
      'ClusterRoleBinding "acme-extras-view" refers to ClusterRole "view", which is not part of the bundle: the ServiceAccount must also hold every permission it grants',
    ]);
  });

  it('refuses kinds it cannot map to a resource', () => {
    const r = computeInstallRbac([{ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' } }], {
      installNamespace: 'ns',
      serviceAccountName: 'sa',
      bundleName: 'b',
      mapper: staticKindScopes([]),
    });
    expect(r).toEqual({
      ok: false,
      error:
        'cannot determine the API resource of Gadget "g" (apiVersion "example.com/v1"): it is neither a built-in kind nor defined by a CustomResourceDefinition of the bundle',
    });
  });

  it('maps kinds defined by bundle CRDs, including cluster-scoped ones', () => {
    const mapper = staticKindScopes([
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'gs.example.com' },
        spec: { group: 'example.com', scope: 'Cluster', names: { kind: 'G', plural: 'gs' } },
      },
    ]);
    expect(mapper('example.com/v1', 'G')).toEqual({ group: 'example.com', resource: 'gs', namespaced: false });
    expect(mapper('v1', 'ConfigMap')).toEqual({ group: '', resource: 'configmaps', namespaced: true });
    expect(mapper('example.com/v1', 'Other')).toBeUndefined();
  });
});

describe('computeInstallRules', () => {
  it('is the rules of the generated roles, scope by scope', async () => {
    const bundle = await fixture('multi-crd');
    const options = { installNamespace: 'acme-system', config: { watchNamespace: 'acme-watched' } };
    const { rendered, objects } = rbacFor(bundle, options);
    const r = computeInstallRules(rendered, { installNamespace: 'acme-system', mapper: staticKindScopes(bundle.crds) });
    if (!r.ok) throw new Error(r.error);
    expect(r.value.scopes.map((s) => s.namespace)).toEqual(['', 'acme-system', 'acme-watched']);
    for (const { namespace, rules } of r.value.scopes) {
      expect(rules).toEqual(namespace === '' ? rulesOf(objects, 'ClusterRole') : rulesOf(objects, 'Role', namespace));
    }
  });

  it('adds delete on the names of dropped objects, in their scope, except CRDs', () => {
    const crd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'old.example.com' } };
    const kept = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept', namespace: 'ns' } };
    const dropped = [
      crd,
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc-b', namespace: 'ns' } },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc-a' } }, // no namespace: the install namespace
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other', namespace: 'elsewhere' } },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'old-role' } },
    ];
    const r = computeInstallRules([kept], { installNamespace: 'ns', mapper: staticKindScopes([]), dropped });
    if (!r.ok) throw new Error(r.error);
    expect(r.value.scopes).toEqual([
      {
        namespace: '',
        rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], resourceNames: ['old-role'], verbs: ['delete'] }],
      },
      { namespace: 'elsewhere', rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['other'], verbs: ['delete'] }] },
      {
        namespace: 'ns',
        rules: [
          { apiGroups: [''], resources: ['configmaps'], resourceNames: ['kept'], verbs: ['create', 'delete', 'get', 'patch'] },
          { apiGroups: [''], resources: ['services'], resourceNames: ['svc-a', 'svc-b'], verbs: ['delete'] },
          { apiGroups: [''], resources: ['configmaps'], verbs: ['list', 'watch'] },
        ],
      },
    ]);
    const unknown = computeInstallRules([], {
      installNamespace: 'ns',
      mapper: staticKindScopes([]),
      dropped: [{ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' } }],
    });
    expect(unknown.ok).toBe(false);
  });
});
