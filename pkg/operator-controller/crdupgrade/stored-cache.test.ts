import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kube/index.ts';
import { widget, widgetSchemaCrd } from '../../../test/support/crd-builders.ts';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import { checkCrdUpgrade } from './check.ts';
import { StoredVerdictCache } from './stored-cache.ts';

const crd = (replicas: Record<string, unknown>): KubeObject => widgetSchemaCrd({ replicas });

const loose = crd({ type: 'integer' });
const tight = crd({ type: 'integer', maximum: 5 });
const tighter = crd({ type: 'integer', maximum: 4 });
const signal = new AbortController().signal;

function setup(maxEntries?: number) {
  const cluster = fakeCluster();
  for (let i = 0; i < 5; i++) cluster.seed(widget(`w${i}`, 1));
  cluster.seed(widget('big', 9));
  const changed: string[] = [];
  const stop = new AbortController();
  const cache = new StoredVerdictCache({
    onChange: (n) => changed.push(n),
    signal: stop.signal,
    ...(maxEntries === undefined ? {} : { maxEntries }),
  });
  const reader = { extension: 'ext', identity: 'ns/installer', client: cluster.client };
  const lists = () => cluster.calls.filter((c) => c.startsWith('list Widget')).length;
  const ask = (proposed = tight, r = reader) => cache.verdict(r, loose, proposed, checkCrdUpgrade(loose, proposed), signal);
  return { cluster, cache, changed, stop, reader, lists, ask };
}

describe('StoredVerdictCache', () => {
  it('scans once, then answers while nothing changes', async () => {
    const { cache, lists, ask } = setup();
    const first = await ask();
    expect(first).toMatchObject({ letThrough: false, text: expect.stringContaining('1 of 6 stored objects fail the new schema: ns/big') as unknown });
    expect(lists()).toBe(1);
    for (let i = 0; i < 5; i++) expect(await ask()).toBe(first);
    expect(lists()).toBe(1);
    expect(cache.size).toBe(1);
  });

  it('counts passing objects added, changed and deleted in place, without a scan or a reconcile', async () => {
    const { cluster, changed, lists, ask } = setup();
    await ask();
    cluster.seed(widget('new', 2));
    cluster.edit(widget('w0', 1), (o) => void ((o['spec'] as { replicas: number }).replicas = 3));
    await cluster.client.delete({ apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'ns', name: 'w1' });
    expect((await ask()).text).toContain('1 of 6 stored objects fail');
    await cluster.client.create(widget('another', 1));
    expect((await ask()).text).toContain('1 of 7 stored objects fail');
    expect(lists()).toBe(1);
    expect(changed).toEqual([]);
  });

  it('drops the verdict and queues the extension when a failing object is fixed, or a new one fails', async () => {
    const { cluster, changed, lists, ask } = setup();
    await ask();
    cluster.edit(widget('big', 9), (o) => void ((o['spec'] as { replicas: number }).replicas = 4));
    expect(changed).toEqual(['ext']);
    expect(await ask()).toMatchObject({ letThrough: true, text: 'CRD widgets.example.com: all 6 stored objects pass the new schema' });
    expect(lists()).toBe(2);
    cluster.seed(widget('huge', 50));
    expect(changed).toEqual(['ext', 'ext']);
    expect((await ask()).letThrough).toBe(false);
    expect(lists()).toBe(3);
  });

  it('scans again for another new CRD, another reader, and not at all for what stored objects cannot decide', async () => {
    const { cluster, lists, ask, reader } = setup();
    await ask();
    await ask(tighter);
    expect(lists()).toBe(2);
    await ask(tighter, { ...reader, identity: 'other/installer' });
    expect(lists()).toBe(3);
    const retyped = crd({ type: 'string' });
    expect((await ask(retyped)).letThrough).toBe(false);
    expect(lists()).toBe(3);
    expect(cluster.calls.filter((c) => c.startsWith('watch Widget'))).toHaveLength(3);
  });

  it('keeps at most maxEntries verdicts, and nothing for a forgotten extension or after close', async () => {
    const { cache, lists, ask, reader, stop } = setup(2);
    await ask(tight, { ...reader, identity: 'a/sa' });
    await ask(tight, { ...reader, identity: 'b/sa' });
    await ask(tight, { ...reader, identity: 'c/sa', extension: 'other' });
    expect(cache.size).toBe(2);
    await ask(tight, { ...reader, identity: 'a/sa' });
    expect(lists()).toBe(4);
    cache.forget('ext');
    expect(cache.size).toBe(1);
    stop.abort();
    expect(cache.size).toBe(0);
    await ask(tight, { ...reader, identity: 'c/sa' });
    expect(cache.size).toBe(0);
  });

  it('keeps nothing when the objects cannot be watched, or the scan was incomplete', async () => {
    const { cluster, cache, lists, ask } = setup();
    cluster.refuse('watch Widget', new Error('widgets.example.com is forbidden'));
    await ask();
    await expect.poll(() => cache.size).toBe(0);
    await ask();
    expect(lists()).toBe(2);
    cluster.refuse('watch Widget', undefined);
    cluster.refuse('list Widget', new Error('widgets.example.com is forbidden'));
    expect((await ask()).text).toContain('stored objects not all checked');
    expect(cache.size).toBe(0);
  });
});
