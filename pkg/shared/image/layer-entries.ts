/**
 * An image's layers read as one stream of tree entries, for consumers that can use the
 * content without unpacking it (catalogd's streamed catalog ingest). Names are cleaned and
 * filtered exactly as `applyLayer` does before it writes anything, so an entry is here if and
 * only if the unpacker would act on it; what the unpacker would do with links, whiteouts and
 * special files is not reproduced: they come out as `other` for the consumer to refuse.
 */
import { decompress } from './decompress.ts';
import { goCleanPath } from './go-path.ts';
import type { ImageBudget } from './limits.ts';
import type { EntryFilter } from './path-filter.ts';
import { readTar } from './tar-reader.ts';

/** One kept entry; `body` yields a file's bytes (skipped when not read). */
interface LayerEntry {
  /** Cleaned path relative to the image root, without a leading `/`. */
  path: string;
  kind: 'file' | 'dir' | 'other';
  /** For `other`: what the entry is, for messages. */
  what?: string;
  body: AsyncIterable<Buffer>;
}

const WHITEOUT_PREFIX = '.wh.';

function describe(type: string, base: string): string | undefined {
  if (base.startsWith(WHITEOUT_PREFIX)) return 'a whiteout';
  if (type === 'file' || type === 'dir') return undefined;
  return type === 'other' ? 'an entry of an unknown tar type' : `a ${type}`;
}

/**
 * Yields the entries of each layer blob in turn (compressed or plain tar, sniffed), keeping
 * those `filter` keeps. Each blob is read to its end, bytes after the tar's end marker included,
 * so a verifying source sees all of it. With `options.budget` (one layer per blob, in order),
 * decompressed bytes and kept entries are counted as the unpacker counts them, each entry
 * before it is yielded.
 *
 * @throws the decompressor's, the tar reader's or the filter's errors; ImageLimitError.
 */
export async function* readLayerEntries(
  blobs: Iterable<AsyncIterable<Buffer>> | AsyncIterable<AsyncIterable<Buffer>>,
  filter?: EntryFilter,
  options: { chunkSize?: number; budget?: ImageBudget | undefined } = {},
): AsyncGenerator<LayerEntry> {
  const budget = options.budget;
  const onBytes = budget === undefined ? undefined : (n: number): void => budget.decompressed(n);
  for await (const blob of blobs) {
    budget?.nextLayer();
    const source = decompress(blob, { chunkSize: options.chunkSize, onBytes });
    try {
      for await (const { header, body } of readTar(source)) {
        const path = goCleanPath(header.name.startsWith('/') ? header.name.slice(1) : header.name);
        if (path === '.' || path === '..' || path.startsWith('../')) continue;
        if (filter !== undefined && !filter(header.name)) continue;
        budget?.entry(header.type === 'file' ? header.size : 0);
        const what = describe(header.type, path.slice(path.lastIndexOf('/') + 1));
        if (what !== undefined) yield { path, kind: 'other', what, body };
        else yield { path, kind: header.type as 'file' | 'dir', body };
      }
      for await (const _ of source) {
        // bytes after the end-of-archive marker: read for the blob's digest check
      }
    } finally {
      await source.return(undefined).catch(() => undefined);
    }
  }
}
