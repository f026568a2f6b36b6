/**
 * The directory ingest: walk an unpacked FBC directory as upstream's `WalkMetasFS` does
 * (pkg/shared/fbc walk.ts), decode and normalise every document, and write the catalog content
 * (content-writer.ts). Runs in the ingest process, or on the calling thread through
 * `ingestInProcess` (ingest.ts), which loads this module on first use.
 */
import { type DecodeLimits, walkMetas } from '../../shared/fbc/index.ts';
import type { Meta } from '../../shared/fbc/types.ts';
import { type ContentSummary, writeCatalogContent } from './content-writer.ts';

/** Writes the content of the catalog in `fbcDir` into `targetDir` (existing and empty), within `limits`. */
export function ingestDirectory(fbcDir: string, targetDir: string, limits?: Partial<DecodeLimits>): Promise<ContentSummary> {
  return writeCatalogContent(targetDir, metasOf(fbcDir, limits));
}

async function* metasOf(fbcDir: string, limits: Partial<DecodeLimits> | undefined): AsyncGenerator<Meta> {
  for await (const { meta } of walkMetas(fbcDir, { limits })) yield meta;
}
