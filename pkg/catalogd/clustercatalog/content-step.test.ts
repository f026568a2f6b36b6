// The content step over fake ports: when it pulls, what it stores and announces, and how each
// failure shows on Progressing, in events and in the catalog's hold.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { ClusterCatalog } from '../../shared/api/index.ts';
import { LimitExceededError, TerminalError } from '../../shared/errors/index.ts';
import { CatalogContentError } from '../storage/index.ts';
import { createCatalogContentMetrics } from './catalog-content.ts';
import { CatalogMemory } from './catalog-memory.ts';
import { contentStep } from './content-step.ts';
import { setServing } from './status.ts';
import {
  DIGEST_1,
  DIGEST_2,
  IMAGE,
  catalogStepState,
  clusterCatalog,
  digestRef,
  fakeClock,
  fakeEvents,
  fakeImages,
  fakeStore,
  fakeUnpackCache,
} from '../../../test/support/catalog-fakes.ts';

const FLOOR_MS = 5 * 60_000;

/** The content step over fresh fakes; the tag points at DIGEST_1. */
function setup(o: { ingestMs?: number } = {}) {
  const calls: string[] = [];
  const store = fakeStore(calls);
  const images = fakeImages(calls);
  const events = fakeEvents();
  const registry = new Registry();
  const memory = new CatalogMemory();
  const clock = fakeClock();
  const step = contentStep({
    images: images.images,
    store: store.store,
    unpackCache: fakeUnpackCache(calls),
    events: events.recorder,
    metrics: createCatalogContentMetrics(registry),
    memory,
    clock: clock.now,
    timeouts: { ingestMs: o.ingestMs ?? 60_000, limitRetryFloorMs: FLOOR_MS },
  });
  const stored = async () =>
    (await registry.getSingleMetricAsString('catalogd_catalog_contents_stored_total')).split('\n').filter((l) => !l.startsWith('#'));
  return { calls, store, images, events: events.events, memory, clock, step, stored };
}

const conditions = (cc: ClusterCatalog) => cc.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]);
const NEVER_SERVED = ['Serving', 'False', 'Unavailable', 'No content unpacked yet: see the Progressing condition'];

