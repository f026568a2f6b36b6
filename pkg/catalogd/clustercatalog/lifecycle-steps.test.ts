// The availability and finalizers steps over fake ports: what each removes, the status and
// finalizers it leaves on the working copy, and whether the reconcile goes on.
import { describe, expect, it } from 'vitest';
import type { ClusterCatalog } from '../../shared/api/index.ts';
import { CatalogMemory } from './catalog-memory.ts';
import { availabilityStep, finalizersStep } from './lifecycle-steps.ts';
import { DIGEST_1, catalogStepState, clusterCatalog, digestRef, fakeStore, fakeUnpackCache } from '../../../test/support/catalog-fakes.ts';

const FINALIZER = 'olm.operatorframework.io/delete-server-cache';
const SERVED_STATUS = {
  resolvedSource: { type: 'Image' as const, image: { ref: digestRef(DIGEST_1) } },
  urls: { base: 'https://catalogd.test/catalogs/ops' },
  lastUnpacked: '2026-01-01T00:00:00Z',
};

/** The two steps over fresh fakes; the memory remembers `ops` (a poll entry and a hold). */
function setup() {
  const calls: string[] = [];
  const { store, fail, seed } = fakeStore(calls);
  seed('ops', DIGEST_1);
  const memory = new CatalogMemory();
  memory.polls.set('ops', {
    digest: DIGEST_1,
    digestRef: digestRef(DIGEST_1),
    unpackedAt: new Date(0),
    lastSuccessfulPoll: new Date(0),
    observedGeneration: 1,
  });
  memory.held.set('ops', { generation: 1, until: Number.MAX_SAFE_INTEGER, error: new Error('held') });
  const deps = { store, unpackCache: fakeUnpackCache(calls), memory };
  return { calls, fail, memory, availability: availabilityStep(deps), finalizers: finalizersStep(deps) };
}

const conditions = (cc: ClusterCatalog) => cc.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message, c.observedGeneration]);

describe('availability step', () => {
  it('lets an Available catalog through untouched', async () => {
    const { availability, calls, memory } = setup();
    const cc = clusterCatalog({ finalizers: [FINALIZER] });
    await expect(availability.run(catalogStepState(cc))).resolves.toBeUndefined();
    expect(calls).toEqual([]);
    expect(cc).toEqual(clusterCatalog({ finalizers: [FINALIZER] }));
    expect(memory.polls.get('ops')).toBeDefined();
  });

  it('removes the content of an Unavailable catalog, reports it, drops the finalizer, forgets it and stops', async () => {
    const { availability, calls, memory } = setup();
    const cc = clusterCatalog({ availabilityMode: 'Unavailable', finalizers: [FINALIZER, 'other'], status: { ...SERVED_STATUS } });
    await expect(availability.run(catalogStepState(cc))).resolves.toEqual({});
    expect(calls).toEqual(['store delete ops', 'unpack-cache delete ops']);
    expect(conditions(cc)).toEqual([
      ['Progressing', 'True', 'Succeeded', 'Catalog availability mode is set to Unavailable', 1],
      ['Serving', 'False', 'UserSpecifiedUnavailable', 'Catalog availability mode is set to Unavailable', 1],
    ]);
    expect(cc.status).not.toHaveProperty('resolvedSource');
    expect(cc.status).not.toHaveProperty('urls');
    expect(cc.status).not.toHaveProperty('lastUnpacked');
    expect(cc.metadata.finalizers).toEqual(['other']);
    expect([memory.polls.get('ops'), memory.held.get('ops')]).toEqual([undefined, undefined]);
  });

  it('reports a failed removal on Progressing as it is, keeps the finalizer and throws', async () => {
    const { availability, fail, memory } = setup();
    fail.delete = new Error('device busy');
    const cc = clusterCatalog({ availabilityMode: 'Unavailable', finalizers: [FINALIZER] });
    await expect(availability.run(catalogStepState(cc))).rejects.toBe(fail.delete);
    expect(conditions(cc)).toEqual([['Progressing', 'True', 'Retrying', 'device busy', 1]]);
    expect(cc.metadata.finalizers).toEqual([FINALIZER]);
    expect(memory.polls.get('ops')).toBeDefined();
  });
});

describe('finalizers step', () => {
  it('adds the finalizer to a live catalog and stops (the write starts the next reconcile)', async () => {
    const { finalizers, calls } = setup();
    const cc = clusterCatalog({ finalizers: ['other'] });
    await expect(finalizers.run(catalogStepState(cc))).resolves.toEqual({});
    expect(cc.metadata.finalizers).toEqual(['other', FINALIZER]);
    expect(cc.status).toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('lets a live catalog with the finalizer through', async () => {
    const { finalizers, calls } = setup();
    const cc = clusterCatalog({ finalizers: [FINALIZER] });
    await expect(finalizers.run(catalogStepState(cc))).resolves.toBeUndefined();
    expect(cc).toEqual(clusterCatalog({ finalizers: [FINALIZER] }));
    expect(calls).toEqual([]);
  });

  it('stops at once for a deleted catalog without the finalizer', async () => {
    const { finalizers, calls, memory } = setup();
    const cc = clusterCatalog({ deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['other'] });
    await expect(finalizers.run(catalogStepState(cc))).resolves.toEqual({});
    expect(cc.metadata.finalizers).toEqual(['other']);
    expect(cc.status).toBeUndefined();
    expect(calls).toEqual([]);
    expect(memory.polls.get('ops')).toBeDefined();
  });

  it('removes the content of a deleted catalog, reports it, drops the finalizer, forgets it and stops', async () => {
    const { finalizers, calls, memory } = setup();
    const cc = clusterCatalog({ deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: [FINALIZER], status: { ...SERVED_STATUS } });
    await expect(finalizers.run(catalogStepState(cc))).resolves.toEqual({});
    expect(calls).toEqual(['store delete ops', 'unpack-cache delete ops']);
    expect(conditions(cc)).toEqual([['Serving', 'False', 'Unavailable', '', 1]]);
    expect(cc.status).toEqual({ conditions: expect.any(Array) });
    expect(cc.metadata.finalizers).toBeUndefined();
    expect([memory.polls.get('ops'), memory.held.get('ops')]).toEqual([undefined, undefined]);
  });

  it('names the finalizer when the removal fails, keeps it and throws', async () => {
    const { finalizers, fail } = setup();
    fail.delete = new Error('device busy');
    const cc = clusterCatalog({ deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: [FINALIZER] });
    const message = `finalizer "${FINALIZER}" failed: device busy`;
    await expect(finalizers.run(catalogStepState(cc))).rejects.toThrow(message);
    expect(conditions(cc)).toEqual([['Progressing', 'True', 'Retrying', message, 1]]);
    expect(cc.metadata.finalizers).toEqual([FINALIZER]);
  });
});
