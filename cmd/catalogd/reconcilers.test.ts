// The assembled ClusterCatalog reconciler (reconcilers.ts) end to end over fakes of its ports
// and of the API server: the finalizer, status and events a catalog's life produces, what is
// pulled when, and what a failure leaves for the next reconcile. The same behaviour on real
// components is proven by test/integration/catalogd.test.ts and test/e2e/catalogd-*.test.ts.
import pino from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CatalogMemory, PollSchedule } from '../../pkg/catalogd/clustercatalog/index.ts';
import type { ClusterCatalogStatus } from '../../pkg/shared/api/index.ts';
import type { ReconcileContext, StatusClient } from '../../pkg/shared/controller/index.ts';
import { LimitExceededError } from '../../pkg/shared/errors/index.ts';
import { ApiError, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { catalogReconciler } from './reconcilers.ts';
import {
  DIGEST_1,
  DIGEST_2,
  IMAGE,
  clusterCatalog,
  digestRef,
  fakeClock,
  fakeEvents,
  fakeImages,
  fakeStore,
  fakeUnpackCache,
  type CatalogOptions,
} from '../../test/support/catalog-fakes.ts';

const FINALIZER = 'olm.operatorframework.io/delete-server-cache';
const MINUTE = 60_000;
/** A poll interval of 10 minutes stretched by the schedule's jitter (random 0.5: 0.5%). */
const NEXT_POLL = 603_000;

/** The API server holding ClusterCatalog `ops`; status PUTs and finalizer patches are recorded and applied. */
function apiServer(o: CatalogOptions) {
  let stored: KubeObject | undefined = { ...clusterCatalog(o), apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog' };
  const writes: string[] = [];
  const live = (): KubeObject => {
    if (stored === undefined) throw new ApiError(404, 'NotFound', 'clustercatalogs.olm.operatorframework.io "ops" not found');
    return stored;
  };
  const client = {
    get: async <T extends KubeObject>() => structuredClone(live()) as T,
    updateStatus: async <T extends KubeObject>(obj: KubeObject) => {
      writes.push('status');
      stored = { ...live(), status: structuredClone(obj.status) };
      return structuredClone(stored) as T;
    },
    patch: async <T extends KubeObject>(_ref: unknown, body: { metadata: { finalizers: string[] } }) => {
      const { finalizers } = body.metadata;
      writes.push(`finalizers [${finalizers.join(' ')}]`);
      const obj = live();
      // The API server removes an object being deleted once its last finalizer is gone.
      stored =
        obj.metadata.deletionTimestamp !== undefined && finalizers.length === 0 ? undefined : { ...obj, metadata: { ...obj.metadata, finalizers } };
      return structuredClone(stored ?? obj) as T;
    },
  } satisfies StatusClient;
  return {
    client,
    writes,
    status: () => live().status as ClusterCatalogStatus | undefined,
    gone: () => stored === undefined,
    edit: (fn: (obj: KubeObject) => void) => fn(live()),
  };
}

/** The reconciler as cmd/catalogd assembles it, over fakes; `ops` polls every 10 minutes unless told otherwise. */
function setup(o: CatalogOptions = { pollIntervalMinutes: 10 }) {
  const calls: string[] = [];
  const api = apiServer(o);
  const store = fakeStore(calls);
  const images = fakeImages(calls);
  const events = fakeEvents();
  const clock = fakeClock();
  const memory = new CatalogMemory();
  const registry = new Registry();
  const reconciler = catalogReconciler({
    client: api.client,
    events: events.recorder,
    images: images.images,
    unpackCache: fakeUnpackCache(calls),
    store: store.store,
    baseURL: (name) => `https://catalogd.test/catalogs/${name}`,
    registry,
    memory,
    clock: clock.now,
    schedule: new PollSchedule({ random: () => 0.5 }),
    ingestTimeoutMs: 60_000,
    limitRetryFloorMs: 5 * MINUTE,
  });
  const ctx = (): ReconcileContext => ({ signal: new AbortController().signal, log: pino({ level: 'silent' }) });
  return { api, calls, store, images, events: events.events, clock, memory, registry, reconcile: () => reconciler.reconcile('ops', ctx()) };
}

const conditions = (status: ClusterCatalogStatus | undefined) => status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]);
const SERVING = [
  ['Progressing', 'True', 'Succeeded', 'Successfully unpacked and stored content from resolved source'],
  ['Serving', 'True', 'Available', 'Serving desired content from resolved source'],
];

