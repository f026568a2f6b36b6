/**
 * A revision waiting on its probes is woken by its objects' watches, not by the poll, which is
 * only a safety net (decision 0158): with the first poll an hour away, a status change of the
 * probed object still completes the rollout.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { CLUSTER_OBJECT_SET } from '../../shared/api/index.ts';
import { Informer, clientListWatch, type KubeObject } from '../../shared/kube/index.ts';
import { fakeCluster, type FakeCluster } from '../../../test/support/fake-cluster.ts';
import { createObjectSetController } from './controller.ts';
import { everyRevisionAs } from './writer.ts';
import { abortedAfterEach } from '../../../test/support/per-test.ts';

const log = pino({ level: 'silent' });
const aborted = abortedAfterEach();

const gated: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'gated', namespace: 'ns', labels: { gate: 'yes' } },
  data: { k: 'v' },
};

/** A condition of revision `ext-1`: its status and reason. */
function condition(fc: FakeCluster, type: string): string | undefined {
  const status = fc.live({ kind: 'ClusterObjectSet', metadata: { name: 'ext-1' } })?.['status'] as
    { conditions?: { type: string; status: string; reason: string }[] } | undefined;
  const c = status?.conditions?.find((x) => x.type === type);
  return c === undefined ? undefined : `${c.status} ${c.reason}`;
}

describe('a revision waiting on its probes', () => {
  it('succeeds when a status change of its object passes the probe, with its first poll an hour away', async () => {
    const fc = fakeCluster();
    fc.seed({
      apiVersion: CLUSTER_OBJECT_SET.apiVersion,
      kind: CLUSTER_OBJECT_SET.kind,
      metadata: {
        name: 'ext-1',
        generation: 1,
        creationTimestamp: new Date().toISOString(),
        labels: { 'olm.operatorframework.io/owner-name': 'ext' },
      },
      spec: {
        lifecycleState: 'Active',
        revision: 1,
        collisionProtection: 'Prevent',
        progressionProbes: [
          {
            selector: { type: 'Label', label: { matchLabels: { gate: 'yes' } } },
            assertions: [{ type: 'FieldValue', fieldValue: { fieldPath: 'status.ready', value: 'true' } }],
          },
        ],
        phases: [{ name: 'only', objects: [{ object: gated }] }],
      },
    });
    const informer = new Informer<KubeObject>({ name: 'clusterobjectsets', source: clientListWatch(fc.client, CLUSTER_OBJECT_SET), log });
    const controller = createObjectSetController({
      ports: { client: fc.client, writerFor: everyRevisionAs(fc.client) },
      informer,
      log,
      probeRequeueMs: 3_600_000,
    });
    const stop = aborted();
    void informer.run(stop.signal);
    void controller.run(stop.signal);
    await expect.poll(() => condition(fc, 'Progressing')).toBe('True RollingOut');
    expect(condition(fc, 'Succeeded')).toBeUndefined();
    fc.edit(gated, (live) => void (live['status'] = { ready: 'true' }));
    await expect.poll(() => condition(fc, 'Succeeded')).toBe('True Succeeded');
  });
});
