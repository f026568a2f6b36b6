import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kube/index.ts';
import { healthVerdict, judged, objectHealth, type ObjectHealth } from './health.ts';

const cond = (type: string, status: string, reason?: string, message?: string) => ({
  type,
  status,
  ...(reason === undefined ? {} : { reason }),
  ...(message === undefined ? {} : { message }),
});

function workload(kind: string, spec: Record<string, unknown>, status: unknown, generation = 2): KubeObject {
  return { apiVersion: 'apps/v1', kind, metadata: { name: 'w', namespace: 'ns', generation }, spec, status } as KubeObject;
}

const AVAILABLE = cond('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.');
const PROGRESSING = cond('Progressing', 'True', 'NewReplicaSetAvailable', 'done');

describe('objectHealth: Deployment', () => {
  const table: [string, unknown, ObjectHealth][] = [
    ['Available True, observed', { observedGeneration: 2, conditions: [PROGRESSING, AVAILABLE] }, { ready: true }],
    ['observed a newer generation than the object says (cache behind)', { observedGeneration: 3, conditions: [AVAILABLE] }, { ready: true }],
    [
      'Available False with reason and message',
      {
        observedGeneration: 2,
        conditions: [cond('Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.')],
      },
      { ready: false, why: 'Available=False MinimumReplicasUnavailable: Deployment does not have minimum availability.' },
    ],
    [
      'Available Unknown without reason or message',
      { observedGeneration: 2, conditions: [cond('Available', 'Unknown')] },
      { ready: false, why: 'Available=Unknown' },
    ],
    ['no Available condition', { observedGeneration: 2, conditions: [PROGRESSING] }, { ready: false, why: 'no Available condition yet' }],
    [
      'Available True but the rollout missed its deadline',
      {
        observedGeneration: 2,
        conditions: [AVAILABLE, cond('Progressing', 'False', 'ProgressDeadlineExceeded', 'ReplicaSet "w-1" has timed out progressing.')],
      },
      { ready: false, why: 'Progressing=False ProgressDeadlineExceeded: ReplicaSet "w-1" has timed out progressing.' },
    ],
    [
      'Progressing False for another reason does not count',
      { observedGeneration: 2, conditions: [AVAILABLE, cond('Progressing', 'False', 'Paused')] },
      { ready: true },
    ],
    [
      'status of an older generation',
      { observedGeneration: 1, conditions: [AVAILABLE] },
      { ready: false, why: 'generation 2 not observed yet (observed 1)' },
    ],
    ['no status at all (just created)', undefined, { ready: false, why: 'status not reported yet' }],
    ['hostile status: not an object', 'Available', { ready: false, why: 'status not reported yet' }],
    [
      'hostile conditions: not a list',
      { observedGeneration: 2, conditions: { Available: 'True' } },
      { ready: false, why: 'no Available condition yet' },
    ],
    ['hostile condition entries', { observedGeneration: 2, conditions: [null, 7, cond('Available', 'True')] }, { ready: true }],
    // A rolling update whose new Pod crash-loops beside an old one that still serves: Available
    // stays True, the rollout is not done (kubectl rollout status's words).
    [
      'rolling update: an old replica still serving, the new one not available',
      { observedGeneration: 2, replicas: 2, updatedReplicas: 1, availableReplicas: 1, conditions: [AVAILABLE] },
      { ready: false, why: 'Waiting for rollout to finish: 1 old replicas are pending termination' },
    ],
    [
      'rolling update: fewer updated replicas than wanted',
      { observedGeneration: 2, replicas: 1, updatedReplicas: 0, availableReplicas: 1, conditions: [AVAILABLE] },
      { ready: false, why: 'Waiting for rollout to finish: 0 out of 1 new replicas have been updated' },
    ],
    [
      'updated but not yet available',
      { observedGeneration: 2, replicas: 1, updatedReplicas: 1, availableReplicas: 0, conditions: [AVAILABLE] },
      { ready: false, why: 'Waiting for rollout to finish: 0 of 1 updated replicas are available' },
    ],
    ['rollout done', { observedGeneration: 2, replicas: 1, updatedReplicas: 1, availableReplicas: 1, conditions: [AVAILABLE] }, { ready: true }],
  ];
  it.each(table)('%s', (_name, status, want) => {
    expect(objectHealth(workload('Deployment', {}, status))).toEqual(want);
  });

  it('keeps at most 256 characters of a condition text that the status writer chose', () => {
    const long = 'x'.repeat(100_000);
    const h = objectHealth(workload('Deployment', {}, { observedGeneration: 2, conditions: [cond('Available', 'False', long, long)] }));
    expect(h).toEqual({ ready: false, why: `Available=False ${'x'.repeat(256)}...: ${'x'.repeat(256)}...` });
  });

  it('judges an object without a generation by its conditions alone', () => {
    const obj = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'w' }, status: { conditions: [AVAILABLE] } } as KubeObject;
    expect(objectHealth(obj)).toEqual({ ready: true });
  });
});

