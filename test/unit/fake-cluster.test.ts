// The shared fake API server (test/support/fake-cluster.ts) keeps the API server's contracts
// the unit tests rely on: resourceVersions and optimistic concurrency, the status subresource,
// merge patches, label selectors, pages, finalizers, watches and injected failures.
import { describe, expect, it } from 'vitest';
import { ApiError, type KubeObject, type WatchEvent } from '../../pkg/shared/kube/index.ts';
import { fakeCluster } from '../support/fake-cluster.ts';

const cm = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', labels },
  data: { k: 'v' },
});
const ref = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name });

describe('fakeCluster', () => {
  it('bumps resourceVersion on every write and refuses an update at a stale one with 409', async () => {
    const { client } = fakeCluster();
    const made = await client.create(cm('a'));
    expect(made.metadata.uid).toMatch(/^uid-/);
    const updated = await client.update({ ...made, data: { k: 'w' } });
    expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(Number(made.metadata.resourceVersion));
    await expect(client.update({ ...made, data: { k: 'x' } })).rejects.toMatchObject({ status: 409 });
    await expect(client.create(cm('a'))).rejects.toMatchObject({ status: 409 });
  });

  it('keeps status out of updates and everything but status out of updateStatus', async () => {
    const { client } = fakeCluster();
    const made = await client.create(cm('a'));
    const withStatus = await client.updateStatus({ ...made, data: { k: 'ignored' }, status: { phase: 'Ready' } });
    expect(withStatus).toMatchObject({ data: { k: 'v' }, status: { phase: 'Ready' } });
    const updated = await client.update({ ...withStatus, data: { k: 'w' }, status: { phase: 'ignored' } });
    expect(updated).toMatchObject({ data: { k: 'w' }, status: { phase: 'Ready' } });
  });

  it('merge-patches (null deletes, objects merge) with a resourceVersion as a precondition', async () => {
    const { client } = fakeCluster();
    const made = await client.create({ ...cm('a'), metadata: { ...cm('a').metadata, annotations: { x: '1', y: '2' } } });
    const patched = await client.patch(ref('a'), { metadata: { annotations: { x: null, z: '3' } }, data: { n: 'm' } }, 'merge');
    expect(patched.metadata.annotations).toEqual({ y: '2', z: '3' });
    expect(patched['data']).toEqual({ k: 'v', n: 'm' });
    await expect(client.patch(ref('a'), { metadata: { resourceVersion: made.metadata.resourceVersion } }, 'merge')).rejects.toMatchObject({
      status: 409,
    });
    const status = await client.patch(ref('a'), { status: { phase: 'Ready' }, data: { ignored: 'x' } }, 'merge', { subresource: 'status' });
    expect(status).toMatchObject({ status: { phase: 'Ready' }, data: { k: 'v', n: 'm' } });
  });

  it('lists by label selector (equality, inequality, existence, sets) and in pages', async () => {
    const c = fakeCluster();
    for (const [name, tier] of [
      ['a', 'web'],
      ['b', 'db'],
      ['c', 'cache'],
    ] as const)
      c.seed(cm(name, { tier }));
    c.seed(cm('d'));
    const names = async (labelSelector: string) =>
      (await c.client.listAll({ apiVersion: 'v1', kind: 'ConfigMap' }, { labelSelector })).items.map((i) => i.metadata.name);
    expect(await names('tier=web')).toEqual(['a']);
    expect(await names('tier!=web')).toEqual(['b', 'c', 'd']);
    expect(await names('tier')).toEqual(['a', 'b', 'c']);
    expect(await names('!tier')).toEqual(['d']);
    expect(await names('tier in (web,db)')).toEqual(['a', 'b']);
    expect(await names('tier notin (web,db),tier')).toEqual(['c']);
    const first = await c.client.list({ apiVersion: 'v1', kind: 'ConfigMap' }, { limit: 3 });
    expect(first.items).toHaveLength(3);
    const rest = await c.client.list({ apiVersion: 'v1', kind: 'ConfigMap' }, { limit: 3, continue: first.metadata?.continue ?? '' });
    expect(rest.items.map((i) => i.metadata.name)).toEqual(['d']);
    expect(rest.metadata?.continue).toBeUndefined();
  });

  it('holds an object with finalizers, marked for deletion, until the last one goes', async () => {
    const c = fakeCluster();
    c.seed({ ...cm('a'), metadata: { ...cm('a').metadata, finalizers: ['f'] } });
    await c.client.delete(ref('a'));
    expect(c.live(cm('a'))?.metadata.deletionTimestamp).toBeDefined();
    await c.client.patch(ref('a'), { metadata: { finalizers: [] } }, 'merge');
    expect(c.live(cm('a'))).toBeUndefined();
  });

  it('sends later writes to the watches that select them until their signal aborts', async () => {
    const c = fakeCluster();
    const stop = new AbortController();
    const seen: string[] = [];
    const watching = c.client.watchEvents?.({ apiVersion: 'v1', kind: 'ConfigMap' }, { labelSelector: 'w', signal: stop.signal }, (e: WatchEvent) =>
      seen.push(`${e.type} ${e.object.metadata.name ?? ''}`),
    );
    await c.client.create(cm('a', { w: 'yes' }));
    await c.client.create(cm('b'));
    await c.client.patch(ref('a'), { data: { k: 'w' } }, 'merge');
    await c.client.delete(ref('a'));
    stop.abort();
    await watching;
    await c.client.create(cm('c', { w: 'yes' }));
    expect(seen).toEqual(['ADDED a', 'MODIFIED a', 'DELETED a']);

    const iterated = new AbortController();
    const events = c.client.watch({ apiVersion: 'v1', kind: 'ConfigMap' }, { signal: iterated.signal });
    const next = events.next();
    c.edit(cm('c'), (live) => (live.metadata.labels = { edited: 'yes' }));
    expect((await next).value).toMatchObject({ type: 'MODIFIED', object: { metadata: { labels: { edited: 'yes' } } } });
    iterated.abort();
    expect((await events.next()).done).toBe(true);
  });

  it('throws an injected failure for one call until it is lifted, and records every call', async () => {
    const c = fakeCluster({ refuse: { 'get ConfigMap ns/a': new ApiError(403, 'Forbidden', 'no') } });
    c.seed(cm('a'));
    await expect(c.client.get(ref('a'))).rejects.toMatchObject({ status: 403 });
    c.refuse('get ConfigMap ns/a', undefined);
    await expect(c.client.get(ref('a'))).resolves.toMatchObject({ metadata: { name: 'a' } });
    c.refuse('delete ConfigMap ns/a', new ApiError(500, 'InternalError', 'boom'));
    await expect(c.client.delete(ref('a'))).rejects.toMatchObject({ status: 500 });
    expect(c.calls).toEqual(['get ConfigMap ns/a', 'get ConfigMap ns/a', 'delete ConfigMap ns/a']);
    expect(c.writes).toEqual(['delete ConfigMap ns/a']);
  });
});
