import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBundle, readBundleDir, type KubeObject, type RegistryV1Bundle } from '../bundle/index.ts';
import { testBundle } from '../../../test/fixtures/bundles/builder.ts';
import { FIXTURE_BUNDLES_DIR } from '../../../test/fixtures/bundles/golden-cases.ts';
import { computeInstallRbac } from './rbac-for-install.ts';
import {
  foreignRoleBindings,
  formatEscalationWarning,
  rbacEscalationWarnings,
  render,
  ruleDangers,
  staticKindScopes,
  type RenderOptions,
} from './index.ts';
import { ruleText } from './rbac-escalation.ts';

const RBAC = 'rbac.authorization.k8s.io/v1';
const INSTALLER = 'olmv1-installer:acme-system:installer:test-operator.v1.0.0';

/** Renders `bundle`, computes its installer RBAC and returns the escalation warnings as lines. */
function warningsFor(bundle: RegistryV1Bundle, options: RenderOptions = { installNamespace: 'acme-system' }): string[] {
  const rendered = render(bundle, options);
  if (!rendered.ok) throw new Error(rendered.error.message);
  const rbac = computeInstallRbac(rendered.value, {
    installNamespace: options.installNamespace,
    serviceAccountName: 'installer',
    bundleName: bundle.csv.metadata?.name ?? '',
    mapper: staticKindScopes(bundle.crds),
  });
  if (!rbac.ok) throw new Error(rbac.error);
  const config = options.config as { watchNamespace?: string } | undefined;
  const scope = {
    installNamespace: options.installNamespace,
    ...(config?.watchNamespace === undefined ? {} : { watchNamespace: config.watchNamespace }),
  };
  return rbacEscalationWarnings(rbac.value.objects, rendered.value, scope).map(formatEscalationWarning);
}

async function fixture(name: string): Promise<RegistryV1Bundle> {
  const r = parseBundle(await readBundleDir(join(FIXTURE_BUNDLES_DIR, name)));
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

/** A bundle whose clusterPermissions hold `rules` (AllNamespaces), plus `others`. */
function withClusterRules(rules: Record<string, unknown>[], others: KubeObject[] = []): RegistryV1Bundle {
  return testBundle({
    others,
    spec: {
      install: {
        strategy: 'deployment',
        spec: {
          clusterPermissions: [{ serviceAccountName: 'operator', rules }],
          deployments: [
            {
              name: 'operator',
              spec: {
                selector: { matchLabels: { app: 'operator' } },
                template: { metadata: { labels: { app: 'operator' } }, spec: { containers: [{ name: 'm', image: 'example.com/op:v1' }] } },
              },
            },
          ],
        },
      },
    },
  });
}

const hostile = testBundle({
  others: [
    { apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: 'system:basic-user' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] },
    {
      apiVersion: RBAC,
      kind: 'ClusterRoleBinding',
      metadata: { name: 'acme-admin' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: 'operator', namespace: 'acme-system' }],
    },
  ],
});

