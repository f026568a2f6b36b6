import { describe, expect, it } from 'vitest';
import { NoKindMatchError, type KubeObject } from '../../shared/kube/index.ts';
import { firstMissingKind, systemObjectReason, systemObjectsMessage } from './preflight.ts';

const obj = (apiVersion: string, kind: string, name: string, namespace?: string, labels?: Record<string, string>): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name, ...(namespace === undefined ? {} : { namespace }), ...(labels === undefined ? {} : { labels }) },
});

describe('systemObjectReason', () => {
  it.each([
    [obj('rbac.authorization.k8s.io/v1', 'ClusterRole', 'system:basic-user'), 'its name starts with "system:"'],
    [obj('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'system:node'), 'its name starts with "system:"'],
    [obj('rbac.authorization.k8s.io/v1', 'Role', 'system:controller:x', 'ns'), 'its name starts with "system:"'],
    [obj('rbac.authorization.k8s.io/v1', 'RoleBinding', 'system:x', 'ns'), 'its name starts with "system:"'],
    [obj('v1', 'ConfigMap', 'anything', 'kube-system'), 'it is in namespace kube-system'],
    [obj('v1', 'ConfigMap', 'cluster-info', 'kube-public'), 'it is in namespace kube-public'],
    [obj('coordination.k8s.io/v1', 'Lease', 'node', 'kube-node-lease'), 'it is in namespace kube-node-lease'],
    [obj('v1', 'Namespace', 'kube-system'), 'it is a namespace of the system'],
    [
      obj('rbac.authorization.k8s.io/v1', 'ClusterRole', 'admin', undefined, { 'kubernetes.io/bootstrapping': 'rbac-defaults' }),
      'it is labelled kubernetes.io/bootstrapping',
    ],
  ])('%j belongs to the system', (o, reason) => {
    expect(systemObjectReason(o)).toBe(reason);
  });

  it.each([
    obj('rbac.authorization.k8s.io/v1', 'ClusterRole', 'my-operator'),
    obj('v1', 'ConfigMap', 'system:looking', 'ns'),
    obj('example.com/v1', 'ClusterRole', 'system:not-rbac'),
    obj('v1', 'Namespace', 'operators'),
  ])('%j does not', (o) => {
    expect(systemObjectReason(o)).toBeUndefined();
  });

  it('names every refused object of a revision', () => {
    const phases = [
      {
        objects: [
          { manifest: obj('v1', 'ConfigMap', 'fine', 'ns') },
          { manifest: obj('rbac.authorization.k8s.io/v1', 'ClusterRole', 'system:basic-user') },
        ],
      },
      { objects: [{ manifest: obj('v1', 'ConfigMap', 'x', 'kube-system') }] },
    ];
    expect(systemObjectsMessage(phases)).toBe(
      'revision refused, nothing of it is applied: ' +
        'ClusterRole system:basic-user belongs to the system (its name starts with "system:"): a revision never adopts, changes or deletes it, whatever its collision protection; ' +
        'ConfigMap kube-system/x belongs to the system (it is in namespace kube-system): a revision never adopts, changes or deletes it, whatever its collision protection',
    );
    expect(systemObjectsMessage([{ objects: [{ manifest: obj('v1', 'ConfigMap', 'fine', 'ns') }] }])).toBeUndefined();
  });
});

describe('firstMissingKind', () => {
  const crd = (group: string, kind: string, versions: string[]): KubeObject => ({
    ...obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', `${kind.toLowerCase()}s.${group}`),
    spec: { group, names: { kind }, versions: versions.map((name) => ({ name })) },
  });
  const served = new Set(['v1/ConfigMap', 'apiextensions.k8s.io/v1/CustomResourceDefinition']);
  const asked: string[] = [];
  const client = {
    resourceFor: (type: { apiVersion: string; kind: string }) => {
      asked.push(`${type.apiVersion}/${type.kind}`);
      if (served.has(`${type.apiVersion}/${type.kind}`)) return Promise.resolve({} as never);
      const slash = type.apiVersion.lastIndexOf('/');
      return Promise.reject(
        new NoKindMatchError({ group: type.apiVersion.slice(0, Math.max(slash, 0)), version: type.apiVersion.slice(slash + 1), kind: type.kind }),
      );
    },
  };
  const phase = (...objects: KubeObject[]) => ({ objects: objects.map((manifest) => ({ manifest })) });

  it('is undefined when every kind is served or defined by an earlier phase', async () => {
    const phases = [
      phase(crd('example.com', 'Widget', ['v1', 'v2'])),
      phase(obj('v1', 'ConfigMap', 'a', 'ns'), obj('example.com/v2', 'Widget', 'w', 'ns')),
    ];
    expect(await firstMissingKind(client, phases)).toBeUndefined();
  });

  it("names the first missing kind in phase order, upstream's mapper text", async () => {
    const phases = [
      phase(obj('v1', 'ConfigMap', 'a', 'ns')),
      phase(obj('monitoring.coreos.com/v1', 'ServiceMonitor', 's', 'ns'), obj('example.com/v1', 'Gadget', 'g')),
    ];
    expect(await firstMissingKind(client, phases)).toBe('no matches for kind "ServiceMonitor" in version "monitoring.coreos.com/v1"');
  });

  it('a kind only defined in the same phase, or another version of it, is missing', async () => {
    expect(await firstMissingKind(client, [phase(crd('example.com', 'Widget', ['v1']), obj('example.com/v1', 'Widget', 'w'))])).toBe(
      'no matches for kind "Widget" in version "example.com/v1"',
    );
    expect(await firstMissingKind(client, [phase(crd('example.com', 'Widget', ['v1'])), phase(obj('example.com/v2', 'Widget', 'w'))])).toBe(
      'no matches for kind "Widget" in version "example.com/v2"',
    );
  });

  it('asks about each kind once', async () => {
    asked.length = 0;
    await firstMissingKind(client, [phase(obj('v1', 'ConfigMap', 'a', 'ns'), obj('v1', 'ConfigMap', 'b', 'ns'))]);
    expect(asked).toEqual(['v1/ConfigMap']);
  });
});
