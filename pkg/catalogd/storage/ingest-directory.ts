/** The directory ingest: walk an unpacked FBC directory (pkg/shared/fbc) and write its content (content-writer.ts). */
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
