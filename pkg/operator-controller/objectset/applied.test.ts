import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kube/index.ts';
import { AppliedObjects } from './applied.ts';

const REV = 'rev-uid';

function deployment(): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'op', namespace: 'ns', labels: { app: 'op' }, annotations: { 'olm.operatorframework.io/revision': '1' } },
    spec: { replicas: 1, template: { spec: { containers: [{ name: 'op', image: 'op:1' }] } } },
  } as KubeObject;
}

/** What the API server answers an apply of `desired` with: defaults, bookkeeping, a uid. */
function answerOf(desired: KubeObject, uid = 'obj-uid'): KubeObject {
  const answer = structuredClone(desired);
  answer.metadata = {
    ...answer.metadata,
    uid,
    resourceVersion: '10',
    generation: 1,
    managedFields: [{ manager: 'olmv1' }],
  } as KubeObject['metadata'];
  (answer['spec'] as Record<string, unknown>)['strategy'] = { type: 'RollingUpdate' };
  return answer;
}

function recorded(desired: KubeObject, answer: KubeObject): AppliedObjects {
  const memory = new AppliedObjects();
  memory.record(REV, { ...desired, metadata: { ...desired.metadata, resourceVersion: '9' } }, answer);
  return memory;
}

describe('AppliedObjects', () => {
  it('finds nothing to apply when others only added beside what was applied (issue 74: the deployment controller annotates every Deployment)', () => {
    const desired = deployment();
    const live = answerOf(desired);
    const memory = recorded(desired, live);
    live.metadata.annotations = { ...live.metadata.annotations, 'deployment.kubernetes.io/revision': '1' };
    live.metadata.resourceVersion = '11';
    live['status'] = { availableReplicas: 1 };
    (live['spec'] as Record<string, unknown>)['progressDeadlineSeconds'] = 600;
    expect(memory.unchanged(REV, deployment(), live)).toBe(true);
  });

  it('applies again when a field the configuration sets was changed or removed', () => {
    const desired = deployment();
    const changed = answerOf(desired);
    const memory = recorded(desired, changed);
    (changed['spec'] as Record<string, unknown>)['replicas'] = 3;
    expect(memory.unchanged(REV, deployment(), changed)).toBe(false);

    const removed = answerOf(desired);
    const again = recorded(desired, removed);
    delete removed.metadata.labels?.['app'];
    expect(again.unchanged(REV, deployment(), removed)).toBe(false);

    // A list is compared whole: an item another writer added is applied over, as before.
    const injected = answerOf(desired);
    const third = recorded(desired, injected);
    const spec = (injected['spec'] as { template: { spec: { containers: unknown[] } } }).template.spec;
    spec.containers.push({ name: 'sidecar', image: 'side:1' });
    expect(third.unchanged(REV, deployment(), injected)).toBe(false);
  });

  it('applies again an object deleted and made again (another uid), and a configuration not the one applied', () => {
    const desired = deployment();
    const memory = recorded(desired, answerOf(desired));
    expect(memory.unchanged(REV, deployment(), answerOf(desired, 'another-uid'))).toBe(false);
    const next = deployment();
    (next['spec'] as Record<string, unknown>)['replicas'] = 2;
    expect(memory.unchanged(REV, next, answerOf(desired))).toBe(false);
    expect(memory.unchanged('other-revision', deployment(), answerOf(desired))).toBe(false);
  });

  it("compares the whole content when the answer does not show every field applied (a Secret's stringData)", () => {
    const desired = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'ns' },
      stringData: { token: 'x' },
    } as KubeObject;
    const answer = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'ns', uid: 'u', resourceVersion: '1' },
      data: { token: 'eA==' },
    } as KubeObject;
    const memory = recorded(desired, answer);
    expect(memory.unchanged(REV, desired, { ...answer, metadata: { ...answer.metadata, resourceVersion: '2' } })).toBe(true);
    expect(memory.unchanged(REV, desired, { ...answer, data: { token: 'eQ==' } })).toBe(false);
  });
});
