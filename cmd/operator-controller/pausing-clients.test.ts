import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OWNER_NAME_LABEL } from '../../pkg/shared/api/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { createReleaseStore, ReleaseStatus, type Release, Manifest } from '../../pkg/operator-controller/release/index.ts';
import { fakeCluster } from '../../test/support/fake-cluster.ts';
import { pausingObjectWrites, pausingReleaseWrites } from './pausing-clients.ts';
import type { PauseHook } from './test-pause.ts';

/** A hook that records each point with the writes the cluster had seen by then, and never pauses. */
function recording(writes: () => number): { hook: PauseHook; seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    hook: (point, extension) => {
      seen.push(`${point} ${extension}@${writes()}`);
      return Promise.resolve();
    },
  };
}

function release(extension: string, revision: number, status: ReleaseStatus, padBytes: number): Release {
  const pad: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'pad', namespace: 'ns' },
    data: { pad: randomBytes(padBytes).toString('base64') },
  };
  return {
    extension,
    extensionUID: `uid-${extension}`,
    revision,
    status,
    bundle: { package: extension, name: `${extension}.v1`, version: '1.0.0', image: 'example.com/b@sha256:0' },
    manifest: Manifest.ofObjects([pad]),
    properties: [],
    description: 'test',
  };
}

describe('pausingReleaseWrites', () => {
  it('is awaited with the extension before every record Secret write, and only then', async () => {
    const cluster = fakeCluster();
    const { hook, seen } = recording(() => cluster.writes.length);
    const store = createReleaseStore({ client: pausingReleaseWrites(cluster.client, hook), namespace: 'olmv1-system' });
    // Random bytes do not compress: the record is split across chunk Secrets.
    await store.create(release('acme', 1, ReleaseStatus.PendingInstall, 800_000));
    await store.create(release('acme.io', 1, ReleaseStatus.PendingInstall, 10));
    await store.update(release('acme', 1, ReleaseStatus.Deployed, 800_000));
    await store.history('acme');
    await store.deleteAll('acme');
    await store.deleteAll('acme.io');
    expect(cluster.writes.length).toBeGreaterThan(5);
    expect(seen).toEqual(cluster.writes.map((w, i) => `release-write ${w.includes('acme.io.v') ? 'acme.io' : 'acme'}@${i}`));
  });
});

describe('pausingObjectWrites', () => {
  it('is awaited with the owner before each apply and delete, not before dry runs, reads or other writes', async () => {
    const cluster = fakeCluster();
    const { hook, seen } = recording(() => cluster.writes.length);
    const scoped = pausingObjectWrites({ forServiceAccount: () => cluster.client, forget: () => undefined }, hook);
    const client = scoped.forServiceAccount('ns', 'installer');
    const cm = (name: string, owner?: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'ns', ...(owner === undefined ? {} : { labels: { [OWNER_NAME_LABEL]: owner } }) },
    });
    await client.apply(cm('a', 'ext'), { fieldManager: 'm', dryRun: true });
    await client.apply(cm('a', 'ext'), { fieldManager: 'm' });
    await client.apply(cm('b', 'other'), { fieldManager: 'm' });
    await client.apply(cm('c'), { fieldManager: 'm' });
    await client.patch({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a', namespace: 'ns' }, { data: { k: 'v' } }, 'merge');
    await client.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a', namespace: 'ns' });
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a', namespace: 'ns' });
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', namespace: 'ns' });
    expect(seen).toEqual(['object-write ext@0', 'object-write other@1', 'object-write ext@4']);
    expect(cluster.writes).toEqual([
      'apply ConfigMap ns/a',
      'apply ConfigMap ns/b',
      'apply ConfigMap ns/c',
      'patch ConfigMap ns/a',
      'delete ConfigMap ns/a',
      'delete ConfigMap ns/c',
    ]);
  });
});
