import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { CatalogContentCache, CatalogRef } from '../catalogclient/index.ts';
import type { InformerEventType, InformerHandler, KubeObject } from '../../shared/kube/index.ts';
import { type CatalogFixture, clusterCatalogObject } from '../../../test/support/cluster-catalogs.ts';
import { watchCatalogEvents } from './catalog-events.ts';

// ---- fixtures ------------------------------------------------------------------------------

/** A serving catalog at digest sha256:d1 (priority 0, Available), unless `o` says otherwise. */
function catalog(name: string, o: CatalogFixture = {}): KubeObject {
  return clusterCatalogObject(name, { digest: 'sha256:d1', priority: 0, availabilityMode: 'Available', lastUnpacked: '2024-01-01T00:00:00Z', ...o });
}

function extension(name: string, packageName: string): KubeObject {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name },
    spec: { namespace: 'ns', serviceAccount: { name: 'sa' }, source: { sourceType: 'Catalog', catalog: { packageName } } },
  };
}

const EXTENSIONS = [extension('ext-a', 'a'), extension('ext-b', 'b'), extension('ext-c', 'c'), extension('ext-d', 'd')];
const ALL = ['ext-a', 'ext-b', 'ext-c', 'ext-d'];

/** Package names by digest (the part of the digestRef after `@`); an Error entry fails the read. */
type Contents = Record<string, string[] | Error | Promise<string[]>>;

interface Harness {
  emit(type: InformerEventType, obj: KubeObject, old?: KubeObject): Promise<void>;
  enqueued: string[];
  forgotten: string[];
  unsubscribed: () => boolean;
  stop: () => void;
}

function harness(contents: Contents, extensions: KubeObject[] = EXTENSIONS): Harness {
  let handler: InformerHandler<KubeObject> | undefined;
  let removed = false;
  const enqueued: string[] = [];
  const forgotten: string[] = [];
  const content: CatalogContentCache = {
    getPackage: () => Promise.reject(new Error('not used')),
    packageNames: async (ref: CatalogRef) => {
      const entry = contents[ref.digestRef.split('@')[1] ?? ''];
      if (entry === undefined) throw new Error(`no content for ${ref.digestRef}`);
      if (entry instanceof Error) throw entry;
      return new Set(await entry);
    },
    forget: (name, keep) => forgotten.push(keep === undefined ? name : `${name} keep ${keep.split('@')[1]}`),
  };
  const stop = watchCatalogEvents({
    catalogs: {
      addHandler: (h) => {
        handler = h;
        return () => {
          removed = true;
        };
      },
    },
    extensions: { list: () => extensions },
    content,
    enqueue: (n) => enqueued.push(n),
    log: pino({ level: 'silent' }),
  });
  return {
    emit: async (type, obj, old) => {
      if (handler === undefined) throw new Error('no handler registered');
      handler(type, obj, old);
      // The handler reads package names asynchronously; let it finish.
      await new Promise((r) => setTimeout(r, 0));
    },
    enqueued,
    forgotten,
    unsubscribed: () => removed,
    stop,
  };
}

/** Emits the add of `obj` and clears what it enqueued. */
async function added(h: Harness, obj: KubeObject): Promise<void> {
  await h.emit('add', obj);
  h.enqueued.length = 0;
  h.forgotten.length = 0;
}

// ---- tests ---------------------------------------------------------------------------------

