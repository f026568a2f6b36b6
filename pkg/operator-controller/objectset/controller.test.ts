import { describe, expect, it } from 'vitest';
import type { ClusterObjectSet } from '../../shared/api/index.ts';
import { ExponentialFailureRateLimiter } from '../../shared/controller/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import { DeadlineAwareRateLimiter, objectSetKeys } from './controller.ts';

const set = (extra: Partial<ClusterObjectSet['spec']> = {}): ClusterObjectSet => ({
  metadata: { name: 'rev', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { lifecycleState: 'Active', revision: 1, phases: [], collisionProtection: 'Prevent', ...extra },
});

describe('objectSetKeys', () => {
  const obj = (spec: unknown, status: unknown, finalizers?: string[]): KubeObject => ({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterObjectSet',
    metadata: { name: 'rev', resourceVersion: String(Math.random()), ...(finalizers === undefined ? {} : { finalizers }) },
    spec,
    status,
  });
  it('queues adds, deletes and changes of what a reconcile reads, not its own status writes', () => {
    expect(objectSetKeys('add', obj({ a: 1 }, {}), undefined)).toBe('rev');
    expect(objectSetKeys('update', obj({ a: 1 }, { x: 2 }), obj({ a: 1 }, { x: 1 }))).toBeUndefined();
    expect(objectSetKeys('update', obj({ a: 2 }, {}), obj({ a: 1 }, {}))).toBe('rev');
    expect(objectSetKeys('update', obj({ a: 1 }, {}, ['f']), obj({ a: 1 }, {}))).toBe('rev');
    expect(objectSetKeys('delete', obj({ a: 1 }, {}), undefined)).toBe('rev');
  });
});

describe('DeadlineAwareRateLimiter', () => {
  const start = Date.parse('2026-01-01T00:00:00Z');
  it('caps the backoff to the time left, retries once at once past the deadline, then backs off', () => {
    let now = start + 10 * 60_000 - 300;
    const cos = set({ progressDeadlineMinutes: 10 });
    const limiter = new DeadlineAwareRateLimiter(
      new ExponentialFailureRateLimiter(1000, 60_000),
      () => cos,
      () => new Date(now),
    );
    expect(limiter.when('rev')).toBe(300);
    now = start + 10 * 60_000 + 1;
    expect(limiter.when('rev')).toBe(0);
    expect(limiter.when('rev')).toBe(4000);
    limiter.forget('rev');
    expect(limiter.numRequeues('rev')).toBe(0);
    expect(limiter.when('rev')).toBe(0);
  });
  it('leaves the backoff alone without a deadline', () => {
    const limiter = new DeadlineAwareRateLimiter(
      new ExponentialFailureRateLimiter(1000, 60_000),
      () => set(),
      () => new Date(start),
    );
    expect(limiter.when('rev')).toBe(1000);
    expect(limiter.when('rev')).toBe(2000);
  });
});
