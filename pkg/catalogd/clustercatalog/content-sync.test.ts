// The content-sync reconciler (every replica) over a real store and unpack cache, a fake of
// the catalog informer and an image client that streams one built layer.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ReconcileContext } from '../../shared/controller/index.ts';
import { buildLayer, type OpenedImage } from '../../shared/image/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import { openedCatalogImage, storePerTest } from '../../../test/support/catalog-store.ts';
import { ContentSyncReconciler, type ContentSyncOptions } from './content-sync.ts';

const log = pino({ level: 'silent' });
const digest = (c: string): string => `sha256:${c.repeat(64)}`;
const refOf = (d: string): string => `registry.test/catalogs/ops@${d}`;
const PKG = '{"schema":"olm.package","name":"foo"}\n';

/** An image client whose `openLayers` streams a one-package catalog under the digest asked for. */
function images(opened: string[], failure?: Error): ContentSyncOptions['images'] {
  const layer = buildLayer([
    { path: 'configs', type: 'dir' },
    { path: 'configs/foo.json', type: 'file', data: Buffer.from(PKG) },
  ]);
  return {
    async openLayers(ref: string): Promise<OpenedImage> {
      opened.push(ref);
      if (failure !== undefined) throw failure;
      return openedCatalogImage(ref, layer);
    },
    async pull() {
      throw new Error('a streamable image is never pulled');
    },
  };
}

/** The informer's cache: only `get` is used. */
function catalogs(objects: Record<string, KubeObject>): ContentSyncOptions['catalogs'] {
  return { get: (name: string) => objects[name] };
}

function catalog(extra: { ref?: string; deleting?: boolean; unavailable?: boolean; lastUnpacked?: string } = {}): KubeObject {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name: 'ops', ...(extra.deleting ? { deletionTimestamp: '2026-11-24T00:00:00Z' } : {}) },
    spec: {
      source: { type: 'Image', image: { ref: 'registry.test/catalogs/ops:latest' } },
      ...(extra.unavailable ? { availabilityMode: 'Unavailable' } : {}),
    },
    ...(extra.ref === undefined
      ? {}
      : {
          status: {
            resolvedSource: { type: 'Image', image: { ref: extra.ref } },
            ...(extra.lastUnpacked ? { lastUnpacked: extra.lastUnpacked } : {}),
          },
        }),
  };
}

const ctx = (): ReconcileContext => ({ signal: new AbortController().signal, log });

describe('ContentSyncReconciler', () => {
  const bed = storePerTest('content-sync-');

  const sync = (objects: Record<string, KubeObject>, opened: string[], failure?: Error) =>
    new ContentSyncReconciler({
      catalogs: catalogs(objects),
      images: images(opened, failure),
      unpackCache: bed().unpackCache,
      store: bed().store,
      log,
    }).reconcile('ops', ctx());

  it('stores what the leader published, with its unpack time, and only once', async () => {
    const opened: string[] = [];
    const published = catalog({ ref: refOf(digest('a')), lastUnpacked: '2026-11-24T01:02:03Z' });
    await sync({ ops: published }, opened);
    expect(bed().store.get('ops')?.info).toEqual({ digest: digest('a'), ref: refOf(digest('a')), unpackedAt: '2026-11-24T01:02:03Z' });
    await sync({ ops: published }, opened);
    expect(opened).toEqual([refOf(digest('a'))]);
  });

  it('follows a new published digest', async () => {
    const opened: string[] = [];
    await sync({ ops: catalog({ ref: refOf(digest('a')) }) }, opened);
    await sync({ ops: catalog({ ref: refOf(digest('b')) }) }, opened);
    expect(bed().store.get('ops')?.info.digest).toBe(digest('b'));
    expect(opened).toEqual([refOf(digest('a')), refOf(digest('b'))]);
  });

  it('does nothing before the leader published a digest reference', async () => {
    const opened: string[] = [];
    await sync({ ops: catalog() }, opened);
    await sync({ ops: catalog({ ref: 'registry.test/catalogs/ops:latest' }) }, opened);
    expect(opened).toEqual([]);
    expect(bed().store.get('ops')).toBeUndefined();
  });

  it.each([
    ['deleted', {}],
    ['being deleted', { ops: catalog({ ref: refOf(digest('a')), deleting: true }) }],
    ['Unavailable', { ops: catalog({ ref: refOf(digest('a')), unavailable: true }) }],
  ])('removes the content of a catalog that is %s', async (_what, objects: Record<string, KubeObject>) => {
    await sync({ ops: catalog({ ref: refOf(digest('a')) }) }, []);
    expect(bed().store.get('ops')).toBeDefined();
    await sync(objects, []);
    expect(bed().store.get('ops')).toBeUndefined();
    expect(bed().store.contentExists('ops')).toBe(false);
  });

  it('says which catalog failed, with the source error, and keeps what was served', async () => {
    await sync({ ops: catalog({ ref: refOf(digest('a')) }) }, []);
    const err = await sync({ ops: catalog({ ref: refOf(digest('b')) }) }, [], new Error('error getting manifest: unauthorized')).catch(
      (e: unknown) => e,
    );
    expect((err as Error).message).toBe('syncing content of catalog "ops": error getting manifest: unauthorized');
    expect(bed().store.get('ops')?.info.digest).toBe(digest('a'));
  });
});
