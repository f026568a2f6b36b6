import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/index.ts';
import { affectsGate } from './index.ts';

const ext = (status: object, uid = 'u1'): KubeObject => ({
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterExtension',
  metadata: { name: 'e', uid },
  status,
});
const installed = (bundle: string, t = '2026-01-01T00:00:00Z') => ({
  install: { bundle: { name: bundle, version: '1.0.0' } },
  conditions: [
    { type: 'Installed', status: 'True', lastTransitionTime: t },
    { type: 'Progressing', status: 'True', reason: 'Succeeded', lastTransitionTime: t },
  ],
});

describe('affectsGate', () => {
  it('adds and deletes always count', () => {
    expect(affectsGate('add', ext({}), undefined)).toBe(true);
    expect(affectsGate('delete', ext({}), undefined)).toBe(true);
  });

  it('a new install, an upgrade or a re-created extension counts', () => {
    expect(affectsGate('update', ext(installed('e.v1')), ext({}))).toBe(true);
    expect(affectsGate('update', ext(installed('e.v2')), ext(installed('e.v1')))).toBe(true);
    expect(affectsGate('update', ext(installed('e.v1'), 'u2'), ext(installed('e.v1')))).toBe(true);
    expect(affectsGate('update', ext(installed('e.v1', '2026-01-02T00:00:00Z')), ext(installed('e.v1')))).toBe(true);
  });

  it('status writes that leave the install alone do not', () => {
    const before = installed('e.v1');
    const after = { ...before, conditions: [...before.conditions, { type: 'Deprecated', status: 'False' }] };
    expect(affectsGate('update', ext(after), ext(before))).toBe(false);
  });
});
