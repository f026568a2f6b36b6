import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kube/index.ts';
import { MAX_OBJECTS_PER_PHASE, MAX_PHASES, PHASE_ORDER, phaseOf, sortIntoPhases } from './phases.ts';

const obj = (apiVersion: string, kind: string, name: string, namespace?: string): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
});

describe('phaseOf', () => {
  it.each([
    ['', 'Namespace', 'namespaces'],
    ['networking.k8s.io', 'NetworkPolicy', 'policies'],
    ['policy', 'PodDisruptionBudget', 'policies'],
    ['scheduling.k8s.io', 'PriorityClass', 'policies'],
    ['', 'ServiceAccount', 'identity'],
    ['', 'Secret', 'configuration'],
    ['', 'ConfigMap', 'configuration'],
    ['', 'PersistentVolume', 'storage'],
    ['', 'PersistentVolumeClaim', 'storage'],
    ['storage.k8s.io', 'StorageClass', 'storage'],
    ['apiextensions.k8s.io', 'CustomResourceDefinition', 'crds'],
    ['rbac.authorization.k8s.io', 'ClusterRole', 'roles'],
    ['rbac.authorization.k8s.io', 'Role', 'roles'],
    ['rbac.authorization.k8s.io', 'ClusterRoleBinding', 'bindings'],
    ['rbac.authorization.k8s.io', 'RoleBinding', 'bindings'],
    ['', 'Service', 'infrastructure'],
    ['cert-manager.io', 'Issuer', 'infrastructure'],
    // phase.go puts Certificate in infrastructure (the draft doc's table says deploy; the code rules)
    ['cert-manager.io', 'Certificate', 'infrastructure'],
    ['apps', 'Deployment', 'deploy'],
    ['autoscaling.k8s.io', 'VerticalPodAutoscaler', 'scaling'],
    ['monitoring.coreos.com', 'PrometheusRule', 'publish'],
    ['monitoring.coreos.com', 'ServiceMonitor', 'publish'],
    ['monitoring.coreos.com', 'PodMonitor', 'publish'],
    ['networking.k8s.io', 'Ingress', 'publish'],
    ['route.openshift.io', 'Route', 'publish'],
    ['console.openshift.io', 'ConsoleYAMLSample', 'publish'],
    ['console.openshift.io', 'ConsoleQuickStart', 'publish'],
    ['console.openshift.io', 'ConsoleCLIDownload', 'publish'],
    ['console.openshift.io', 'ConsoleLink', 'publish'],
    ['console.openshift.io', 'ConsolePlugin', 'publish'],
    ['admissionregistration.k8s.io', 'ValidatingWebhookConfiguration', 'admission'],
    ['admissionregistration.k8s.io', 'MutatingWebhookConfiguration', 'admission'],
    // not listed: deploy
    ['apps', 'StatefulSet', 'deploy'],
    ['example.com', 'Widget', 'deploy'],
    // the group matters: a core-group "Deployment" or a Service of another group is unknown
    ['', 'Deployment', 'deploy'],
    ['example.com', 'Service', 'deploy'],
    ['example.com', 'Namespace', 'deploy'],
  ])('%s/%s -> %s', (group, kind, phase) => {
    expect(phaseOf({ group, kind })).toBe(phase);
  });

  it('has upstream order and limits', () => {
    expect(PHASE_ORDER).toEqual([
      'namespaces',
      'policies',
      'identity',
      'configuration',
      'storage',
      'crds',
      'roles',
      'bindings',
      'infrastructure',
      'deploy',
      'scaling',
      'publish',
      'admission',
    ]);
    expect(PHASE_ORDER.length).toBeLessThanOrEqual(MAX_PHASES);
    expect([MAX_PHASES, MAX_OBJECTS_PER_PHASE]).toEqual([20, 50]);
  });
});

describe('sortIntoPhases', () => {
  it('keeps only non-empty phases, in order', () => {
    const phases = sortIntoPhases([
      obj('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', 'hook'),
      obj('apps/v1', 'Deployment', 'op', 'ns'),
      obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'widgets.example.com'),
      obj('v1', 'ServiceAccount', 'op', 'ns'),
      obj('example.com/v1', 'Widget', 'w', 'ns'),
    ]);
    expect(phases.map((p) => [p.name, p.objects.map((o) => o.metadata.name)])).toEqual([
      ['identity', ['op']],
      ['crds', ['widgets.example.com']],
      ['deploy', ['op', 'w']],
      ['admission', ['hook']],
    ]);
  });

  it('sorts within a phase by group, version, kind, namespace, name, whatever the input order', () => {
    const objects = [
      obj('v1', 'Secret', 'b', 'ns2'),
      obj('v1', 'Secret', 'a', 'ns2'),
      obj('v1', 'ConfigMap', 'z', 'ns1'),
      obj('v1', 'Secret', 'c', 'ns1'),
      obj('v1', 'ConfigMap', 'a', 'ns1'),
    ];
    const ids = (list: KubeObject[]) => sortIntoPhases(list).map((p) => p.objects.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`));
    const want = [['ConfigMap/ns1/a', 'ConfigMap/ns1/z', 'Secret/ns1/c', 'Secret/ns2/a', 'Secret/ns2/b']];
    expect(ids(objects)).toEqual(want);
    expect(ids([...objects].reverse())).toEqual(want);
  });

  it('orders the group before the version and the kind', () => {
    const phases = sortIntoPhases([obj('example.com/v2', 'A', 'x'), obj('apps/v1', 'StatefulSet', 'x'), obj('example.com/v1', 'B', 'x')]);
    expect(phases[0]?.objects.map((o) => `${o.apiVersion}/${o.kind}`)).toEqual(['apps/v1/StatefulSet', 'example.com/v1/B', 'example.com/v2/A']);
  });

  it('does not split a phase over the API limit (the API server refuses it, as upstream)', () => {
    const many = Array.from({ length: MAX_OBJECTS_PER_PHASE + 1 }, (_, i) => obj('v1', 'ConfigMap', `cm-${String(i).padStart(2, '0')}`, 'ns'));
    const phases = sortIntoPhases(many);
    expect(phases).toHaveLength(1);
    expect(phases[0]?.objects).toHaveLength(51);
  });

  it('sorts wrappers through objectOf and leaves the input alone', () => {
    const input = [{ o: obj('apps/v1', 'Deployment', 'd', 'ns') }, { o: obj('v1', 'Namespace', 'ns') }];
    const copy = structuredClone(input);
    const phases = sortIntoPhases(input, (e) => e.o);
    expect(phases.map((p) => p.name)).toEqual(['namespaces', 'deploy']);
    expect(input).toEqual(copy);
  });

  it('gives nothing for nothing', () => {
    expect(sortIntoPhases([])).toEqual([]);
  });
});