describe('rbacEscalationWarnings', () => {
  it('warns about a hostile bundle: "system:" role with "*" rules, binding of cluster-admin', () => {
    expect(warningsFor(hostile)).toEqual([
      `ClusterRole "${INSTALLER}" rules[1] {apiGroups: ["rbac.authorization.k8s.io"], resources: ["clusterroles"], resourceNames: ["system:basic-user"], verbs: ["create", "delete", "get", "patch"]}: rights on ["system:basic-user"], named "system:..." like the roles, bindings and identities Kubernetes itself relies on (e.g. system:basic-user is bound to every authenticated user)`,
      `ClusterRole "${INSTALLER}" rules[3] {apiGroups: ["*"], resources: ["*"], verbs: ["*"]} (from the bundle's ClusterRole "system:basic-user"): "*" in verbs, apiGroups, resources matches every verb (escalate, bind and impersonate included), every API group, every resource (Secrets and RBAC included), and whatever is added later`,
      'ClusterRoleBinding "acme-admin" roleRef ClusterRole "cluster-admin": binds a role the bundle does not ship: the extension gets every right of that role (not reviewed here), and the ServiceAccount must hold them all (or "bind" on it) to create the binding',
    ]);
  });

  it('warns about "*" in any of verbs, apiGroups and resources, one warning per rule', () => {
    const lines = warningsFor(
      withClusterRules([
        { apiGroups: ['apps'], resources: ['deployments'], verbs: ['*'] },
        { apiGroups: ['*'], resources: ['widgets'], verbs: ['get'] },
        { apiGroups: [''], resources: ['*/scale'], verbs: ['get'] },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
      ]),
    );
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^ClusterRole ".*" rules\[\d+\] \{apiGroups: \["apps"\], resources: \["deployments"\], verbs: \["\*"\]\} \(from the bundle's ClusterRole ".*"\): "\*" in verbs matches every verb \(escalate, bind and impersonate included\), and whatever is added later$/,
    );
    expect(lines[1]).toContain('{apiGroups: ["*"], resources: ["widgets"], verbs: ["get"]}');
    expect(lines[1]).toContain(': "*" in apiGroups matches every API group, and whatever is added later');
    expect(lines[2]).toContain(': "*" in resources matches every resource (Secrets and RBAC included), and whatever is added later');
  });

  it('warns about the verbs escalate, bind and impersonate', () => {
    const lines = warningsFor(
      withClusterRules([
        { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['escalate', 'bind'] },
        { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'] },
      ]),
    );
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(
      ': verb "escalate" lets the holder create and change roles with rights it does not hold; verb "bind" lets the holder bind roles with rights it does not hold',
    );
    expect(lines[1]).toContain(': verb "impersonate" lets the holder act as other users, groups or ServiceAccounts');
  });

  it('warns about any right on objects named "system:..." (bundle objects and rules)', () => {
    const lines = warningsFor(
      withClusterRules(
        [{ apiGroups: [''], resources: ['nodes'], resourceNames: ['system:node'], verbs: ['get'] }],
        [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'system:settings' } }],
      ),
    );
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^ClusterRole ".*" rules\[\d+\] \{apiGroups: \[""\], resources: \["nodes"\], resourceNames: \["system:node"\], verbs: \["get"\]\} \(from the bundle's ClusterRole ".*"\): rights on \["system:node"\], named "system:\.\.\."/,
    );
    expect(lines[1]).toMatch(
      /^Role ".*" in namespace "acme-system" rules\[\d+\] \{apiGroups: \[""\], resources: \["configmaps"\], resourceNames: \["system:settings"\], verbs: \["create", "delete", "get", "patch"\]\}: rights on \["system:settings"\]/,
    );
  });

  it('marks the Role and RoleBinding in the watch namespace as expected, and any other namespace as not', async () => {
    const bundle = await fixture('multi-crd');
    const lines = warningsFor(bundle, { installNamespace: 'acme-system', config: { watchNamespace: 'acme-watched' } });
    expect(lines).toContain(
      'Role and RoleBinding "olmv1-installer:acme-system:installer:acme-widgets.v1.2.0" in namespace "acme-watched": grant rights outside the install namespace "acme-system"; expected: "acme-watched" is the watch namespace, where the bundle\'s permissions apply',
    );
    // Own namespace: nothing outside the install namespace.
    expect(warningsFor(bundle, { installNamespace: 'acme-system', config: { watchNamespace: 'acme-system' } }).join('\n')).not.toContain('outside');

    const role = (namespace: string): KubeObject => ({ apiVersion: RBAC, kind: 'Role', metadata: { name: 'r', namespace }, rules: [] });
    const warnings = rbacEscalationWarnings([role('acme-system'), role('acme-watched'), role('kube-system')], [], {
      installNamespace: 'acme-system',
      watchNamespace: 'acme-watched',
    });
    expect(warnings.map((w) => [formatEscalationWarning(w), w.expected])).toEqual([
      [
        'Role "r" in namespace "acme-watched": grants rights outside the install namespace "acme-system"; expected: "acme-watched" is the watch namespace, where the bundle\'s permissions apply',
        true,
      ],
      [
        'Role "r" in namespace "kube-system": grants rights outside the install namespace "acme-system", in a namespace that is not the watch namespace either',
        false,
      ],
    ]);
  });

  it('warns about every binding of a role the bundle does not ship (admin, edit, missing Roles, the installer role)', () => {
    const binding = (kind: string, name: string, roleKind: string, roleName: string): KubeObject => ({
      apiVersion: RBAC,
      kind,
      metadata: kind === 'RoleBinding' ? { name, namespace: 'acme-system' } : { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: roleName },
      subjects: [{ kind: 'ServiceAccount', name: 'operator', namespace: 'acme-system' }],
    });
    const bundle: KubeObject[] = [
      { apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: 'own' }, rules: [] },
      { apiVersion: RBAC, kind: 'Role', metadata: { name: 'own-role', namespace: 'acme-system' }, rules: [] },
      binding('ClusterRoleBinding', 'ok', 'ClusterRole', 'own'),
      binding('RoleBinding', 'ok-role', 'Role', 'own-role'),
      binding('RoleBinding', 'ok-cluster-role', 'ClusterRole', 'own'),
      binding('RoleBinding', 'ns-admin', 'ClusterRole', 'admin'),
      binding('RoleBinding', 'ns-edit', 'Role', 'edit'),
      binding('ClusterRoleBinding', 'steal', 'ClusterRole', INSTALLER),
    ];
    expect(foreignRoleBindings(bundle).map((b) => `${b.kind}/${b.namespace}/${b.name} -> ${b.roleKind}/${b.roleName}`)).toEqual([
      'RoleBinding/acme-system/ns-admin -> ClusterRole/admin',
      'RoleBinding/acme-system/ns-edit -> Role/edit',
      `ClusterRoleBinding//steal -> ClusterRole/${INSTALLER}`,
    ]);
    const installer: KubeObject[] = [{ apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: INSTALLER }, rules: [] }];
    const lines = rbacEscalationWarnings(installer, bundle, { installNamespace: 'acme-system' }).map(formatEscalationWarning);
    expect(lines[0]).toBe(
      'RoleBinding "ns-admin" in namespace "acme-system" roleRef ClusterRole "admin": binds a role the bundle does not ship: the extension gets every right of that role (not reviewed here), and the ServiceAccount must hold them all (or "bind" on it) to create the binding',
    );
    expect(lines).toHaveLength(3);
  });

  it('has nothing to say about benign bundles', async () => {
    for (const name of ['minimal', 'own-only', 'dependencies']) {
      const bundle = await fixture(name);
      const options: RenderOptions = name === 'own-only' ? { installNamespace: 'ns', config: { watchNamespace: 'ns' } } : { installNamespace: 'ns' };
      expect(warningsFor(bundle, options), name).toEqual([]);
    }
    expect(warningsFor(await fixture('webhook'), { installNamespace: 'hooks', certProvider: 'cert-manager' })).toEqual([]);
    expect(
      warningsFor(
        withClusterRules([
          { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
          { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['operator-lock'], verbs: ['get', 'update'] },
          { nonResourceURLs: ['/metrics'], verbs: ['get'] },
        ]),
      ),
    ).toEqual([]);
  });
});

