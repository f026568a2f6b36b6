import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { needsReady, readyPodStatus } from './pods-ready.ts';

describe('the stand-in kubelet', () => {
  it('marks a Pod Running and Ready once, never a deleted one', () => {
    const pod = (extra: object): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'rt-x' }, ...extra });
    const patch = readyPodStatus('2026-11-28T00:00:00Z');
    expect(patch.status).toMatchObject({ phase: 'Running' });
    expect(needsReady(pod({}))).toBe(true);
    expect(needsReady(pod(patch))).toBe(false);
    expect(needsReady(pod({ metadata: { name: 'p', deletionTimestamp: '2026-11-28T00:00:00Z' } }))).toBe(false);
  });
});
