/**
 * What a streamed ingest is given and the one error it reports as the catalog's own fault, apart
 * from the decoder so catalogd's own process can name them without loading it (decision 0087).
 */

import type { ImageLimits } from '../../shared/image/limits.ts';

/**
 * The layers of a catalog image, each opened on demand as a verified byte stream; a stream
 * ends (throwing) soon after the signal given to `open` aborts.
 */
export interface CatalogLayers {
  /** The directory the configs label names; entries outside it are ignored (undefined: none). */
  pathFilter: string | undefined;
  layers: ReadonlyArray<{ digest?: string; size: number; open(signal?: AbortSignal): AsyncIterable<Buffer> }>;
  /** The image's digest reference and caps, enforced while the layers stream (none without). */
  image?: { ref: string; limits: ImageLimits } | undefined;
}

/**
 * A document of the catalog failed to decode. Thrown only once every layer was read to its end
 * (digests verified) and read like the directory walk: the error the directory ingest reports too.
 */
export class CatalogContentError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CatalogContentError';
  }
}