describe('ruleDangers, ruleText', () => {
  it('gives short reasons for compact lists; "*" verbs do not repeat escalate/bind/impersonate', () => {
    expect(ruleDangers({ apiGroups: ['*'], resources: ['*'], verbs: ['*', 'bind'] }).map((d) => d.short)).toEqual([
      '"*" in verbs, apiGroups, resources',
    ]);
    expect(
      ruleDangers({ apiGroups: [''], resources: ['users'], resourceNames: ['system:admin'], verbs: ['impersonate'] }).map((d) => d.short),
    ).toEqual(['verb impersonate', 'name ["system:admin"]']);
    expect(ruleDangers({ apiGroups: [''], resources: ['pods'], verbs: ['get'] })).toEqual([]);
  });

  it('keeps a rule on one short line: long lists and strings are shortened, control characters escaped', () => {
    const names = Array.from({ length: 12 }, (_, i) => `n${i}`);
    expect(ruleText({ apiGroups: [''], resources: ['configmaps'], resourceNames: names, verbs: ['get'] })).toBe(
      '{apiGroups: [""], resources: ["configmaps"], resourceNames: ["n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", ... 4 more], verbs: ["get"]}',
    );
    const text = ruleText({ resources: [`${'x'.repeat(1 << 20)}\n`], verbs: ['get'] });
    expect(text).toBe(`{resources: ["${'x'.repeat(80)}..."], verbs: ["get"]}`);
    expect(ruleText({ nonResourceURLs: ['/a\nb'], verbs: ['get'] })).toBe('{nonResourceURLs: ["/a\\nb"], verbs: ["get"]}');
  });
});
