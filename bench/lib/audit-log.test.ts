import { describe, expect, it } from 'vitest';
import { byOperatorController, type AuditEvent } from './audit-log.ts';
import { ours, upstreams } from './request-counts.ts';

const event = (username: string, userAgent: string): AuditEvent => ({
  requestReceivedTimestamp: '2026-11-26T00:00:00Z',
  verb: 'get',
  requestURI: '/api/v1/namespaces/x/serviceaccounts/y',
  userAgent,
  user: { username },
});

describe('attribution of audit events to operator-controller', () => {
  it("counts its own agent and the extensions' ServiceAccounts, not kube-controller-manager's kube-system ones", () => {
    const cases: [AuditEvent, boolean][] = [
      [event('admin', 'operator-controller/v0.1.0'), true],
      [event('system:serviceaccount:ext-1:installer', 'operator-controller/v0.1.0'), true],
      [event('system:serviceaccount:ext-1:installer', 'node'), true],
      [event('system:serviceaccount:kube-system:namespace-controller', 'kube-controller-manager/v1.36.3'), false],
      [event('system:serviceaccount:kube-system:generic-garbage-collector', 'kube-controller-manager/v1.36.3'), false],
      [event('admin', 'kubectl/v1.36.3'), false],
    ];
    for (const [e, want] of cases) {
      expect(byOperatorController(e), JSON.stringify(e)).toBe(want);
      expect(ours(e), JSON.stringify(e)).toBe(want);
      expect(upstreams(e), JSON.stringify(e)).toBe(want);
    }
  });
});
