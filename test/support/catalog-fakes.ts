/**
 * Fakes of the ClusterCatalog reconciler's ports (pkg/catalogd/clustercatalog
 * catalog-reconciler.ts), each checked with `satisfies` against the port it stands in for, and
 * builders of its typed object and step state, for the unit tests of its steps and of the
 * assembled reconciler (cmd/catalogd/reconcilers.ts). Every fake records what was asked of it in
 * one shared `calls` list, so a test can assert the order of side effects; failures are
 * injected by setting `fail.<operation>`.
 */
import pino from 'pino';
import type { ClusterCatalog, ClusterCatalogStatus } from '../../pkg/shared/api/index.ts';
import type { CatalogImages, CatalogState, CatalogStore } from '../../pkg/catalogd/clustercatalog/index.ts';
import type { VersionInfo } from '../../pkg/catalogd/storage/index.ts';
import { CATALOG_IMAGE_LIMITS, parseImageReference, type ImageCache, type OpenedImage } from '../../pkg/shared/image/index.ts';
import type { EventRecorder } from '../../pkg/shared/kube/index.ts';

/** Two digests of the test image, and its tag reference. */
export const DIGEST_1 = `sha256:${'1'.repeat(64)}`;
export const DIGEST_2 = `sha256:${'2'.repeat(64)}`;
export const IMAGE = 'registry.test/catalogs/ops:latest';

/** The digest reference of the test image at `digest`. */
export function digestRef(digest: string): string {
  return `registry.test/catalogs/ops@${digest}`;
}

/** Options of `clusterCatalog`. */
export interface CatalogOptions {
  generation?: number;
  pollIntervalMinutes?: number;
  availabilityMode?: 'Available' | 'Unavailable';
  finalizers?: string[];
  deletionTimestamp?: string;
  status?: ClusterCatalogStatus;
}

/** ClusterCatalog `ops` of IMAGE, as parseClusterCatalog returns it (generation 1 unless given). */
export function clusterCatalog(o: CatalogOptions = {}): ClusterCatalog {
  const image = { ref: IMAGE, ...(o.pollIntervalMinutes === undefined ? {} : { pollIntervalMinutes: o.pollIntervalMinutes }) };
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: {
      name: 'ops',
      uid: 'uid-ops',
      generation: o.generation ?? 1,
      ...(o.finalizers === undefined ? {} : { finalizers: o.finalizers }),
      ...(o.deletionTimestamp === undefined ? {} : { deletionTimestamp: o.deletionTimestamp }),
    },
    spec: { source: { type: 'Image', image }, priority: 0, availabilityMode: o.availabilityMode ?? 'Available' },
    ...(o.status === undefined ? {} : { status: o.status }),
  };
}

/** The state of one reconcile of `catalog` at `now` (default: the epoch plus one day), optionally cancelled through `signal`. */
export function catalogStepState(catalog: ClusterCatalog, o: { now?: Date; signal?: AbortSignal } = {}): CatalogState {
  return {
    catalog,
    ctx: { signal: o.signal ?? new AbortController().signal, log: pino({ level: 'silent' }) },
    now: o.now ?? new Date(86_400_000),
  };
}

/** A store of `{ info }` versions by catalog name. */
export function fakeStore(calls: string[]) {
  const content = new Map<string, { info: VersionInfo }>();
  const fail: { store?: Error; delete?: Error } = {};
  const store = {
    get: (catalog: string) => content.get(catalog),
    contentExists: (catalog: string, digest?: string) => {
      const v = content.get(catalog);
      return v !== undefined && (digest === undefined || v.info.digest === digest);
    },
    prepareIngest: () => undefined,
    store: async (catalog: string, info: VersionInfo, source: object) => {
      calls.push(`store ${catalog} ${info.digest} from ${'layers' in source ? 'layers' : 'directory'}`);
      if (fail.store !== undefined) throw fail.store;
      const version = { info };
      content.set(catalog, version);
      return version;
    },
    delete: async (catalog: string) => {
      calls.push(`store delete ${catalog}`);
      if (fail.delete !== undefined) throw fail.delete;
      content.delete(catalog);
    },
  } satisfies CatalogStore;
  /** Puts `digest` in the store for `catalog`, as an earlier reconcile (or process) stored it. */
  const seed = (catalog: string, digest: string, unpackedAt = '2026-01-01T00:00:00.000Z'): void => {
    content.set(catalog, { info: { digest, ref: digestRef(digest), unpackedAt } });
  };
  return { store, content, fail, seed };
}

/** An unpack cache that never holds a tree (the layers are always streamed). */
export function fakeUnpackCache(calls: string[]): ImageCache {
  return {
    fetch: async () => undefined,
    store: async () => Promise.reject(new Error('the fake unpack cache stores nothing')),
    garbageCollect: async () => undefined,
    delete: async (owner: string) => void calls.push(`unpack-cache delete ${owner}`),
    owners: async () => [],
    cleanupTemporary: async () => undefined,
  } satisfies ImageCache;
}

/**
 * An image client whose tag IMAGE points at `digest` (settable). With `hang`, resolving waits
 * until its signal aborts and throws the abort reason (an ingest timeout or a cancellation).
 */
export function fakeImages(calls: string[]) {
  const state = { digest: DIGEST_1, hang: false };
  const fail: { resolve?: Error; open?: Error; pull?: Error } = {};
  const images = {
    resolveDigest: async (ref: string, signal?: AbortSignal) => {
      calls.push(`resolve ${ref}`);
      if (state.hang) {
        await new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
      }
      if (fail.resolve !== undefined) throw fail.resolve;
      return { ref: parseImageReference(ref), digest: state.digest, digestRef: digestRef(state.digest) };
    },
    openLayers: async (ref: string): Promise<OpenedImage> => {
      calls.push(`open ${ref}`);
      if (fail.open !== undefined) throw fail.open;
      const digest = state.digest;
      return {
        digest,
        digestRef: digestRef(digest),
        config: { labels: {}, raw: {} },
        pathFilter: '/configs',
        layers: [],
        limits: CATALOG_IMAGE_LIMITS,
      };
    },
    pull: async (ref: string) => {
      calls.push(`pull ${ref}`);
      throw fail.pull ?? new Error('the fake image client streams only');
    },
  } satisfies CatalogImages;
  return { images, state, fail };
}

/** An event recorder keeping `<type> <reason>: <note>` of each event. */
export function fakeEvents() {
  const events: string[] = [];
  const recorder = {
    event: (_regarding, type, reason, _action, note) => void events.push(`${type} ${reason}: ${note}`),
  } satisfies EventRecorder;
  return { recorder, events };
}

/** A clock at `start` that moves only when told. */
export function fakeClock(start = new Date(86_400_000)) {
  let now = start.getTime();
  return { now: () => new Date(now), advance: (ms: number) => void (now += ms) };
}