describe('watchCatalogEvents', () => {
  it('a new catalog enqueues every extension', async () => {
    const h = harness({ 'sha256:d1': ['a'] });
    await h.emit('add', catalog('cat'));
    expect(h.enqueued).toEqual(ALL);
    expect(h.forgotten).toEqual(['cat keep sha256:d1']);
  });

  it.each([
    ['a new digest adding a package', ['a', 'b'], ['b', 'c'], ['ext-a', 'ext-b', 'ext-c']],
    ['a new digest with the same packages', ['a'], ['a'], ['ext-a']],
    ['a new digest dropping every package', ['a', 'b'], [], ['ext-a', 'ext-b']],
  ])('%s enqueues only the extensions of packages carried before or after', async (_name, before, after, want) => {
    const h = harness({ 'sha256:d1': before, 'sha256:d2': after });
    const v1 = catalog('cat');
    await added(h, v1);
    await h.emit('update', catalog('cat', { digest: 'sha256:d2' }), v1);
    expect(h.enqueued).toEqual(want);
    expect(h.forgotten).toEqual(['cat keep sha256:d2']);
  });

  it('successive digests compare with the last content read', async () => {
    const h = harness({ 'sha256:d1': ['a'], 'sha256:d2': ['b'], 'sha256:d3': ['c'] });
    const v1 = catalog('cat');
    const v2 = catalog('cat', { digest: 'sha256:d2' });
    await added(h, v1);
    await h.emit('update', v2, v1);
    expect(h.enqueued).toEqual(['ext-a', 'ext-b']);
    h.enqueued.length = 0;
    await h.emit('update', catalog('cat', { digest: 'sha256:d3' }), v2);
    expect(h.enqueued).toEqual(['ext-b', 'ext-c']);
  });

  it('a resync or a status change that does not touch resolution enqueues nothing', async () => {
    const h = harness({ 'sha256:d1': ['a'] });
    const v1 = catalog('cat');
    await added(h, v1);
    await h.emit('update', v1, v1);
    await h.emit('update', catalog('cat', { lastUnpacked: '2025-01-01T00:00:00Z' }), v1);
    expect(h.enqueued).toEqual([]);
    expect(h.forgotten).toEqual([]);
  });

  it('a new image reference enqueues nothing until its content is served as a new digest', async () => {
    const h = harness({ 'sha256:d1': ['a', 'b'], 'sha256:d2': ['a', 'b'] });
    const v1 = catalog('cat');
    await added(h, v1);
    const moved = catalog('cat', { ref: 'registry.example/cat:v2' });
    await h.emit('update', moved, v1);
    expect(h.enqueued).toEqual([]);
    await h.emit('update', catalog('cat', { ref: 'registry.example/cat:v2', digest: 'sha256:d2' }), moved);
    expect(h.enqueued).toEqual(['ext-a', 'ext-b']);
  });

  it.each([
    ['priority', { priority: 10 }],
    ['labels', { labels: { tier: 'gold' } }],
    ['serving state', { serving: 'False' as const }],
    ['availabilityMode', { availabilityMode: 'Unavailable' as const }],
    ['priority with a new digest', { priority: 10, digest: 'sha256:d2' }],
  ])('a change of %s enqueues every extension', async (_name, change) => {
    const h = harness({ 'sha256:d1': ['a'], 'sha256:d2': ['a'] });
    const v1 = catalog('cat');
    await added(h, v1);
    await h.emit('update', catalog('cat', change), v1);
    expect(h.enqueued).toEqual(ALL);
  });

  it('a deleted catalog enqueues every extension and is forgotten', async () => {
    const h = harness({ 'sha256:d1': ['a'] });
    const v1 = catalog('cat');
    await added(h, v1);
    await h.emit('delete', v1, v1);
    expect(h.enqueued).toEqual(ALL);
    expect(h.forgotten).toEqual(['cat']);
    // Added again later: every extension again, not a comparison with the deleted content.
    h.enqueued.length = 0;
    await h.emit('add', catalog('cat', { digest: 'sha256:d1' }));
    expect(h.enqueued).toEqual(ALL);
  });

  it('a package-name read failure enqueues every extension', async () => {
    const h = harness({ 'sha256:d1': ['a'], 'sha256:d2': new Error('catalogd unavailable') });
    const v1 = catalog('cat');
    await added(h, v1);
    await h.emit('update', catalog('cat', { digest: 'sha256:d2' }), v1);
    expect(h.enqueued).toEqual(ALL);
  });

  it('after a read failure the next digest enqueues every extension (nothing to compare with)', async () => {
    const h = harness({ 'sha256:d1': new Error('down'), 'sha256:d2': ['b'] });
    const v1 = catalog('cat');
    await added(h, v1);
    await h.emit('update', catalog('cat', { digest: 'sha256:d2' }), v1);
    expect(h.enqueued).toEqual(ALL);
  });

  it('a new digest of a catalog whose content was never read enqueues every extension', async () => {
    const h = harness({ 'sha256:d2': ['a'] });
    await h.emit('update', catalog('cat', { digest: 'sha256:d2' }), catalog('cat'));
    expect(h.enqueued).toEqual(ALL);
  });

  it('extensions that do not parse are always enqueued', async () => {
    const broken: KubeObject = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', metadata: { name: 'broken' }, spec: {} };
    const h = harness({ 'sha256:d1': ['a'], 'sha256:d2': ['a'] }, [extension('ext-a', 'a'), extension('ext-b', 'b'), broken]);
    const v1 = catalog('cat');
    await added(h, v1);
    await h.emit('update', catalog('cat', { digest: 'sha256:d2' }), v1);
    expect(h.enqueued).toEqual(['ext-a', 'broken']);
  });

  it('a slower read of an older digest does not replace the newer content as the baseline', async () => {
    let release: (names: string[]) => void = () => undefined;
    const slow = new Promise<string[]>((r) => {
      release = r;
    });
    const h = harness({ 'sha256:d1': ['a'], 'sha256:d2': slow, 'sha256:d3': ['c'], 'sha256:d4': [] });
    const v1 = catalog('cat');
    const v2 = catalog('cat', { digest: 'sha256:d2' });
    const v3 = catalog('cat', { digest: 'sha256:d3' });
    await added(h, v1);
    await h.emit('update', v2, v1);
    await h.emit('update', v3, v2);
    release(['b']);
    await new Promise((r) => setTimeout(r, 0));
    expect(new Set(h.enqueued)).toEqual(new Set(['ext-a', 'ext-b', 'ext-c']));
    h.enqueued.length = 0;
    // d4 drops package c, which d3 (the newest content read) carried.
    await h.emit('update', catalog('cat', { digest: 'sha256:d4' }), v3);
    expect(h.enqueued).toEqual(['ext-c']);
  });

  it('the returned function unsubscribes', () => {
    const h = harness({});
    expect(h.unsubscribed()).toBe(false);
    h.stop();
    expect(h.unsubscribed()).toBe(true);
  });
});
