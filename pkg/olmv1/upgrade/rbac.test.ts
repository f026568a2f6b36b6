import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kube/index.ts';
import { rbacDelta } from './rbac.ts';

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
