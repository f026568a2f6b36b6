import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../bundle/index.ts';
import { applyDeploymentConfig, semanticEqual, type WorkingPod } from './deployment-config.ts';

function pod(podSpec: JsonObject, containers: JsonObject[]): WorkingPod {
  return { deploymentMeta: { name: 'd' }, templateAnnotations: { 'olm.targetNamespaces': '' }, podSpec: { ...podSpec, containers }, containers };
}

describe('applyDeploymentConfig', () => {
  it('replaces same-name env vars in place and appends new ones, per container', () => {
    const p = pod({}, [
      {
        name: 'a',
        env: [
          { name: 'X', value: '1' },
          { name: 'Y', value: '2' },
        ],
      },
      { name: 'b' },
    ]);
    applyDeploymentConfig(p, {
      env: [
        { name: 'Y', value: 'new' },
        { name: 'Z', value: '3' },
      ],
    });
    expect(p.containers[0]?.['env']).toEqual([
      { name: 'X', value: '1' },
      { name: 'Y', value: 'new' },
      { name: 'Z', value: '3' },
    ]);
    expect(p.containers[1]?.['env']).toEqual([
      { name: 'Y', value: 'new' },
      { name: 'Z', value: '3' },
    ]);
  });

  it('appends envFrom and tolerations unless an equal entry exists (null members ignored)', () => {
    const p = pod({ tolerations: [{ key: 'k', operator: 'Exists', value: null }] }, [{ name: 'a', envFrom: [{ configMapRef: { name: 'c' } }] }]);
    applyDeploymentConfig(p, {
      envFrom: [{ configMapRef: { name: 'c' } }, { secretRef: { name: 's' } }, { secretRef: { name: 's' } }],
      tolerations: [{ key: 'k', operator: 'Exists' }, { key: 'j' }],
    });
    expect(p.containers[0]?.['envFrom']).toEqual([{ configMapRef: { name: 'c' } }, { secretRef: { name: 's' } }]);
    expect(p.podSpec['tolerations']).toEqual([{ key: 'k', operator: 'Exists', value: null }, { key: 'j' }]);
  });

  it('replaces volumes and mounts by name, appends the others', () => {
    const p = pod({ volumes: [{ name: 'v', emptyDir: {} }] }, [{ name: 'a', volumeMounts: [{ name: 'v', mountPath: '/old' }] }]);
    applyDeploymentConfig(p, {
      volumes: [
        { name: 'v', secret: { secretName: 's' } },
        { name: 'w', emptyDir: {} },
      ],
      volumeMounts: [{ name: 'v', mountPath: '/new' }],
    });
    expect(p.podSpec['volumes']).toEqual([
      { name: 'v', secret: { secretName: 's' } },
      { name: 'w', emptyDir: {} },
    ]);
    expect(p.containers[0]?.['volumeMounts']).toEqual([{ name: 'v', mountPath: '/new' }]);
  });

  it('replaces resources of every container and the node selector (even with {})', () => {
    const p = pod({ nodeSelector: { a: 'b' } }, [{ name: 'a', resources: { limits: { cpu: '1' } } }, { name: 'b' }]);
    applyDeploymentConfig(p, { resources: {}, nodeSelector: {} });
    expect(p.containers.map((c) => c['resources'])).toEqual([{}, {}]);
    expect(p.podSpec['nodeSelector']).toEqual({});
  });

  const nodeAffinity = {
    requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Exists' }] }] },
  };
  const podAffinity = { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 't' }] };

  it.each([
    ['{} removes the affinity', { nodeAffinity, podAffinity }, {}, undefined],
    ['a given part replaces only that part', { nodeAffinity }, { podAffinity }, { nodeAffinity, podAffinity }],
    ['an empty part removes that part', { nodeAffinity, podAffinity }, { nodeAffinity: {} }, { podAffinity }],
    ['an affinity left empty is removed', { nodeAffinity }, { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {} } }, undefined],
    ['an empty part on a pod without affinity leaves none', undefined, { podAntiAffinity: {} }, undefined],
  ])('affinity: %s', (_name, existing, config, expected) => {
    const p = pod(existing === undefined ? {} : { affinity: existing }, [{ name: 'a' }]);
    applyDeploymentConfig(p, { affinity: config });
    expect(p.podSpec['affinity']).toEqual(expected);
  });

  it('adds annotations only for keys not already present', () => {
    const p = pod({}, [{ name: 'a' }]);
    p.deploymentMeta['annotations'] = { keep: 'deployment' };
    applyDeploymentConfig(p, { annotations: { keep: 'config', 'olm.targetNamespaces': 'x', add: 'y' } });
    expect(p.deploymentMeta['annotations']).toEqual({ keep: 'deployment', 'olm.targetNamespaces': 'x', add: 'y' });
    expect(p.templateAnnotations).toEqual({ 'olm.targetNamespaces': '', keep: 'config', add: 'y' });
  });

  it('never mutates the arrays it was given', () => {
    const env = [{ name: 'X', value: '1' }];
    const p = pod({}, [{ name: 'a', env }]);
    applyDeploymentConfig(p, {
      env: [
        { name: 'X', value: '2' },
        { name: 'Y', value: '3' },
      ],
    });
    expect(env).toEqual([{ name: 'X', value: '1' }]);
  });

  it('semanticEqual ignores null/absent members only', () => {
    expect(semanticEqual({ a: 1, b: null }, { a: 1 })).toBe(true);
    expect(semanticEqual({ a: [1, { c: undefined }] }, { a: [1, {}] })).toBe(true);
    expect(semanticEqual({ a: '' }, {})).toBe(false);
  });
});
