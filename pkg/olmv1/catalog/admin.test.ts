import { describe, expect, it } from 'vitest';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import { ApiError } from '../../shared/kube/index.ts';
import { catalogManifest, createCatalog, deleteCatalog } from './admin.ts';

const hub = catalogManifest({ name: 'hub', image: 'quay.io/x/c:1', priority: undefined, pollMinutes: undefined, available: true });

describe('createCatalog and deleteCatalog', () => {
  it('create and delete the ClusterCatalog; its existence, absence and the API server refusal are values in the command words', async () => {
    const fc = fakeCluster();
    expect(await createCatalog(fc.client, hub)).toEqual({ ok: true });
    expect(fc.live(hub)?.spec).toEqual(hub.spec);
    expect(await createCatalog(fc.client, hub)).toEqual({ ok: false, error: 'ClusterCatalog "hub" already exists' });
    expect(await deleteCatalog(fc.client, 'hub')).toEqual({ ok: true });
    expect(await deleteCatalog(fc.client, 'hub')).toEqual({ ok: false, error: 'ClusterCatalog "hub" not found' });
    fc.refuse('create ClusterCatalog hub', new ApiError(403, 'Forbidden', 'clustercatalogs is forbidden'));
    expect(await createCatalog(fc.client, hub)).toEqual({ ok: false, error: 'error creating ClusterCatalog "hub": clustercatalogs is forbidden' });
  });
});
