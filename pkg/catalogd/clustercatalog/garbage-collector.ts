/**
 * Periodic garbage collection of a replica's disk: content and unpacked images of catalogs that
 * no longer exist, and leftovers of interrupted writes. Runs once the catalog informer synced,
 * then every `intervalMs` (upstream: 12 h) until `signal` aborts; errors are logged only.
 */
import type { Logger } from 'pino';
import { sleepUnlessAborted } from '../../shared/kube/index.ts';
import type { ImageCache } from '../../shared/image/index.ts';
import type { Informer, KubeObject } from '../../shared/kube/index.ts';
import type { LocalDirStore } from '../storage/index.ts';

interface GarbageCollectorOptions {
  catalogs: Informer<KubeObject>;
  store: LocalDirStore;
  unpackCache: ImageCache;
  intervalMs: number;
  log: Logger;
}

/** One collection pass; returns what was removed. */
async function collectGarbage(o: Omit<GarbageCollectorOptions, 'intervalMs'>): Promise<string[]> {
  const keep = new Set(o.catalogs.keys());
  const removed = await o.store.gc(keep);
  for (const owner of await o.unpackCache.owners()) {
    if (keep.has(owner)) continue;
    await o.unpackCache.delete(owner);
    removed.push(`unpack/${owner}`);
  }
  await o.unpackCache.cleanupTemporary();
  return removed;
}

/** Runs collection passes until `signal` aborts; never rejects. */
export async function runGarbageCollector(o: GarbageCollectorOptions, signal: AbortSignal): Promise<void> {
  try {
    await o.catalogs.waitForSync(signal);
  } catch {
    return;
  }
  while (!signal.aborted) {
    try {
      const removed = await collectGarbage(o);
      if (removed.length > 0) o.log.info({ removed }, 'garbage collected catalog content');
    } catch (err) {
      o.log.warn({ err }, 'garbage collection failed');
    }
    await sleepUnlessAborted(o.intervalMs, signal);
  }
}
