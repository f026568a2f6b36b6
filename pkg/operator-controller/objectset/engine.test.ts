import { describe, expect, it } from 'vitest';
import { CLUSTER_OBJECT_SET, CollisionProtection, type ClusterObjectSet } from '../../shared/api/index.ts';
import type { KubeClient, KubeObject } from '../../shared/kube/index.ts';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import { rollOut } from './engine.ts';

const cos = {
  apiVersion: CLUSTER_OBJECT_SET.apiVersion,
  kind: CLUSTER_OBJECT_SET.kind,
  metadata: { name: 'ext-1', uid: 'uid-1', labels: { 'olm.operatorframework.io/owner-name': 'ext' } },
  spec: { revision: 1, lifecycleState: 'Active', phases: [] },
} as unknown as ClusterObjectSet;

const configMap = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: { k: name } });

/** `client` with each request held 5 ms, counting the most in flight at once and refusing the applies of `refused`. */
function slowClient(client: KubeClient, refused: string): { client: KubeClient; most: () => number } {
  let inFlight = 0;
  let most = 0;
  const held = async <T>(call: () => Promise<T>): Promise<T> => {
    most = Math.max(most, ++inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return await call();
    } finally {
      inFlight--;
    }
  };
  return {
    most: () => most,
    client: {
      ...client,
      get: (ref, o) => held(() => client.get(ref, o)),
      apply: (obj, o) =>
        held(() => (obj.metadata.name === refused && o.dryRun !== true ? Promise.reject(new Error('refused by the test')) : client.apply(obj, o))),
    },
  };
}

describe('rollOut', () => {
  it("sends a phase's dry runs and object reconciles at once, keeping their outcomes and errors in the phase's order", async () => {
    const fc = fakeCluster();
    const names = ['a', 'b', 'c', 'd'];
    const slow = slowClient(fc.client, 'c');
    const phases = [{ name: 'config', objects: names.map((n) => ({ manifest: configMap(n), protection: CollisionProtection.Prevent })) }];
    await expect(rollOut(slow.client, { cos, phases, probes: [], siblings: new Set() })).rejects.toThrow(
      /^reconciling object: reconciling \/v1, Kind=ConfigMap ns\/c: creating resource: refused by the test$/,
    );
    // Sent one after another, no two requests would be in flight at once.
    expect(slow.most()).toBe(names.length);
    for (const n of ['a', 'b', 'd'])
      expect((await fc.client.get({ apiVersion: 'v1', kind: 'ConfigMap', name: n, namespace: 'ns' })).data).toEqual({ k: n });

    const ok = slowClient(fc.client, 'none');
    const outcome = await rollOut(ok.client, { cos, phases, probes: [], siblings: new Set() });
    expect(outcome.phases[0]?.objects.map((o) => o.object.metadata.name)).toEqual(names);
    expect(outcome.complete).toBe(true);
  });
});
