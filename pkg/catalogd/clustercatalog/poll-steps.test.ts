// The poll, hold and serving steps over fake ports and a CatalogMemory the tests seed: when a
// reconcile has nothing to do, when a held catalog rests, and what serving content writes.
import { describe, expect, it } from 'vitest';
import type { ClusterCatalog } from '../../shared/api/index.ts';
import type { Step } from '../../shared/controller/index.ts';
import type { CatalogState } from './catalog-reconciler.ts';
import { CatalogMemory } from './catalog-memory.ts';
import { PollSchedule, type PollEntry } from './poll-state.ts';
import { holdStep, pollStep, servingStep } from './poll-steps.ts';
import { setServing } from './status.ts';
import { DIGEST_1, DIGEST_2, catalogStepState, clusterCatalog, digestRef, fakeStore } from '../../../test/support/catalog-fakes.ts';

const MINUTE = 60_000;
const T0 = new Date(86_400_000);
const baseURL = (name: string) => `https://catalogd.test/catalogs/${name}`;
const schedule = new PollSchedule({ random: () => 0.5 });

/** Runs `step` as the runner does: a synchronous throw becomes a rejection. */
const run = async (step: Step<CatalogState>, state: CatalogState) => step.run(state);

/** What a successful reconcile at T0 remembers of DIGEST_1. */
const entry = (o: Partial<PollEntry> = {}): PollEntry => ({
  digest: DIGEST_1,
  digestRef: digestRef(DIGEST_1),
  unpackedAt: new Date('2026-01-01T00:00:00Z'),
  lastSuccessfulPoll: T0,
  observedGeneration: 1,
  ...o,
});

/** `ops` as that reconcile left it: status written, content stored, entry remembered. */
function served(o: { pollIntervalMinutes?: number; generation?: number } = {}) {
  const cc = clusterCatalog({ pollIntervalMinutes: o.pollIntervalMinutes, generation: o.generation });
  setServing(cc, { digestRef: digestRef(DIGEST_1), baseURL: baseURL('ops'), unpackedAt: entry().unpackedAt });
  const { store, seed } = fakeStore([]);
  seed('ops', DIGEST_1);
  const memory = new CatalogMemory();
  memory.polls.set('ops', entry());
  return { cc, store, memory, poll: pollStep({ store, memory, schedule, baseURL }) };
}

describe('poll step', () => {
  it('goes on for a catalog it knows nothing of', async () => {
    const { cc, store } = served({ pollIntervalMinutes: 10 });
    const poll = pollStep({ store, memory: new CatalogMemory(), schedule, baseURL });
    expect(await poll.run(catalogStepState(cc, { now: T0 }))).toBeUndefined();
  });

  it('stops with the rest of the poll interval when nothing changed', async () => {
    const { cc, poll } = served({ pollIntervalMinutes: 10 });
    expect(await poll.run(catalogStepState(cc, { now: new Date(T0.getTime() + 4 * MINUTE) }))).toEqual({ requeueAfterMs: 6 * MINUTE });
  });

  it('stops without a requeue when nothing changed and the catalog is not polled', async () => {
    const { cc, poll } = served();
    expect(await poll.run(catalogStepState(cc, { now: new Date(T0.getTime() + 600 * MINUTE) }))).toEqual({});
  });

  it('goes on when a poll is due', async () => {
    const { cc, poll } = served({ pollIntervalMinutes: 10 });
    expect(await poll.run(catalogStepState(cc, { now: new Date(T0.getTime() + 10 * MINUTE) }))).toBeUndefined();
  });

  it('goes on when the generation changed', async () => {
    const { cc, poll } = served({ pollIntervalMinutes: 10 });
    cc.metadata.generation = 2;
    expect(await poll.run(catalogStepState(cc, { now: T0 }))).toBeUndefined();
  });

  it('goes on when the stored content is gone', async () => {
    const { cc, store, poll } = served({ pollIntervalMinutes: 10 });
    await store.delete('ops');
    expect(await poll.run(catalogStepState(cc, { now: T0 }))).toBeUndefined();
  });

  it.each([
    ['a condition', (cc: ClusterCatalog) => cc.status?.conditions?.splice(0, 1)],
    ['the base URL', (cc: ClusterCatalog) => (cc.status!.urls = { base: 'http://elsewhere/catalogs/ops' })],
    ['the resolved source', (cc: ClusterCatalog) => (cc.status!.resolvedSource = { type: 'Image', image: { ref: digestRef(DIGEST_2) } })],
    ['the whole status', (cc: ClusterCatalog) => delete cc.status],
  ])('goes on when someone changed %s, leaving the working copy alone', async (_what, drift) => {
    const { cc, poll } = served({ pollIntervalMinutes: 10 });
    drift(cc);
    const before = structuredClone(cc);
    expect(await poll.run(catalogStepState(cc, { now: T0 }))).toBeUndefined();
    expect(cc).toEqual(before);
  });
});

