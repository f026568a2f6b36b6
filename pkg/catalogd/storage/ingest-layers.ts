/**
 * Streamed ingest: the catalog image's layers go from the registry through decompression, the
 * tar reader and the FBC decoder straight into the stored content, without the unpacked tree
 * that the directory ingest walks (decision 0086). It applies when the layers read like a walk
 * of that tree (pkg/fbc entry-walk.ts); when they do not, or anything but the catalog's own
 * content fails, the caller falls back to unpacking, which then reports any error exactly as
 * before.
 */
import { FbcLoadError, walkEntryDocuments } from '../../fbc/index.ts';
import type { Meta } from '../../fbc/types.ts';
import { onlyPath, readLayerEntries } from '../../image/index.ts';
import { type ContentSummary, writeCatalogContent } from './content-writer.ts';

/** The layers of a catalog image, each opened on demand as a verified byte stream. */
export interface CatalogLayers {
  /** The directory the configs label names; entries outside it are ignored (undefined: none). */
  pathFilter: string | undefined;
  layers: ReadonlyArray<{ size: number; open(): AsyncIterable<Buffer> }>;
}

/**
 * The catalog's content is invalid: a document failed to decode. Thrown only once every layer
 * has been read to its end (so digests were verified) and the stream was found to read like
 * the directory walk, so this is the error the directory ingest reports too.
 */
export class CatalogContentError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CatalogContentError';
  }
}

/**
 * Writes the content of the catalog the layer blobs carry into `targetDir`. `blobs` yields
 * each layer's bytes in turn, verified by the caller.
 *
 * @throws CatalogContentError for a decoding error; NeedsUnpackError when the layers must be
 *   unpacked to be read; other errors (a blob's, a tar's, a disk's) as they are.
 */
export async function ingestLayerBlobs(
  blobs: Iterable<AsyncIterable<Buffer>> | AsyncIterable<AsyncIterable<Buffer>>,
  pathFilter: string | undefined,
  targetDir: string,
): Promise<ContentSummary> {
  const entries = readLayerEntries(blobs, pathFilter === undefined ? undefined : onlyPath(pathFilter));
  try {
    return await writeCatalogContent(targetDir, metasOf(walkEntryDocuments(entries)));
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
  );
}

async function* metasOf(docs: AsyncIterable<{ meta: Meta }>): AsyncGenerator<Meta> {
  for await (const { meta } of docs) yield meta;
}
