import { describe, expect, it } from 'vitest';
import { deploymentSelector, podRow } from './pods.ts';

describe('deploymentSelector', () => {
  it("is the Deployment's matchLabels as a label selector, or undefined without any", () => {
    expect(deploymentSelector({ spec: { selector: { matchLabels: { app: 'op', tier: 'ctl' } } } })).toBe('app=op,tier=ctl');
    expect(deploymentSelector({ spec: { selector: { matchExpressions: [] } } })).toBeUndefined();
    expect(deploymentSelector('not an object')).toBeUndefined();
  });
});

describe('podRow', () => {
  it('shows a crash-looping container with its reason, readiness and restarts', () => {
    expect(
      podRow(
        {
          metadata: { namespace: 'ns', name: 'op-1' },
          spec: { nodeName: 'node-1', containers: [{ name: 'manager' }, { name: 'proxy' }] },
          status: {
            phase: 'Running',
            containerStatuses: [
              { name: 'manager', ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } },
              { name: 'proxy', ready: true, restartCount: 1, state: { running: {} } },
            ],
          },
        },
        'op',
      ),
    ).toEqual({
      namespace: 'ns',
      name: 'op-1',
      deployment: 'op',
      phase: 'Running',
      reason: 'CrashLoopBackOff',
      ready: '1/2',
      restarts: 5,
      node: 'node-1',
      containers: ['manager', 'proxy'],
    });
  });

  it('says why a Pod no node runs is Pending', () => {
    expect(
      podRow(
        {
          metadata: { namespace: 'ns', name: 'op-2' },
          spec: { containers: [{ name: 'manager' }] },
          status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] },
        },
        'op',
      ),
    ).toMatchObject({ phase: 'Pending', reason: 'Unschedulable', ready: '0/1', node: '', restarts: 0 });
  });
});
