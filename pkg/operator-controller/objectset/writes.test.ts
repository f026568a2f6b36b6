import { describe, expect, it } from 'vitest';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import { RevisionWrites, WritesHeldError, guardedClient } from './writes.ts';

const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' }, data: { k: 'v' } };

describe('guardedClient', () => {
  it('sends writes while allowed, refuses them once not (dry runs and reads still pass), and tracks those in flight', async () => {
    const fc = fakeCluster();
    const writes = new RevisionWrites();
    let allowed = true;
    const client = guardedClient(fc.client, 'ext', writes, () => allowed);
    await client.apply(cm, { fieldManager: 'm', force: true });
    allowed = false;
    await expect(
      client.patch({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a', namespace: 'ns' }, { data: { k: 'x' } }, 'merge'),
    ).rejects.toBeInstanceOf(WritesHeldError);
    await expect(client.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a', namespace: 'ns' })).rejects.toThrow(
      'ClusterExtension "ext" is being deleted: its revisions write nothing',
    );
    await client.apply(cm, { fieldManager: 'm', force: true, dryRun: true });
    expect((await client.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a', namespace: 'ns' })).data).toEqual({ k: 'v' });
  });

  it('idle resolves once no write of the extension is in flight', async () => {
    const writes = new RevisionWrites();
    await writes.idle('ext');
    let finish: () => void = () => undefined;
    const write = writes.track('ext', () => new Promise<void>((resolve) => (finish = resolve)));
    let idle = false;
    const waiting = writes.idle('ext').then(() => (idle = true));
    await writes.idle('other');
    await Promise.resolve();
    expect(idle).toBe(false);
    finish();
    await write;
    await waiting;
    expect(idle).toBe(true);
  });
});
