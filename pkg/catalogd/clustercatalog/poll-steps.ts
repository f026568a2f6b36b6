/** The poll, hold and serving steps of the ClusterCatalog reconciler, around the content step. */
import type { ClusterCatalog } from '../../shared/api/index.ts';
import { PanicError, jsonEqual, type Step } from '../../shared/controller/index.ts';
import type { CatalogMemory } from './catalog-memory.ts';
import type { CatalogState, CatalogStore } from './catalog-reconciler.ts';
import type { PollEntry, PollSchedule } from './poll-state.ts';
import { knownConditionsOnly, setProgressingError, setServing } from './status.ts';

/** `status.urls.base` of a catalog: `<scheme>://<external address>/catalogs/<name>`. */
type BaseURL = (name: string) => string;

/**
 * Upstream's "unpack needed" rule: while the last successful reconcile's content is stored, its
 * generation current, no poll due and the status what it wrote, the step stops (requeued after
 * the rest of the poll interval, if polling). Otherwise, or without a poll entry, it continues.
 */
export function pollStep(deps: {
  store: Pick<CatalogStore, 'contentExists'>;
  memory: CatalogMemory;
  schedule: PollSchedule;
  baseURL: BaseURL;
}): Step<CatalogState> {
  return {
    name: 'poll',
    run({ catalog, now }) {
      const entry = deps.memory.polls.get(catalog.metadata.name);
      if (entry === undefined || needsUnpack(deps, catalog, entry, now)) return undefined;
      const wait = deps.schedule.remaining(entry, catalog.spec.source.image.pollIntervalMinutes, now);
      return wait === undefined ? {} : { requeueAfterMs: wait };
    },
  };
}

function needsUnpack(
  deps: { store: Pick<CatalogStore, 'contentExists'>; schedule: PollSchedule; baseURL: BaseURL },
  cc: ClusterCatalog,
  entry: PollEntry,
  now: Date,
): boolean {
  const name = cc.metadata.name;
  if (!deps.store.contentExists(name, entry.digest)) return true;
  if ((cc.metadata.generation ?? 0) !== entry.observedGeneration) return true;
  if (deps.schedule.remaining(entry, cc.spec.source.image.pollIntervalMinutes, now) === 0) return true;
  // Someone changed status (or a condition lags): recompute it.
  const expected = structuredClone(cc.status ?? {});
  expected.conditions = knownConditionsOnly(expected.conditions);
  const probe: ClusterCatalog = { ...cc, status: expected };
  setServing(probe, { digestRef: entry.digestRef, baseURL: deps.baseURL(name), unpackedAt: entry.unpackedAt });
  return !jsonEqual(cc.status, probe.status);
}

/**
 * A catalog held after a failure for a resource limit at its current generation does not start
 * the same work again before the hold ends, whatever started the reconcile: Progressing reports
 * the held error again and the step throws it. Otherwise the hold is released.
 */
export function holdStep(deps: { memory: CatalogMemory }): Step<CatalogState> {
  return {
    name: 'hold',
    run({ catalog, now }) {
      const name = catalog.metadata.name;
      const held = deps.memory.held.get(name);
      if (held !== undefined && held.generation === (catalog.metadata.generation ?? 0) && now.getTime() < held.until) {
        setProgressingError(catalog, held.error);
        throw held.error;
      }
      deps.memory.held.delete(name);
      return undefined;
    },
  };
}

/**
 * Stored content (state.served): status says it is served from its digest reference, the poll
 * entry records it, and the reconcile is requeued after the (jittered) poll interval, if any.
 */
export function servingStep(deps: { baseURL: BaseURL; memory: CatalogMemory; schedule: PollSchedule }): Step<CatalogState> {
  return {
    name: 'serving',
    run({ catalog, now, served }) {
      if (served === undefined) throw new PanicError('the serving step ran without stored content (is the content step before it?)');
      const name = catalog.metadata.name;
      const unpackedAt = new Date(served.info.unpackedAt);
      setServing(catalog, { digestRef: served.info.ref, baseURL: deps.baseURL(name), unpackedAt });
      deps.memory.polls.set(name, {
        digest: served.info.digest,
        digestRef: served.info.ref,
        unpackedAt,
        lastSuccessfulPoll: now,
        observedGeneration: catalog.metadata.generation ?? 0,
      });
      const next = deps.schedule.nextAfterSuccess(catalog.spec.source.image.pollIntervalMinutes);
      return next === undefined ? {} : { requeueAfterMs: next };
    },
  };
}
