/**
 * Streams an image's layers into a directory: each blob verified while read, decompressed by
 * sniffing, parsed as tar and applied in order, never held in memory or staged on disk.
 */
import { decompress } from './decompress.ts';
import { BlobMismatchError } from './digest.ts';
import { removeEscapingSymlinks } from './fs-tree.ts';
import { applyLayer, type UnpackLog } from './layer-apply.ts';
import { ImageLimitError, type ImageBudget } from './limits.ts';
import type { Descriptor } from './manifest.ts';
import type { EntryFilter } from './path-filter.ts';
import type { RegistryClient, Repository } from './registry-client.ts';
import { readTar, TarFormatError } from './tar-reader.ts';

/** Marks errors that came from reading a layer (network, digest, decompression). */
class LayerReadError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'LayerReadError';
  }
}

async function* markReadErrors(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  try {
    yield* source;
  } catch (err) {
    throw new LayerReadError(err);
  }
}

function layerError(kind: 'reading' | 'applying', index: number, err: unknown): Error {
  const inner = err instanceof LayerReadError ? err.cause : err;
  // A cap's message names the image and the layer already.
  if (inner instanceof ImageLimitError) return inner;
  const message = inner instanceof Error ? inner.message : String(inner);
  return new Error(`error ${kind} layer[${index}]: ${message}`, { cause: inner });
}

/**
 * After a decompression or tar failure, reads the rest of the verified blob: a corrupt blob's
 * digest mismatch is the real cause and is returned instead of the symptom.
 */
async function drainForMismatch(verified: AsyncIterable<Buffer>): Promise<BlobMismatchError | undefined> {
  try {
    for await (const _ of verified) {
      // discarded
    }
  } catch (err) {
    if (err instanceof BlobMismatchError) return err;
  }
  return undefined;
}

/** What to unpack and how. */
interface UnpackRequest {
  registry: RegistryClient;
  repo: Repository;
  layers: readonly Descriptor[];
  dir: string;
  filter?: EntryFilter | undefined;
  log?: UnpackLog | undefined;
  signal?: AbortSignal | undefined;
  /** The image's caps: checked while streaming, before anything past them is written. */
  budget?: ImageBudget | undefined;
}

/**
 * Applies every layer of the request into `dir` (which must exist), then removes symlinks
 * that would resolve outside `dir`.
 *
 * @throws Error `error reading layer[<i>]: <cause>` when a blob cannot be fetched, fails its
 *   digest/size check or cannot be decompressed; `error applying layer[<i>]: <cause>` when its
 *   tar content cannot be applied; ImageLimitError (naming image and layer) when a cap is
 *   crossed. `dir` is left as is: the caller removes it.
 */
export async function unpackLayers(req: UnpackRequest): Promise<void> {
  const budget = req.budget;
  for (const [index, layer] of req.layers.entries()) {
    let opened: Awaited<ReturnType<RegistryClient['openBlob']>>;
    try {
      budget?.nextLayer();
      opened = await req.registry.openBlob(req.repo, { digest: layer.digest, size: layer.size }, req.signal);
    } catch (err) {
      throw layerError('reading', index, err);
    }
    const onBytes = budget === undefined ? undefined : (n: number): void => budget.decompressed(n);
    const source = markReadErrors(decompress(opened.stream, { onBytes }));
    try {
      await applyLayer(req.dir, readTar(source), { filter: req.filter, log: req.log, budget });
      // Bytes after the end-of-archive marker still count for the digest: read them too.
      for await (const _ of source) {
        // discarded
      }
    } catch (err) {
      // Garbled data is usually a corrupt blob: prefer its digest mismatch as the cause. (Not
      // for a cap: reading on is what the cap is there to prevent.)
      if ((err instanceof LayerReadError && !(err.cause instanceof ImageLimitError)) || err instanceof TarFormatError) {
        const mismatch = await drainForMismatch(opened.stream);
        if (mismatch !== undefined) throw layerError('reading', index, mismatch);
      }
      throw layerError(err instanceof LayerReadError ? 'reading' : 'applying', index, err);
    } finally {
      opened.body.destroy();
      // Ends the decompressor pipeline if applying stopped early.
      await source.return(undefined).catch(() => undefined);
    }
    req.log?.debug({ layer: index, digest: layer.digest }, 'applied layer');
  }
  const removed = await removeEscapingSymlinks(req.dir);
  if (removed.length > 0) req.log?.warn({ symlinks: removed }, 'removed symlinks pointing outside the image');
}
