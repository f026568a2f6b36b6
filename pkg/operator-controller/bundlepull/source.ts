/**
 * Bundle images for operator-controller, handled as upstream handles a resolved bundle's image
 * (decisions 0050 and 0067): pulled with pkg/shared/image (every blob verified against its
 * digest), unpacked read-only into the digest-keyed cache under the extension's name, and parsed
 * as a registry+v1 bundle. The cache keeps one image per extension: after a successful pull the
 * extension's other digests are removed, and deleting the extension removes its directory, so the
 * cache is bounded by the extensions.
 */
import { OLM_PROPERTIES_ANNOTATION, bundleDirBytes, parseBundle, readBundleDir, type RegistryV1Bundle } from '../bundle/index.ts';
import { canonicalReference, parseImageReference, type ImageCache, type ImageClient, type ImageReference } from '../../shared/image/index.ts';
import { LineStore } from '../../shared/lines/index.ts';
import type { BundleBudget, BundleLease } from './budget.ts';

/**
 * Where large bundles' JSON lines go (decision 0098): a bundle of more than `aboveBytes`
 * unpacked keeps its other objects' lines, and then its rendering's, in files under `dir`
 * (pkg/shared/lines) rather than in the heap; so does a release record whose manifest is
 * longer than that (the installed step, steps.ts).
 */
export interface BundleSpill {
  dir: string;
  aboveBytes: number;
}

/**
 * The memory a reconcile reads bundles or release records into (decision 0098): the byte budget
 * each is admitted under (a lease of its bytes, held until the reconcile ends), and where the
 * lines of large ones go. One for bundles, one for records, each its own budget.
 */
export interface MemoryPort {
  budget?: Pick<BundleBudget, 'acquire'>;
  spill?: BundleSpill;
}

/** Where bundles come from: the registry client, the on-disk image cache, and the memory they are read into. */
export interface BundleSource {
  /** The image operation needed here. */
  images: Pick<ImageClient, 'pull'>;
  cache: ImageCache;
  memory?: MemoryPort;
}

/** A pulled and parsed bundle. */
export interface FetchedBundle {
  bundle: RegistryV1Bundle;
  /** `<repository>@<digest>` of what was pulled. */
  digestRef: string;
  fromCache: boolean;
  /**
   * The bundle's share of the memory budget (bundlepull/budget.ts), when one is used: whoever ends
   * up holding the bundle releases it when done with it.
   */
  lease?: BundleLease;
}

/**
 * Reads and parses the bundle tree `dir`, first taking a lease of its bytes from `budget`
 * (when given); the lease is released when the read or parse fails.
 */
async function parseBundleDir(dir: string, memory: MemoryPort, signal?: AbortSignal): Promise<{ bundle: RegistryV1Bundle; lease?: BundleLease }> {
  const { budget, spill } = memory;
  const bytes = budget === undefined && spill === undefined ? 0 : await bundleDirBytes(dir);
  const lease = budget === undefined ? undefined : await budget.acquire(bytes, signal);
  try {
    // The files are handed over: each one's bytes can go once its objects are decoded; the
    // objects the render step only places and labels are kept as JSON lines, in a file for a
    // large bundle (decision 0098).
    const othersAsLines = spill !== undefined && bytes > spill.aboveBytes ? LineStore.file(spill.dir) : true;
    const parsed = parseBundle(await readBundleDir(dir), { consume: true, othersAsLines });
    if (!parsed.ok) throw new Error(parsed.error);
    return { bundle: parsed.value, ...(lease === undefined ? {} : { lease }) };
  } catch (err) {
    lease?.release();
    throw err;
  }
}

/**
 * Pulls `ref` for `owner` (cache first; tag references are resolved to a digest first) and
 * parses it, within the source's memory budget when it has one (the result then holds a
 * lease). Throws the pull's error (TerminalError for a bad reference) or an Error with the
 * parser's message.
 */
export async function fetchBundle(
  source: BundleSource,
  request: { owner: string; ref: string; signal?: AbortSignal | undefined },
): Promise<FetchedBundle> {
  const { images, cache } = source;
  const { owner, ref, signal } = request;
  const pulled = await images.pull(ref, { owner, cache, ...(signal === undefined ? {} : { signal }) });
  const parsed = await parseBundleDir(pulled.dir, source.memory ?? {}, signal);
  try {
    if (!pulled.fromCache) await cache.garbageCollect(owner, pulled.digest);
  } catch (err) {
    parsed.lease?.release();
    throw err;
  }
  return { ...parsed, digestRef: pulled.digestRef, fromCache: pulled.fromCache };
}

/**
 * The bundle `owner`'s cache holds for `ref` when `ref` is a digest reference, read without
 * any registry call (within the source's memory budget when it has one: the result then holds
 * a lease); undefined for a tag reference, an unparseable one (the pull reports it) or a digest
 * not in the cache. Throws when the cached tree cannot be read or parsed.
 */
export async function cachedBundle(
  source: Pick<BundleSource, 'cache' | 'memory'>,
  request: { owner: string; ref: string },
): Promise<FetchedBundle | undefined> {
  const { cache } = source;
  const { owner, ref } = request;
  let parsed: ImageReference;
  try {
    parsed = parseImageReference(ref);
  } catch {
    return undefined;
  }
  if (parsed.digest === undefined) return undefined;
  const entry = await cache.fetch(owner, parsed.digest);
  if (entry === undefined) return undefined;
  const bundle = await parseBundleDir(entry.dir, source.memory ?? {});
  return { ...bundle, digestRef: canonicalReference(parsed, parsed.digest), fromCache: true };
}

/** The bundle's `olm.properties` (CSV annotation merged with metadata/properties.yaml), or []. */
export function bundleProperties(bundle: RegistryV1Bundle): unknown[] {
  const raw = bundle.csv.metadata?.annotations?.[OLM_PROPERTIES_ANNOTATION];
  if (raw === undefined || raw === '') return [];
  try {
    const value: unknown = JSON.parse(raw);
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}