describe('ClusterCatalog reconciler', () => {
  it('adds the finalizer, then stores and serves the content, then waits for the poll', async () => {
    const { api, calls, events, reconcile } = setup();
    await expect(reconcile()).resolves.toEqual({});
    expect(api.writes).toEqual([`finalizers [${FINALIZER}]`]);
    expect(calls).toEqual([]);

    await expect(reconcile()).resolves.toEqual({ requeueAfterMs: NEXT_POLL });
    expect(calls).toEqual([`resolve ${IMAGE}`, `open ${IMAGE}`, `store ops ${DIGEST_1} from layers`, 'unpack-cache delete ops']);
    expect(api.writes).toEqual([`finalizers [${FINALIZER}]`, 'status']);
    expect(conditions(api.status())).toEqual(SERVING);
    expect(api.status()).toMatchObject({
      resolvedSource: { type: 'Image', image: { ref: digestRef(DIGEST_1) } },
      urls: { base: 'https://catalogd.test/catalogs/ops' },
      lastUnpacked: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
    expect(events).toEqual([`Normal Unpacked: Unpacked and serving ${digestRef(DIGEST_1)}`]);

    // Our own status write brings the catalog back: nothing to do until the poll.
    await expect(reconcile()).resolves.toEqual({ requeueAfterMs: 10 * MINUTE });
    expect(calls).toHaveLength(4);
    expect(api.writes).toHaveLength(2);
  });

  it('polls the tag: the same digest pulls and writes nothing, a new one is stored and served', async () => {
    const { api, calls, images, events, clock, reconcile } = setup({ pollIntervalMinutes: 10, finalizers: [FINALIZER] });
    await reconcile();

    clock.advance(10 * MINUTE);
    await expect(reconcile()).resolves.toEqual({ requeueAfterMs: NEXT_POLL });
    expect(calls.slice(4)).toEqual([`resolve ${IMAGE}`]);
    expect(api.writes).toEqual(['status']);

    images.state.digest = DIGEST_2;
    clock.advance(10 * MINUTE);
    await expect(reconcile()).resolves.toEqual({ requeueAfterMs: NEXT_POLL });
    expect(calls.slice(5)).toEqual([`resolve ${IMAGE}`, `open ${IMAGE}`, `store ops ${DIGEST_2} from layers`, 'unpack-cache delete ops']);
    expect(api.writes).toEqual(['status', 'status']);
    expect(api.status()?.resolvedSource?.image.ref).toBe(digestRef(DIGEST_2));
    expect(events).toHaveLength(2);
  });

  it('reports a failure, forgets what it knew, and checks the source again on the next reconcile', async () => {
    const { api, calls, images, memory, reconcile } = setup({ pollIntervalMinutes: 10, finalizers: [FINALIZER] });
    await reconcile();
    // Someone edits the status: the next reconcile recomputes it, and the registry is down.
    api.edit((obj) => void (obj.status as ClusterCatalogStatus).conditions?.splice(0, 1));
    images.fail.resolve = new Error('registry down');
    await expect(reconcile()).rejects.toThrow('source catalog content: registry down');
    expect(conditions(api.status())).toEqual([SERVING[1], ['Progressing', 'True', 'Retrying', 'source catalog content: registry down']]);
    expect(memory.polls.get('ops')).toBeUndefined();

    delete images.fail.resolve;
    await expect(reconcile()).resolves.toEqual({ requeueAfterMs: NEXT_POLL });
    expect(calls.filter((c) => c.startsWith('resolve'))).toHaveLength(3);
    expect(conditions(api.status())).toEqual([SERVING[1], SERVING[0]]);
  });

  it('rests a catalog that failed for a resource limit until the retry floor', async () => {
    const { api, calls, store, clock, reconcile } = setup({ finalizers: [FINALIZER] });
    store.fail.store = new LimitExceededError('the catalog content exceeds 10 MiB');
    const message = 'error storing fbc: the catalog content exceeds 10 MiB; retrying in 5m0s at the earliest';
    await expect(reconcile()).rejects.toThrow(message);
    expect(conditions(api.status())).toEqual([
      ['Progressing', 'True', 'Retrying', message],
      ['Serving', 'False', 'Unavailable', 'No content unpacked yet: see the Progressing condition'],
    ]);
    const tried = calls.length;

    clock.advance(5 * MINUTE - 1);
    await expect(reconcile()).rejects.toThrow(message);
    expect(calls).toHaveLength(tried);

    clock.advance(1);
    delete store.fail.store;
    await expect(reconcile()).resolves.toEqual({});
    expect(conditions(api.status())).toEqual([SERVING[0], ['Serving', 'True', 'Available', 'Serving desired content from resolved source']]);
  });

  it('removes the content of an Unavailable catalog and its finalizer', async () => {
    const { api, calls, store, reconcile } = setup({ availabilityMode: 'Unavailable', finalizers: [FINALIZER] });
    store.seed('ops', DIGEST_1);
    await expect(reconcile()).resolves.toEqual({});
    expect(calls).toEqual(['store delete ops', 'unpack-cache delete ops']);
    expect(api.writes).toEqual(['status', 'finalizers []']);
    expect(conditions(api.status())).toEqual([
      ['Progressing', 'True', 'Succeeded', 'Catalog availability mode is set to Unavailable'],
      ['Serving', 'False', 'UserSpecifiedUnavailable', 'Catalog availability mode is set to Unavailable'],
    ]);
  });

  it('removes the content of a deleted catalog, then its finalizer, and the catalog is gone', async () => {
    const { api, calls, store, reconcile } = setup({ pollIntervalMinutes: 10, finalizers: [FINALIZER] });
    await reconcile();
    api.edit((obj) => (obj.metadata.deletionTimestamp = '2026-01-01T00:00:00Z'));
    await expect(reconcile()).resolves.toEqual({});
    expect(calls.slice(4)).toEqual(['store delete ops', 'unpack-cache delete ops']);
    expect(store.content.has('ops')).toBe(false);
    expect(api.writes).toEqual(['status', 'status', 'finalizers []']);
    expect(api.gone()).toBe(true);
    await expect(reconcile()).resolves.toBeUndefined();
  });

  it('fails terminally for an object that does not parse, writing nothing', async () => {
    const { api, calls, memory, reconcile } = setup({ finalizers: [FINALIZER] });
    memory.polls.set('ops', {
      digest: DIGEST_1,
      digestRef: digestRef(DIGEST_1),
      unpackedAt: new Date(0),
      lastSuccessfulPoll: new Date(0),
      observedGeneration: 1,
    });
    api.edit((obj) => ((obj.spec as { source: unknown }).source = { type: 'Image' }));
    await expect(reconcile()).rejects.toMatchObject({
      name: 'TerminalError',
      message: expect.stringContaining('ClusterCatalog "ops" is invalid: spec.source.image'),
    });
    expect([api.writes, calls]).toEqual([[], []]);
    expect(memory.polls.get('ops')).toBeUndefined();
  });

  it('observes the duration of each step that ran', async () => {
    const { registry, reconcile } = setup();
    await reconcile();
    await reconcile();
    const text = await registry.getSingleMetricAsString('controller_reconcile_step_duration_seconds');
    const counts = Object.fromEntries(
      [...text.matchAll(/^controller_reconcile_step_duration_seconds_count\{controller="([^"]+)",step="([^"]+)"\} (\d+)$/gm)].map((m) => [
        `${m[1]}/${m[2]}`,
        Number(m[3]),
      ]),
    );
    const step = (name: string) => `catalogd-clustercatalog-controller/${name}`;
    expect(counts).toEqual({
      [step('availability')]: 2,
      [step('finalizers')]: 2,
      [step('poll')]: 1,
      [step('hold')]: 1,
      [step('content')]: 1,
      [step('serving')]: 1,
    });
  });
});
