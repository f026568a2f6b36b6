import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import { Informer, type InformerHandler } from './informer.ts';
import { clientListWatch } from './informer-source.ts';
import { labelIndex } from './label-index.ts';
import type { KubeObject } from '../unstructured/index.ts';

const cm = (name: string, owner: string | undefined, rv: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', resourceVersion: rv, ...(owner === undefined ? {} : { labels: { owner } }) },
});

/** An informer whose events the test sends. */
function fed(): { informer: Pick<Informer<KubeObject>, 'addHandler'>; send: InformerHandler<KubeObject> } {
  const handlers = new Set<InformerHandler<KubeObject>>();
  return {
    informer: { addHandler: (h) => (handlers.add(h), () => handlers.delete(h)) },
    send: (type, obj, old) => {
      for (const h of handlers) h(type, obj, old);
    },
  };
}

const names = (objs: readonly KubeObject[]): string[] => objs.map((o) => o.metadata.name ?? '').sort();

describe('labelIndex', () => {
  it('answers the objects labelled with a value as adds, relabels and deletes leave it', () => {
    const { informer, send } = fed();
    const of = labelIndex(informer, 'owner');
    send('add', cm('a', 'x', '1'), undefined);
    send('add', cm('b', 'x', '1'), undefined);
    send('add', cm('c', 'y', '1'), undefined);
    send('add', cm('d', undefined, '1'), undefined);
    expect(names(of('x'))).toEqual(['a', 'b']);
    expect(names(of('y'))).toEqual(['c']);
    send('update', cm('b', 'y', '2'), cm('b', 'x', '1'));
    send('update', cm('c', undefined, '2'), cm('c', 'y', '1'));
    expect(names(of('x'))).toEqual(['a']);
    expect(names(of('y'))).toEqual(['b']);
    expect(of('y')[0]?.metadata.resourceVersion).toBe('2');
    send('delete', cm('a', 'x', '1'), cm('a', 'x', '1'));
    expect(of('x')).toEqual([]);
    expect(of('nobody')).toEqual([]);
  });

  it('agrees with an Informer over the shared fake cluster, its first list and its watch', async () => {
    const fc = fakeCluster();
    fc.seed(cm('a', 'x', '1'));
    fc.seed(cm('b', 'y', '1'));
    const informer = new Informer<KubeObject>({
      name: 'test',
      source: clientListWatch(fc.client, { apiVersion: 'v1', kind: 'ConfigMap' }),
      log: pino({ level: 'silent' }),
      resyncPeriodMs: 0,
    });
    const of = labelIndex(informer, 'owner');
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    try {
      await informer.waitForSync();
      expect(names(of('x'))).toEqual(['a']);
      // Its watch open, a new object comes through it.
      await expect.poll(() => fc.calls.some((c) => c.startsWith('watch ConfigMap'))).toBe(true);
      const { resourceVersion: _unset, ...meta } = cm('c', 'x', '').metadata;
      await fc.client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta });
      await expect.poll(() => names(of('x'))).toEqual(['a', 'c']);
    } finally {
      stop.abort();
      await running;
    }
  });
});
