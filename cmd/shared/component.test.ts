import pino from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { KubeClient } from '../../pkg/shared/kube/index.ts';
import { fakeCluster } from '../../test/support/fake-cluster.ts';
import { runLeading } from './component.ts';

const log = pino({ level: 'silent' });

/** The cluster's Lease as the API server keeps it, and its holder. */
function leaseClient(): { client: KubeClient; holder: () => string | undefined } {
  const cluster = fakeCluster();
  const holder = (): string | undefined => {
    const lease = cluster.live({ kind: 'Lease', metadata: { namespace: 'olmv1-system', name: 'test-lease' } });
    return (lease?.spec as { holderIdentity?: string } | undefined)?.holderIdentity || undefined;
  };
  return { client: cluster.client, holder };
}

function options(leaderElect: boolean) {
  return {
    leaderElect,
    systemNamespace: 'olmv1-system',
    leaderElectionId: 'test-lease',
    identity: 'pod-a',
    leaderElection: { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 100 },
  };
}

function deps(client: KubeClient) {
  const checks = new Map<string, () => true | string>();
  return {
    deps: {
      client,
      log,
      registry: new Registry(),
      health: { addReadinessCheck: (n: string, c: () => true | string) => checks.set(n, c) },
      onLost: () => undefined,
    },
    checks,
  };
}

describe('runLeading', () => {
  it("rejects when the elected leader's work fails, after giving up the Lease", async () => {
    const { client, holder } = leaseClient();
    let held: string | undefined;
    const run = runLeading(
      options(true),
      deps(client).deps,
      async () => {
        held = holder();
        throw new Error('cannot start the controller');
      },
      new AbortController().signal,
    );
    await expect(run).rejects.toThrow(
      expect.objectContaining({ message: 'the leader stopped working', cause: new Error('cannot start the controller') }),
    );
    expect(held).toBe('pod-a');
    expect(holder()).toBeUndefined();
  });

  it('rejects when the work fails without leader election', async () => {
    const { client } = leaseClient();
    const run = runLeading(options(false), deps(client).deps, () => Promise.reject(new Error('broken')), new AbortController().signal);
    await expect(run).rejects.toThrow('broken');
  });

  it('resolves stopped when the process stops, the work ending with its abort', async () => {
    const { client, holder } = leaseClient();
    const stop = new AbortController();
    const run = runLeading(
      options(true),
      deps(client).deps,
      (leading) =>
        new Promise<void>((_, reject) => {
          stop.abort();
          leading.addEventListener('abort', () => reject(new Error('aborted')));
        }),
      stop.signal,
    );
    await expect(run).resolves.toBe('stopped');
    expect(holder()).toBeUndefined();
  });
});
