import { describe, expect, it } from 'vitest';
import { LimitExceededError } from '../../shared/errors/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import { catalogReconcileCancels, contentSyncCancels, withIngestTimeout } from './ingest-bounds.ts';

const untilAborted = (signal: AbortSignal): Promise<never> =>
  new Promise((_r, reject) => signal.addEventListener('abort', () => reject(new Error('aborted', { cause: signal.reason })), { once: true }));

describe('withIngestTimeout', () => {
  it('replaces the failure of a timed-out ingest by a LimitExceededError naming the timeout', async () => {
    const err = await withIngestTimeout(new AbortController().signal, 30, untilAborted).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LimitExceededError);
    expect((err as Error).message).toBe('the catalog image was not pulled and stored within the ingest timeout of 30ms (catalogd --ingest-timeout)');
    expect(((err as Error).cause as Error).message).toBe('aborted');
  });

  it("passes the caller's abort and other failures through, and results", async () => {
    const outer = new AbortController();
    const running = withIngestTimeout(outer.signal, 60_000, untilAborted);
    outer.abort(new Error('deleted'));
    await expect(running).rejects.toThrow('aborted');
    await expect(withIngestTimeout(new AbortController().signal, 60_000, () => Promise.reject(new Error('bad gzip')))).rejects.toThrow('bad gzip');
    await expect(withIngestTimeout(new AbortController().signal, 60_000, async () => 7)).resolves.toBe(7);
  });
});

function cc(generation: number, extra: { deleting?: boolean; mode?: string; ref?: string } = {}): KubeObject {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name: 'c', generation, ...(extra.deleting === true ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { source: { type: 'Image', image: { ref: 'r.test/c:v1' } }, ...(extra.mode === undefined ? {} : { availabilityMode: extra.mode }) },
    status: extra.ref === undefined ? {} : { resolvedSource: { type: 'Image', image: { ref: extra.ref } } },
  };
}

describe('cancel predicates', () => {
  it('cancel the reconcile on deletion and on a spec change only', () => {
    expect(catalogReconcileCancels('delete', cc(1), cc(1))).toBe('the ClusterCatalog was deleted');
    expect(catalogReconcileCancels('update', cc(1, { deleting: true }), cc(1))).toBe('the ClusterCatalog is being deleted');
    expect(catalogReconcileCancels('update', cc(3), cc(2))).toBe("the ClusterCatalog's spec changed (generation 2 to 3)");
    expect(catalogReconcileCancels('update', cc(2, { ref: 'r.test/c@sha256:bb' }), cc(2))).toBeUndefined(); // our own status write
    expect(catalogReconcileCancels('update', cc(2, { deleting: true }), cc(2, { deleting: true }))).toBeUndefined();
    expect(catalogReconcileCancels('add', cc(1), undefined)).toBeUndefined();
  });

  it('cancel a sync on deletion, Unavailable and a newly published source, not on other spec changes', () => {
    expect(contentSyncCancels('delete', cc(1), cc(1))).toBe('the ClusterCatalog was deleted');
    expect(contentSyncCancels('update', cc(2, { mode: 'Unavailable' }), cc(1))).toBe('the ClusterCatalog availability mode changed');
    expect(contentSyncCancels('update', cc(1, { ref: 'r@sha256:b' }), cc(1, { ref: 'r@sha256:a' }))).toBe(
      'the ClusterCatalog published another resolved source',
    );
    expect(contentSyncCancels('update', cc(2, { ref: 'r@sha256:a' }), cc(1, { ref: 'r@sha256:a' }))).toBeUndefined();
  });
});
