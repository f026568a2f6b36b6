/**
 * Size limits of catalog decoding, enforced while the bytes stream in (before more than the limit
 * plus one chunk is buffered), failing with a message naming the file, the document's line and
 * the limit. The defaults are far above real catalogs (55 MB at most, documents of a few MB,
 * strings of a MB or two). Nesting depth is pkg/gocompat/goyaml's MAX_NESTING_DEPTH.
 */

/** Limits of one decode (a catalog walk or stream). */
export interface DecodeLimits {
  /** Bytes of one document: a JSON value or a YAML document. */
  maxDocumentBytes: number;
  /** Bytes of one string as written in a document (JSON: between its quotes; YAML: the scalar's text). */
  maxStringBytes: number;
  /** Bytes of all files (or the whole stream) decoded, ignored files excluded. */
  maxCatalogBytes: number;
}

const MiB = 1024 * 1024;

/** Defaults of {@link DecodeLimits}: 16 MiB per document, 8 MiB per string, 256 MiB per catalog. */
export const DEFAULT_DECODE_LIMITS: Readonly<DecodeLimits> = Object.freeze({
  maxDocumentBytes: 16 * MiB,
  maxStringBytes: 8 * MiB,
  maxCatalogBytes: 256 * MiB,
});

/** `limits` over the defaults. */
export function decodeLimits(limits: Partial<DecodeLimits> | undefined): DecodeLimits {
  return {
    maxDocumentBytes: limits?.maxDocumentBytes ?? DEFAULT_DECODE_LIMITS.maxDocumentBytes,
    maxStringBytes: limits?.maxStringBytes ?? DEFAULT_DECODE_LIMITS.maxStringBytes,
    maxCatalogBytes: limits?.maxCatalogBytes ?? DEFAULT_DECODE_LIMITS.maxCatalogBytes,
  };
}

/** The message of a crossed limit. */
export function limitMessage(what: 'document' | 'string' | 'catalog', limit: number): string {
  return `${what} exceeds the limit of ${limit} bytes`;
}
