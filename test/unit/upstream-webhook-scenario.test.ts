// The matcher of upstream's step `resource "..." matches` (test/support/upstream-webhook-scenario.ts):
// the live object must hold every value the expectation names, and may hold more.
import { describe, expect, it } from 'vitest';
import { matchesAsUpstream } from '../support/upstream-webhook-scenario.ts';

const live = {
  apiVersion: 'webhook.operators.coreos.io/v2',
  kind: 'WebhookTest',
  metadata: { name: 'ce-1', namespace: 'ns-1', uid: 'u', generation: 1 },
  spec: { conversion: { valid: true, mutate: true } },
};

describe('matchesAsUpstream', () => {
  it('matches an expectation that names a subset of the live fields', () => {
    expect(
      matchesAsUpstream(live, { apiVersion: live.apiVersion, metadata: { name: 'ce-1' }, spec: { conversion: { valid: true, mutate: true } } }),
    ).toBe(true);
  });

  it('fails on a differing or missing value, and on another apiVersion', () => {
    expect(matchesAsUpstream(live, { spec: { conversion: { valid: false } } })).toBe(false);
    expect(matchesAsUpstream({ ...live, spec: { conversion: { valid: true } } }, { spec: { conversion: { mutate: true } } })).toBe(false);
    expect(matchesAsUpstream(live, { apiVersion: 'webhook.operators.coreos.io/v1' })).toBe(false);
  });
});
