/**
 * Streamed ingest: the image's layers go through decompression, the tar reader and the FBC
 * decoder straight into the stored content, without an unpacked tree (decision 0086), when they
 * read like a walk of that tree (pkg/shared/fbc entry-walk.ts); otherwise, or when anything but
 * the catalog's content fails, the caller unpacks, which reports any error as before.
 */
import { type DecodeLimits, FbcLoadError, walkEntryDocuments } from '../../shared/fbc/index.ts';
import type { Meta } from '../../shared/fbc/types.ts';
// The modules themselves, not pkg/shared/image's index: that loads the registry client and its HTTP
// stack, memory the ingest process does not need (decision 0086).
import { readLayerEntries } from '../../shared/image/layer-entries.ts';
import { ImageBudget } from '../../shared/image/limits.ts';
import { onlyPath } from '../../shared/image/path-filter.ts';
import { CatalogContentError, type CatalogLayers } from './catalog-layers.ts';
import { type ContentSummary, writeCatalogContent } from './content-writer.ts';

/**
 * Output chunk of the layer decompressor: 128 KiB makes fewer thread-pool round trips than
 * zlib's 16 KiB (decision 0086) and stays below the ingest process's 256 KiB mmap threshold.
 */
const INFLATE_CHUNK = 128 << 10;

/**
 * Writes the catalog the layer blobs carry (verified by the caller) into `targetDir`, within the
 * decode `limits` and the image's caps (`budget`).
 *
 * @throws CatalogContentError for a decoding error; NeedsUnpackError when the layers must be
 *   unpacked to be read; ImageLimitError for a crossed cap; other errors as they are.
 */
export async function ingestLayerBlobs(
  blobs: Iterable<AsyncIterable<Buffer>> | AsyncIterable<AsyncIterable<Buffer>>,
  pathFilter: string | undefined,
  targetDir: string,
  limits?: Partial<DecodeLimits>,
  budget?: ImageBudget,
): Promise<ContentSummary> {
  const entries = readLayerEntries(blobs, pathFilter === undefined ? undefined : onlyPath(pathFilter), { chunkSize: INFLATE_CHUNK, budget });
  try {
    return await writeCatalogContent(targetDir, metasOf(walkEntryDocuments(entries, { limits })));
  } catch (err) {
    if (err instanceof FbcLoadError) throw new CatalogContentError(err.message, { cause: err });
    throw err;
  }
}

/** Ingests `image` on the calling thread (tests, and stores without an ingest process). */
export function ingestLayersInProcess(image: CatalogLayers, targetDir: string): Promise<ContentSummary> {
  return ingestLayerBlobs(
    image.layers.map((l) => l.open()),
    image.pathFilter,
    targetDir,
    undefined,
    layerBudget(image.image, image.layers),
  );
}

/** The budget of an image's caps over `layers` (undefined without caps). */
export function layerBudget(
  image: CatalogLayers['image'],
  layers: ReadonlyArray<{ digest?: string | undefined; size: number }>,
): ImageBudget | undefined {
  if (image === undefined) return undefined;
  return new ImageBudget(
    image.ref,
    image.limits,
    layers.map((l) => ({ digest: l.digest ?? '', size: l.size })),
  );
}

async function* metasOf(docs: AsyncIterable<{ meta: Meta }>): AsyncGenerator<Meta> {
  for await (const { meta } of docs) yield meta;
}
