import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { InformerEventType, KubeObject } from '../../shared/kube/index.ts';
import { fakeCluster, type FakeCluster } from '../../../test/support/fake-cluster.ts';
import { SharedWatches, type WatchKey } from './shared-watches.ts';
import { abortedAfterEach } from '../../../test/support/per-test.ts';

const log = pino({ level: 'silent' });
const subscription = abortedAfterEach();

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const labels = { 'olm.operatorframework.io/owner-name': 'ext' };
const configMap = (name: string, data: Record<string, string> = {}): KubeObject => ({
  ...CONFIG_MAP,
  metadata: { name, namespace: 'ns', labels },
  data,
});

/** A set whose cache keeps name, namespace and the data's keys (a reduced copy, as the controllers' transforms). */
function setup(): {
  fc: FakeCluster;
  watches: SharedWatches<KubeObject & { keys: string }>;
  key: (identity: string, namespace?: string) => WatchKey;
} {
  const fc = fakeCluster();
  const watches = new SharedWatches<KubeObject & { keys: string }>({
    name: 'test',
    transform: (obj, type) => ({
      ...type,
      metadata: { name: obj.metadata.name ?? '', ...(obj.metadata.namespace === undefined ? {} : { namespace: obj.metadata.namespace }) },
      keys: Object.keys((obj['data'] ?? {}) as object).join(),
    }),
    log,
  });
  const key = (identity: string, namespace = 'ns'): WatchKey => ({
    identity,
    client: fc.client,
    selector: 'olm.operatorframework.io/owner-name=ext',
    type: CONFIG_MAP,
    namespace,
  });
  return { fc, watches, key };
}

const opened = (fc: FakeCluster, verb: 'list' | 'watch'): number => fc.calls.filter((c) => c === `${verb} ConfigMap ns`).length;

describe('SharedWatches', () => {
  it('one list and one watch per identity, selector, kind and namespace, whoever subscribes; every subscriber gets the events', async () => {
    const { fc, watches, key } = setup();
    fc.seed(configMap('a'));
    const seen: Record<string, string[]> = { drift: [], revisions: [] };
    const handler =
      (who: string) =>
      (type: InformerEventType, obj: Readonly<KubeObject>): void =>
        void seen[who]?.push(`${type} ${obj.metadata.name ?? ''}`);
    const first = subscription();
    const cache = watches.subscribe(key('ns/installer'), handler('drift'), first.signal);
    await cache.waitForSync();
    // The second subscriber joins the running informer: the cached objects come to it as adds.
    const second = subscription();
    const joined = watches.subscribe(key('ns/installer'), handler('revisions'), second.signal);
    expect(joined).toBe(cache);
    expect(watches.size).toBe(1);
    await expect.poll(() => opened(fc, 'watch')).toBe(1);
    expect(opened(fc, 'list')).toBe(1);
    expect(cache.get('ns/a')).toMatchObject({ keys: '' });
    fc.edit(configMap('a'), (live) => void (live['data'] = { k: 'v' }));
    await expect.poll(() => seen).toEqual({ drift: ['add a', 'update a'], revisions: ['add a', 'update a'] });
    expect(cache.get('ns/a')).toMatchObject({ keys: 'k' });

    // The informer runs while one subscriber is left, and stops with the last.
    first.abort();
    expect(watches.size).toBe(1);
    await fc.client.delete({ ...CONFIG_MAP, name: 'a', namespace: 'ns' });
    await expect.poll(() => seen['revisions']).toEqual(['add a', 'update a', 'delete a']);
    expect(seen['drift']).toEqual(['add a', 'update a']);
    second.abort();
    expect(watches.size).toBe(0);
    await watches.settled();
    // A later subscriber starts it again, with a list of its own.
    const third = subscription();
    await watches.subscribe(key('ns/installer'), handler('drift'), third.signal).waitForSync();
    expect(opened(fc, 'list')).toBe(2);
  });

  it('never shares a watch across two identities, nor across namespaces', async () => {
    const { fc, watches, key } = setup();
    for (const k of [key('ns/installer'), key('ns/other'), key('ns/installer', 'ns2')]) watches.subscribe(k, () => undefined, subscription().signal);
    expect(watches.size).toBe(3);
    await expect.poll(() => fc.calls.filter((c) => c.startsWith('watch ConfigMap')).length).toBe(3);
  });
});
