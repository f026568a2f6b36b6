import { describe, expect, it } from 'vitest';
import { requestTimeline } from './request-timeline.ts';

describe('requestTimeline', () => {
  it('gives each request from the start its time and the gap since the one before, leases left out, up to the end', () => {
    const start = Date.parse('2026-11-29T17:00:00.000Z');
    const lines = requestTimeline(
      [
        { requestReceivedTimestamp: '2026-11-29T16:59:59.990000Z', verb: 'get', requestURI: '' },
        {
          requestReceivedTimestamp: '2026-11-29T17:00:00.002600Z',
          verb: 'create',
          requestURI: '',
          userAgent: 'olmv1 (x)',
          user: { username: 'admin' },
          objectRef: { resource: 'clusterextensions' },
        },
        { requestReceivedTimestamp: '2026-11-29T17:00:00.005000Z', verb: 'update', requestURI: '', objectRef: { resource: 'leases' } },
        {
          requestReceivedTimestamp: '2026-11-29T17:00:00.110100Z',
          verb: 'patch',
          requestURI: '',
          userAgent: 'operator-controller',
          user: { username: 'sa' },
          objectRef: { resource: 'deployments', subresource: 'status' },
        },
        { requestReceivedTimestamp: '2026-11-29T17:00:00.500000Z', verb: 'get', requestURI: '' },
      ],
      start,
      200,
    );
    expect(lines).toEqual([
      `     2.6        create  clusterextensions                    olmv1 admin`,
      `   110.1   +108 patch   deployments/status                   operator-controller sa`,
    ]);
  });
});