describe('content step', () => {
  it('neither pulls nor announces anything when the digest is already stored', async () => {
    const { calls, store, events, step, stored } = setup();
    store.seed('ops', DIGEST_1);
    const state = catalogStepState(clusterCatalog());
    await expect(step.run(state)).resolves.toBeUndefined();
    expect(calls).toEqual([`resolve ${IMAGE}`]);
    expect(state.served).toBe(store.content.get('ops'));
    expect(state.catalog.status).toBeUndefined();
    expect(events).toEqual([]);
    expect(await stored()).toEqual([]);
  });

  it('stores a new digest from the layer stream, drops unpacked trees and announces it', async () => {
    const { calls, store, images, events, step, stored } = setup();
    store.seed('ops', DIGEST_1);
    images.state.digest = DIGEST_2;
    const state = catalogStepState(clusterCatalog());
    await step.run(state);
    expect(calls).toEqual([`resolve ${IMAGE}`, `open ${IMAGE}`, `store ops ${DIGEST_2} from layers`, 'unpack-cache delete ops']);
    expect(state.served?.info).toMatchObject({ digest: DIGEST_2, ref: digestRef(DIGEST_2) });
    // unpackedAt is whole seconds, as status shows it.
    expect(state.served?.info.unpackedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    expect(events).toEqual([`Normal Unpacked: Unpacked and serving ${digestRef(DIGEST_2)}`]);
    expect(await stored()).toEqual(['catalogd_catalog_contents_stored_total{method="streamed"} 1']);
  });

  it.each([
    ['resolving the tag', 'resolve', new Error('manifest unknown'), 'source catalog content: manifest unknown'],
    ['opening the image', 'open', new Error('unauthorized'), 'source catalog content: unauthorized'],
  ] as const)('reports a failure %s as a source error, retried', async (_when, where, error, message) => {
    const { images, events, memory, step } = setup();
    images.fail[where] = error;
    const cc = clusterCatalog();
    await expect(step.run(catalogStepState(cc))).rejects.toThrow(message);
    expect(conditions(cc)).toEqual([['Progressing', 'True', 'Retrying', message], NEVER_SERVED]);
    expect(events).toEqual([`Warning UnpackFailed: ${message}`]);
    expect(memory.held.get('ops')).toBeUndefined();
  });

  it('reports a terminal source error as Progressing False/Blocked', async () => {
    const { images, step } = setup();
    images.fail.resolve = new TerminalError('invalid reference format');
    const cc = clusterCatalog();
    await expect(step.run(catalogStepState(cc))).rejects.toThrow('source catalog content: terminal error: invalid reference format');
    expect(conditions(cc)?.[0]).toEqual(['Progressing', 'False', 'Blocked', 'source catalog content: terminal error: invalid reference format']);
  });

  it('reports a failure of the store as a store error and keeps content served before Serving', async () => {
    const { store, images, events, step } = setup();
    images.state.digest = DIGEST_2;
    store.fail.store = new CatalogContentError('configs/ops.json: invalid character');
    const cc = clusterCatalog();
    setServing(cc, { digestRef: digestRef(DIGEST_1), baseURL: 'https://catalogd.test/catalogs/ops', unpackedAt: new Date(0) });
    const message = 'error storing fbc: configs/ops.json: invalid character';
    await expect(step.run(catalogStepState(cc))).rejects.toThrow(message);
    expect(conditions(cc)).toEqual([
      ['Progressing', 'True', 'Retrying', message],
      ['Serving', 'True', 'Available', 'Serving desired content from resolved source'],
    ]);
    expect(cc.status?.resolvedSource?.image.ref).toBe(digestRef(DIGEST_1));
    expect(events).toEqual([`Warning UnpackFailed: ${message}`]);
  });

  it('names the retry floor for a failure past a resource limit and holds the catalog until it', async () => {
    const { store, memory, clock, step } = setup();
    store.fail.store = new LimitExceededError('the catalog content exceeds 10 MiB');
    const cc = clusterCatalog({ generation: 4 });
    const message = 'error storing fbc: the catalog content exceeds 10 MiB; retrying in 5m0s at the earliest';
    await expect(step.run(catalogStepState(cc))).rejects.toThrow(message);
    expect(conditions(cc)).toEqual([['Progressing', 'True', 'Retrying', message], NEVER_SERVED]);
    expect(memory.held.get('ops')).toMatchObject({ generation: 4, until: clock.now().getTime() + FLOOR_MS, error: { message } });
  });

  it('reports an ingest that outlives its timeout as a source error past a limit', async () => {
    const { images, memory, step } = setup({ ingestMs: 20 });
    images.state.hang = true;
    const cc = clusterCatalog();
    const message =
      'source catalog content: the catalog image was not pulled and stored within the ingest timeout of 20ms (catalogd --ingest-timeout); retrying in 5m0s at the earliest';
    await expect(step.run(catalogStepState(cc))).rejects.toThrow(message);
    expect(conditions(cc)?.[0]).toEqual(['Progressing', 'True', 'Retrying', message]);
    expect(memory.held.get('ops')).toBeDefined();
  });

  it('reports nothing for a cancelled reconcile and rethrows its reason', async () => {
    const { calls, images, events, memory, step } = setup();
    images.state.hang = true;
    const cancel = new AbortController();
    const cc = clusterCatalog();
    const running = step.run(catalogStepState(cc, { signal: cancel.signal }));
    // Even an error past a limit holds nothing once the reconcile is cancelled.
    const reason = new LimitExceededError('reconcile cancelled: the ClusterCatalog was deleted');
    cancel.abort(reason);
    await expect(running).rejects.toBe(reason);
    expect(calls).toEqual([`resolve ${IMAGE}`]);
    expect(conditions(cc)).toEqual([NEVER_SERVED]);
    expect(events).toEqual([]);
    expect(memory.held.get('ops')).toBeUndefined();
  });
});