describe('hold step', () => {
  const held = () => ({
    generation: 1,
    until: T0.getTime() + 5 * MINUTE,
    error: new Error('source catalog content: too big; retrying in 5m0s at the earliest'),
  });

  it('rests a held catalog until the floor: Progressing reports the held error again, which is thrown', async () => {
    const memory = new CatalogMemory();
    const h = held();
    memory.held.set('ops', h);
    const cc = clusterCatalog();
    await expect(run(holdStep({ memory }), catalogStepState(cc, { now: new Date(h.until - 1) }))).rejects.toBe(h.error);
    expect(cc.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['Progressing', 'True', 'Retrying', h.error.message],
    ]);
    expect(memory.held.get('ops')).toBe(h);
  });

  it.each([
    ['at the floor', 1, 0],
    ['for another generation', 2, -1],
  ])('releases a hold %s and goes on', async (_when, generation, offset) => {
    const memory = new CatalogMemory();
    const h = held();
    memory.held.set('ops', h);
    const cc = clusterCatalog({ generation });
    await expect(run(holdStep({ memory }), catalogStepState(cc, { now: new Date(h.until + offset) }))).resolves.toBeUndefined();
    expect(cc.status).toBeUndefined();
    expect(memory.held.get('ops')).toBeUndefined();
  });

  it('goes on for a catalog that is not held', async () => {
    expect(await holdStep({ memory: new CatalogMemory() }).run(catalogStepState(clusterCatalog()))).toBeUndefined();
  });
});

describe('serving step', () => {
  const version = { info: { digest: DIGEST_2, ref: digestRef(DIGEST_2), unpackedAt: '2026-02-03T04:05:06.000Z' } };

  it('reports the served content, remembers it as polled at the start of the reconcile and requeues after the interval', async () => {
    const memory = new CatalogMemory();
    const cc = clusterCatalog({ pollIntervalMinutes: 10, generation: 3 });
    const state = { ...catalogStepState(cc, { now: T0 }), served: version };
    // The schedule stretches the interval by up to 1% (random 0.5: 0.5%).
    expect(await servingStep({ baseURL, memory, schedule }).run(state)).toEqual({ requeueAfterMs: 603_000 });
    expect(cc.status).toEqual({
      conditions: [
        expect.objectContaining({
          type: 'Progressing',
          status: 'True',
          reason: 'Succeeded',
          message: 'Successfully unpacked and stored content from resolved source',
          observedGeneration: 3,
        }),
        expect.objectContaining({
          type: 'Serving',
          status: 'True',
          reason: 'Available',
          message: 'Serving desired content from resolved source',
          observedGeneration: 3,
        }),
      ],
      resolvedSource: { type: 'Image', image: { ref: digestRef(DIGEST_2) } },
      urls: { base: 'https://catalogd.test/catalogs/ops' },
      lastUnpacked: '2026-02-03T04:05:06Z',
    });
    expect(memory.polls.get('ops')).toEqual({
      digest: DIGEST_2,
      digestRef: digestRef(DIGEST_2),
      unpackedAt: new Date('2026-02-03T04:05:06.000Z'),
      lastSuccessfulPoll: T0,
      observedGeneration: 3,
    });
  });

  it('does not requeue a catalog that is not polled', async () => {
    const state = { ...catalogStepState(clusterCatalog()), served: version };
    expect(await servingStep({ baseURL, memory: new CatalogMemory(), schedule }).run(state)).toEqual({});
  });

  it('refuses to run without stored content (a step list without the content step before it)', async () => {
    await expect(run(servingStep({ baseURL, memory: new CatalogMemory(), schedule }), catalogStepState(clusterCatalog()))).rejects.toMatchObject({
      name: 'PanicError',
    });
  });
});
