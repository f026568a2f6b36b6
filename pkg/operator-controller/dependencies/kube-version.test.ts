import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../shared/fbc/types.ts';
import { kubeVersionUnmet } from './kube-version.ts';

const bundle = (metadata: JsonValue) => ({ name: 'op.v1.0.0', properties: [{ type: 'olm.csv.metadata', value: metadata }] });

describe('kubeVersionUnmet (CSV minKubeVersion)', () => {
  it.each([
    ['1.36.0', 'v1.36.3', undefined],
    ['1.36.3', 'v1.36.3', undefined],
    ['1.36', 'v1.36.0+k3s1', undefined],
    ['v1.33.0', 'v1.33.13', undefined],
    ['1.37.0', 'v1.36.3', 'bundle "op.v1.0.0": CSV version requirement not met: minKubeVersion (1.37.0) > server version (1.36.3)'],
    ['1.36.4', 'v1.36.3-gke.100', 'bundle "op.v1.0.0": CSV version requirement not met: minKubeVersion (1.36.4) > server version (1.36.3)'],
    ['next', 'v1.36.3', 'bundle "op.v1.0.0": minKubeVersion "next" is not a version: '],
  ] as const)('minKubeVersion %s on %s', (min, server, message) => {
    const r = kubeVersionUnmet(bundle({ minKubeVersion: min }), server);
    if (message === undefined) expect(r).toBeUndefined();
    else expect(r).toContain(message);
  });

  it('says nothing for a bundle without minKubeVersion', () => {
    expect(kubeVersionUnmet(bundle({ displayName: 'x' }), 'v1.0.0')).toBeUndefined();
    expect(kubeVersionUnmet({ name: 'b', properties: [] }, 'v1.0.0')).toBeUndefined();
  });
});