describe('objectHealth: StatefulSet', () => {
  const table: [string, Record<string, unknown>, unknown, ObjectHealth][] = [
    ['all replicas ready and available', { replicas: 3 }, { observedGeneration: 2, readyReplicas: 3, availableReplicas: 3 }, { ready: true }],
    ['spec.replicas defaults to 1', {}, { observedGeneration: 2, readyReplicas: 1, availableReplicas: 1 }, { ready: true }],
    ['scaled to zero', { replicas: 0 }, { observedGeneration: 2 }, { ready: true }],
    [
      'some not ready',
      { replicas: 3 },
      { observedGeneration: 2, readyReplicas: 1, availableReplicas: 1 },
      { ready: false, why: '1/3 replicas ready, 1/3 available' },
    ],
    [
      'ready but not yet available (minReadySeconds)',
      { replicas: 2 },
      { observedGeneration: 2, readyReplicas: 2, availableReplicas: 0 },
      { ready: false, why: '2/2 replicas ready, 0/2 available' },
    ],
    [
      'status of an older generation',
      { replicas: 1 },
      { observedGeneration: 1, readyReplicas: 1, availableReplicas: 1 },
      { ready: false, why: 'generation 2 not observed yet (observed 1)' },
    ],
    [
      'hostile counts are taken as 0',
      { replicas: 1 },
      { observedGeneration: 2, readyReplicas: '1', availableReplicas: null },
      { ready: false, why: '0/1 replicas ready, 0/1 available' },
    ],
  ];
  it.each(table)('%s', (_name, spec, status, want) => {
    expect(objectHealth(workload('StatefulSet', spec, status))).toEqual(want);
  });
});

describe('objectHealth: DaemonSet', () => {
  const table: [string, unknown, ObjectHealth][] = [
    ['every scheduled pod available', { observedGeneration: 2, desiredNumberScheduled: 3, numberAvailable: 3 }, { ready: true }],
    ['no node to run on', { observedGeneration: 2, desiredNumberScheduled: 0 }, { ready: true }],
    [
      'some unavailable',
      { observedGeneration: 2, desiredNumberScheduled: 3, numberAvailable: 2, numberUnavailable: 1 },
      { ready: false, why: '2/3 scheduled pods available, 1 unavailable' },
    ],
    [
      'fewer available than desired, none counted unavailable',
      { observedGeneration: 2, desiredNumberScheduled: 3, numberAvailable: 2 },
      { ready: false, why: '2/3 scheduled pods available, 0 unavailable' },
    ],
    [
      'status of an older generation',
      { observedGeneration: 1, desiredNumberScheduled: 1, numberAvailable: 1 },
      { ready: false, why: 'generation 2 not observed yet (observed 1)' },
    ],
  ];
  it.each(table)('%s', (_name, status, want) => {
    expect(objectHealth(workload('DaemonSet', {}, status))).toEqual(want);
  });
});

