import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import { CLUSTER_CATALOG, CLUSTER_EXTENSION } from '../../shared/api/index.ts';
import { createChangeFeed, type ChangeEvent } from './live.ts';
import { consoleWatches } from './watches.ts';

describe('consoleWatches', () => {
  it('sends a change when a watched ClusterExtension or ClusterCatalog changes, not for the first list', async () => {
    const fc = fakeCluster();
    fc.seed({ ...CLUSTER_EXTENSION, metadata: { name: 'argocd' }, spec: {} });
    fc.seed({ ...CLUSTER_CATALOG, metadata: { name: 'operatorhub' }, spec: {} });
    const feed = createChangeFeed(consoleWatches({ client: fc.client, systemNamespace: 'olmv1-system', log: pino({ level: 'silent' }) }));
    const seen: ChangeEvent[] = [];
    const stop = feed.subscribe((e) => seen.push(e));
    try {
      await vi.waitFor(() =>
        expect(fc.calls).toEqual(
          expect.arrayContaining([expect.stringMatching(/^watch ClusterExtension/), expect.stringMatching(/^watch ClusterCatalog/)]),
        ),
      );
      expect(seen).toEqual([]);
      fc.edit({ kind: 'ClusterExtension', metadata: { name: 'argocd' } }, (o) => void (o.metadata.labels = { touched: 'yes' }));
      await vi.waitFor(() => expect(seen).toContainEqual({ topic: 'extensions', kind: 'ClusterExtension', name: 'argocd' }));
      fc.edit({ kind: 'ClusterCatalog', metadata: { name: 'operatorhub' } }, (o) => void (o.metadata.labels = { touched: 'yes' }));
      await vi.waitFor(() => expect(seen).toContainEqual({ topic: 'catalogs', kind: 'ClusterCatalog', name: 'operatorhub' }));
    } finally {
      stop();
      feed.close();
    }
  });
});
