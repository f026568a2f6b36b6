import { describe, expect, it } from 'vitest';
import { parseKubernetesVersion, removedApiUses, upgradeHoldOf } from './index.ts';
import { REMOVED_APIS, formatRemovedApiUse, removedApiAt } from './removed-apis.ts';

const minor = (text: string) => {
  const v = parseKubernetesVersion(text);
  if (!v.ok) throw new Error(v.error);
  return v.value;
};

describe('removedApiAt', () => {
  it.each([
    ['flowcontrol.apiserver.k8s.io/v1beta3', 'FlowSchema', '1.31', undefined],
    ['flowcontrol.apiserver.k8s.io/v1beta3', 'FlowSchema', '1.32', 'flowcontrol.apiserver.k8s.io/v1'],
    ['flowcontrol.apiserver.k8s.io/v1beta3', 'PriorityLevelConfiguration', '1.37', 'flowcontrol.apiserver.k8s.io/v1'],
    ['policy/v1beta1', 'PodDisruptionBudget', '1.24', undefined],
    ['policy/v1beta1', 'PodDisruptionBudget', '1.25', 'policy/v1'],
    ['policy/v1beta1', 'PodSecurityPolicy', '1.25', 'none: use Pod Security Admission'],
    ['extensions/v1beta1', 'Ingress', '1.22', 'networking.k8s.io/v1'],
    ['extensions/v1beta1', 'Ingress', '1.21', undefined],
    ['apps/v1beta1', 'Deployment', '1.16', 'apps/v1'],
    ['apps/v1', 'Deployment', '1.40', undefined], // served
    ['flowcontrol.apiserver.k8s.io/v1beta3', 'Deployment', '1.40', undefined], // the kind matters too
    ['autoscaling/v2beta2', 'HorizontalPodAutoscaler', '2.0', 'autoscaling/v2'], // a later major serves none of them
  ])('%s %s at %s -> %s', (apiVersion, kind, at, want) => {
    expect(removedApiAt(apiVersion, kind, minor(at))?.replacement).toBe(want);
  });

  it('lists each apiVersion and kind once, with a 1.Y release and a replacement', () => {
    const keys = REMOVED_APIS.map((r) => `${r.apiVersion} ${r.kind}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const r of REMOVED_APIS) {
      expect(r.removedIn).toMatch(/^1\.(1[6-9]|[2-9][0-9])$/);
      expect(r.replacement).not.toBe('');
    }
  });
});

describe('removedApiUses', () => {
  it('names each object the target removes, in manifest order', () => {
    const objects = [
      { apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta3', kind: 'FlowSchema', metadata: { name: 'fs' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } },
      { apiVersion: 'autoscaling/v2beta2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h', namespace: 'ns' } },
    ];
    const uses = removedApiUses('ext', objects, minor('1.37'));
    expect(uses.map(formatRemovedApiUse)).toEqual([
      'FlowSchema fs uses flowcontrol.apiserver.k8s.io/v1beta3, removed in Kubernetes 1.32; use flowcontrol.apiserver.k8s.io/v1',
      'HorizontalPodAutoscaler ns/h uses autoscaling/v2beta2, removed in Kubernetes 1.26; use autoscaling/v2',
    ]);
    expect(uses[0]).toEqual({
      extension: 'ext',
      kind: 'FlowSchema',
      name: 'fs',
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta3',
      removedIn: '1.32',
      replacement: 'flowcontrol.apiserver.k8s.io/v1',
    });
    expect(removedApiUses('ext', objects, minor('1.25'))).toEqual([]);
  });
});

describe('parseKubernetesVersion', () => {
  it.each([
    ['v1.36.3', '1.36'],
    ['v1.30.2-gke.1', '1.30'],
    ['1.37', '1.37'],
  ])('%s -> %s', (text, want) => {
    const v = minor(text);
    expect(`${v.major}.${v.minor}`).toBe(want);
  });

  it('refuses what is not a version', () => {
    expect(parseKubernetesVersion('one.two')).toMatchObject({ ok: false, error: expect.stringMatching(/^invalid Kubernetes version "one.two": /) });
  });
});

describe('upgradeHoldOf', () => {
  it('holds only on exactly False, with the message or a default', () => {
    const a = 'olm.operatorframework.io/upgradeable';
    const m = 'olm.operatorframework.io/upgradeable-message';
    expect(upgradeHoldOf('x', { [a]: 'False', [m]: ' busy ' })).toEqual({ extension: 'x', message: 'busy' });
    expect(upgradeHoldOf('x', { [a]: 'False' })).toEqual({ extension: 'x', message: 'the operator reports Upgradeable=False' });
    expect(upgradeHoldOf('x', { [a]: 'True', [m]: 'busy' })).toBeUndefined();
    expect(upgradeHoldOf('x', { [a]: 'false' })).toBeUndefined();
    expect(upgradeHoldOf('x', undefined)).toBeUndefined();
  });
});
