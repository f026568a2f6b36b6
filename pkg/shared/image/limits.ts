/**
 * Caps on what pulling one image may cost, enforced while its layers stream (decision 0052):
 * decompressed bytes, entries unpacked and their file bytes. A layer crossing one fails before
 * the bytes past it are written, with an {@link ImageLimitError}: a 1 MB gzip layer can inflate
 * to a GB and fill a node's disk.
 */

/** Caps of one image pull (all layers together). */
export interface ImageLimits {
  /** Bytes the layers decompress to (whole tar streams, entries dropped by a filter included). */
  maxDecompressedBytes: number;
  /** Bytes of the regular files unpacked (or streamed to a consumer), checked from each entry's header before its data. */
  maxUnpackedBytes: number;
  /** Entries unpacked: files, directories and links. */
  maxFiles: number;
}

import { LimitExceededError } from '../errors/index.ts';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/**
 * Defaults for catalog images (catalogd): 4 GiB decompressed (a catalog image built on opm's
 * base image carries a few hundred MB of layers beside the catalog), 256 MiB unpacked (the
 * catalog itself: the largest real one is 55 MB) and 100,000 entries.
 */
export const CATALOG_IMAGE_LIMITS: Readonly<ImageLimits> = Object.freeze({
  maxDecompressedBytes: 4 * GiB,
  maxUnpackedBytes: 256 * MiB,
  maxFiles: 100_000,
});

/**
 * Defaults for bundle images (operator-controller, `olmv1 render|rbac IMAGE`): 1 GiB
 * decompressed, 32 MiB unpacked, 10,000 entries. Rendering costs several times a bundle's size
 * (over 100 MB of heap at the cap); operator-controller's bundle budget (decision 0098) admits
 * bundles near it one at a time. Real bundles are a few MB.
 */
export const BUNDLE_IMAGE_LIMITS: Readonly<ImageLimits> = Object.freeze({
  maxDecompressedBytes: 1 * GiB,
  maxUnpackedBytes: 32 * MiB,
  maxFiles: 10_000,
});

/** Which cap an {@link ImageLimitError} is about. */
export type ImageLimitKind = 'decompressed' | 'unpacked' | 'files';

/** The flag that sets each cap in catalogd, operator-controller and olmv1 alike (cmd/shared/limits.ts). */
const LIMIT_FLAGS: Readonly<Record<ImageLimitKind, string>> = {
  decompressed: '--max-image-decompressed-bytes',
  unpacked: '--max-image-unpacked-bytes',
  files: '--max-image-files',
};

/**
 * An image was refused for crossing one of its {@link ImageLimits}: `image <ref>: layer
 * <digest>: exceeds the limit of <n> decompressed bytes|unpacked bytes|files (<flag>)`.
 * A LimitExceededError: pulling it again at once would fail the same way at the same cost.
 */
export class ImageLimitError extends LimitExceededError {
  readonly image: string;
  readonly layer: string;
  readonly kind: ImageLimitKind;
  readonly limit: number;

  constructor(image: string, layer: string, kind: ImageLimitKind, limit: number) {
    super(`image ${image}: layer ${layer}: exceeds the limit of ${limit} ${kind === 'files' ? 'files' : `${kind} bytes`} (${LIMIT_FLAGS[kind]})`);
    this.name = 'ImageLimitError';
    this.image = image;
    this.layer = layer;
    this.kind = kind;
    this.limit = limit;
  }
}

/** The running account of one image pull; the counting calls throw {@link ImageLimitError} past a cap. */
export class ImageBudget {
  readonly image: string;
  readonly limits: ImageLimits;
  readonly #layers: ReadonlyArray<{ digest: string; size: number }>;
  #layer = -1;
  #decompressed = 0;
  #declared = 0;
  #unpacked = 0;
  #files = 0;

  /** `layers`: the digests and compressed sizes of the image's layers, in order. */
  constructor(image: string, limits: ImageLimits, layers: ReadonlyArray<{ digest: string; size: number }>) {
    this.image = image;
    this.limits = limits;
    this.#layers = layers;
  }

  /**
   * Moves to the next layer. Its declared compressed size counts against the decompressed cap
   * too, refusing an oversized layer (or endless empty gzip members) before its download.
   */
  nextLayer(): void {
    this.#layer++;
    this.#declared += this.#layers[this.#layer]?.size ?? 0;
    if (this.#declared > this.limits.maxDecompressedBytes) throw this.#error('decompressed');
  }

  /** The digest of the current layer. */
  get layer(): string {
    return this.#layers[this.#layer]?.digest ?? `[${this.#layer}]`;
  }

  /** Counts `n` decompressed bytes of the current layer. */
  decompressed(n: number): void {
    this.#decompressed += n;
    if (this.#decompressed > this.limits.maxDecompressedBytes) throw this.#error('decompressed');
  }

  /** Counts one entry about to be unpacked; `size` is a regular file's size from its header (0 otherwise). */
  entry(size: number): void {
    if (++this.#files > this.limits.maxFiles) throw this.#error('files');
    this.#unpacked += size;
    if (this.#unpacked > this.limits.maxUnpackedBytes) throw this.#error('unpacked');
  }

  #error(kind: ImageLimitKind): ImageLimitError {
    const limit = kind === 'files' ? this.limits.maxFiles : kind === 'unpacked' ? this.limits.maxUnpackedBytes : this.limits.maxDecompressedBytes;
    return new ImageLimitError(this.image, this.layer, kind, limit);
  }
}
