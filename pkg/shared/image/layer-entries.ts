/**
 * An image's layers as one stream of tree entries, for consumers that need no unpacking
 * (catalogd's streamed ingest). Names are cleaned and filtered exactly as `applyLayer` does, so
 * an entry is here if and only if the unpacker would act on it; links, whiteouts and special
 * files come out as `other`, for the consumer to refuse.
 */
import type { TreeEntry } from '../fbc/index.ts';
import { decompress } from './decompress.ts';
import { goCleanPath } from './go-path.ts';
import type { ImageBudget } from './limits.ts';
import type { EntryFilter } from './path-filter.ts';
import { readTar } from './tar-reader.ts';

const WHITEOUT_PREFIX = '.wh.';

function describe(type: string, base: string): string | undefined {
  if (base.startsWith(WHITEOUT_PREFIX)) return 'a whiteout';
  if (type === 'file' || type === 'dir') return undefined;
  return type === 'other' ? 'an entry of an unknown tar type' : `a ${type}`;
}

/**
 * Yields the kept entries of each layer blob in turn (compression sniffed), reading each blob to
 * its end for a verifying source; with `options.budget`, bytes and entries are counted as the
 * unpacker counts them, each entry before it is yielded.
 *
 * @throws the decompressor's, the tar reader's or the filter's errors; ImageLimitError.
 */
export async function* readLayerEntries(
  blobs: Iterable<AsyncIterable<Buffer>> | AsyncIterable<AsyncIterable<Buffer>>,
  filter?: EntryFilter,
  options: { chunkSize?: number; budget?: ImageBudget | undefined } = {},
): AsyncGenerator<TreeEntry> {
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