describe('objectHealth: CustomResourceDefinition and other kinds', () => {
  const crd = (status: unknown): KubeObject =>
    ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'a.b' }, status }) as KubeObject;
  it('is ready when Established is True, and names the condition otherwise', () => {
    expect(objectHealth(crd({ conditions: [cond('NamesAccepted', 'True'), cond('Established', 'True', 'InitialNamesAccepted')] }))).toEqual({
      ready: true,
    });
    expect(objectHealth(crd({ conditions: [cond('Established', 'False', 'Installing', 'the initial names have not been accepted')] }))).toEqual({
      ready: false,
      why: 'Established=False Installing: the initial names have not been accepted',
    });
    expect(objectHealth(crd(undefined))).toEqual({ ready: false, why: 'no Established condition yet' });
  });

  it("judges cert-manager's Certificates and Issuers by Ready, naming cert-manager's reason", () => {
    const cm = (kind: string, status: unknown): KubeObject =>
      ({ apiVersion: 'cert-manager.io/v1', kind, metadata: { name: 'c', namespace: 'ns', generation: 1 }, status }) as KubeObject;
    expect(
      objectHealth(cm('Certificate', { conditions: [cond('Ready', 'True', 'Ready', 'Certificate is up to date and has not expired')] })),
    ).toEqual({
      ready: true,
    });
    expect(
      objectHealth(cm('Certificate', { conditions: [cond('Ready', 'False', 'DoesNotExist', 'Issuing certificate as Secret does not exist')] })),
    ).toEqual({
      ready: false,
      why: 'Ready=False DoesNotExist: Issuing certificate as Secret does not exist',
    });
    expect(objectHealth(cm('Issuer', undefined))).toEqual({ ready: false, why: 'no Ready condition yet' });
    expect(judged({ apiVersion: 'cert-manager.io/v1', kind: 'CertificateRequest' })).toBe(false);
  });

  it('judges only apps/v1 workloads, v1 CRDs and cert-manager.io/v1 Certificates and Issuers', () => {
    expect(judged({ apiVersion: 'apps/v1', kind: 'ReplicaSet' })).toBe(false);
    expect(judged({ apiVersion: 'extensions/v1beta1', kind: 'Deployment' })).toBe(false);
    expect(judged({ apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'CustomResourceDefinition' })).toBe(false);
    expect(objectHealth({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, status: {} } as KubeObject)).toBeUndefined();
  });
});

describe('healthVerdict', () => {
  const down = (object: string, why: string) => ({ object, health: { ready: false as const, why } });
  const up = (object: string) => ({ object, health: { ready: true as const } });
  const table: [string, Parameters<typeof healthVerdict>[0], { status: string; reason: string; message: string }][] = [
    ['not listed yet', { observed: false }, { status: 'Unknown', reason: 'NotObserved', message: "The release's objects have not been listed yet" }],
    [
      'nothing judged in the release',
      { observed: true, objects: [] },
      {
        status: 'True',
        reason: 'Healthy',
        message: 'The release has no Deployments, StatefulSets, DaemonSets, CustomResourceDefinitions or cert-manager objects',
      },
    ],
    [
      'all available, counted by kind',
      { observed: true, objects: [up('Deployment ns/a'), up('CustomResourceDefinition x.y'), up('Deployment ns/b')] },
      { status: 'True', reason: 'Healthy', message: 'All available: 1 CustomResourceDefinition, 2 Deployments' },
    ],
    [
      'one not available, named',
      { observed: true, objects: [up('CustomResourceDefinition x.y'), down('Deployment ns/a', 'Available=False MinimumReplicasUnavailable: m')] },
      { status: 'False', reason: 'Unhealthy', message: 'Deployment ns/a: Available=False MinimumReplicasUnavailable: m' },
    ],
    [
      'more than three: the first three in order and a count',
      {
        observed: true,
        objects: [
          down('StatefulSet ns/e', 'e'),
          down('Deployment ns/d', 'd'),
          down('Deployment ns/c', 'c'),
          up('Deployment ns/b'),
          down('DaemonSet ns/a', 'not found'),
        ],
      },
      {
        status: 'False',
        reason: 'Unhealthy',
        message: 'DaemonSet ns/a: not found; Deployment ns/c: c; Deployment ns/d: d; and 1 more not available (4 of 5)',
      },
    ],
  ];
  it.each(table)('%s', (_name, health, want) => {
    expect(healthVerdict(health)).toEqual(want);
  });
});
