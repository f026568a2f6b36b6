/**
 * Bundle images for operator-controller, handled as upstream handles a resolved bundle's image
 * (decisions 0050 and 0067): pulled with pkg/shared/image (every blob verified against its
 * digest), unpacked read-only into the digest-keyed cache under the extension's name, and parsed
 * as a registry+v1 bundle. The cache keeps one image per extension: after a successful pull the
 * extension's other digests are removed, and deleting the extension removes its directory, so the
 * cache is bounded by the extensions.
 */
import { OLM_PROPERTIES_ANNOTATION, parseBundle, readBundleDir, type RegistryV1Bundle } from '../bundle/index.ts';
import {
  canonicalReference,
  parseImageReference,
  type ImageCache,
  type ImageReference,
  type PullOptions,
  type PullResult,
} from '../../shared/image/index.ts';

/** The image operations needed here (ImageClient satisfies it). */
interface BundleImages {
  pull(ref: string, options: PullOptions): Promise<PullResult>;
}

/** A pulled and parsed bundle. */
export interface FetchedBundle {
  bundle: RegistryV1Bundle;
  /** `<repository>@<digest>` of what was pulled. */
  digestRef: string;
  fromCache: boolean;
}

/**
 * Pulls `ref` for `owner` (cache first; tag references are resolved to a digest first) and
 * parses it. Throws the pull's error (TerminalError for a bad reference) or an Error with
 * the parser's message.
 */
export async function fetchBundle(images: BundleImages, cache: ImageCache, owner: string, ref: string, signal?: AbortSignal): Promise<FetchedBundle> {
  const pulled = await images.pull(ref, { owner, cache, ...(signal === undefined ? {} : { signal }) });
  const parsed = parseBundle(await readBundleDir(pulled.dir));
  if (!parsed.ok) throw new Error(parsed.error);
  if (!pulled.fromCache) await cache.garbageCollect(owner, pulled.digest);
  return { bundle: parsed.value, digestRef: pulled.digestRef, fromCache: pulled.fromCache };
}

/**
 * The bundle `owner`'s cache holds for `ref` when `ref` is a digest reference, read without
 * any registry call; undefined for a tag reference, an unparseable one (the pull reports it)
 * or a digest not in the cache. Throws when the cached tree cannot be read or parsed.
 */
export async function cachedBundle(cache: ImageCache, owner: string, ref: string): Promise<FetchedBundle | undefined> {
  let parsed: ImageReference;
  try {
    parsed = parseImageReference(ref);
  } catch {
    return undefined;
  }
  if (parsed.digest === undefined) return undefined;
  const entry = await cache.fetch(owner, parsed.digest);
  if (entry === undefined) return undefined;
  const bundle = parseBundle(await readBundleDir(entry.dir));
  if (!bundle.ok) throw new Error(bundle.error);
  return { bundle: bundle.value, digestRef: canonicalReference(parsed, parsed.digest), fromCache: true };
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
