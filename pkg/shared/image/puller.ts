/**
 * Pulling images into the unpack cache (catalogd, operator-controller) or into memory (CLI).
 * `pull`, as upstream: pin the reference, look the digest up in the cache, else fetch manifest
 * and config, apply the label path filter, stream the layers into a tree stored read-only under
 * its digest, and garbage-collect the owner's other digests. Concurrent pulls of the same owner
 * and digest share one unpack. Registry reads go to registries.conf's pull sources
 * (image-source.ts); results keep naming the image as `ref` does.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { TerminalError, wrapError } from '../errors/index.ts';
import type { ImageCache } from './cache.ts';
import { deleteReadOnly, readTreeFiles } from './fs-tree.ts';
import type { ImageMetadata, ImageSource, ResolvedReference } from './image-source.ts';
import { ImageBudget, type ImageLimits } from './limits.ts';
import type { ImageConfig } from './manifest.ts';
import { onlyPath, type EntryFilter } from './path-filter.ts';
import type { RegistryClient } from './registry-client.ts';
import { formatReference } from './reference.ts';
import { SignaturePolicyRejectedError, type SignaturePolicyCheck } from './signature-check.ts';
import { pullTimeoutError } from './timeout.ts';
import { unpackLayers } from './unpack.ts';

export interface PullOptions {
  /** Cache namespace: the ClusterCatalog or ClusterExtension name. */
  owner: string;
  cache: ImageCache;
  /**
   * When set, the image config must carry this label and only the directory it names is
   * unpacked (catalog images: `operators.operatorframework.io.index.configs.v1`).
   */
  labelPathFilter?: string | undefined;
  signal?: AbortSignal | undefined;
}

export interface PullResult {
  /** The read-only unpacked tree. */
  dir: string;
  digest: string;
  /** `<domain>/<path>@<digest>`: what status reports as the resolved source. */
  digestRef: string;
  config: ImageConfig;
  /** When the tree was unpacked (reused from the cache when `fromCache`). */
  unpackedAt: Date;
  fromCache: boolean;
}

/** An image whose layers are left to the caller to stream. */
export interface OpenedImage {
  digest: string;
  digestRef: string;
  config: ImageConfig;
  /** The directory the label path filter names (undefined without a filter). */
  pathFilter: string | undefined;
  /** `size`: compressed, from the manifest; `open()` fetches the blob (see {@link Puller.openLayers}). */
  layers: Array<{ digest: string; size: number; open(signal?: AbortSignal): AsyncGenerator<Buffer> }>;
  /** The client's caps, for the consumer of the layers to enforce (readLayerEntries' budget). */
  limits: ImageLimits;
}

export interface ImageFiles {
  digest: string;
  digestRef: string;
  config: ImageConfig;
  /** File contents by root-relative path (`manifests/csv.yaml`), sorted by path. */
  files: Map<string, Buffer>;
}

/** Pull operations over one registry client. */
export class Puller {
  readonly #source: ImageSource;
  readonly #registry: RegistryClient;
  readonly #log: Pick<Logger, 'debug' | 'info' | 'warn'> | undefined;
  readonly #limits: ImageLimits;
  readonly #inflight = new WeakMap<ImageCache, Map<string, Promise<PullResult>>>();
  readonly #policy: SignaturePolicyCheck | undefined;

  constructor(
    source: ImageSource,
    registry: RegistryClient,
    limits: ImageLimits,
    log?: Pick<Logger, 'debug' | 'info' | 'warn'>,
    policy?: SignaturePolicyCheck,
  ) {
    this.#source = source;
    this.#registry = registry;
    this.#limits = limits;
    this.#log = log;
    this.#policy = policy;
  }

  /**
   * The signature policy's verdict on `resolved` (signature-check.ts), before any layer is read.
   * A refusal reads as upstream's copy.Image failure, `error copying image: Source image rejected: ...`.
   */
  async #checkPolicy(resolved: ResolvedReference, signal: AbortSignal | undefined): Promise<void> {
    if (this.#policy === undefined) return;
    try {
      await this.#policy({ ref: resolved.ref, digest: resolved.digest, name: formatReference(resolved.ref) }, signal);
    } catch (err) {
      if (err instanceof SignaturePolicyRejectedError) throw wrapError('error copying image', err);
      throw err;
    }
  }

  /** Streams the image's layers into `dir` within the client's caps. */
  #unpack(resolved: ResolvedReference, meta: ImageMetadata, dir: string, filter?: EntryFilter, signal?: AbortSignal): Promise<void> {
    const { layers } = meta.manifest;
    const budget = new ImageBudget(resolved.digestRef, this.#limits, layers);
    return unpackLayers({ registry: this.#registry, repo: meta.repo, layers, dir, filter, log: this.#log, signal, budget });
  }

  /**
   * Pulls `ref` into `options.cache` (see module comment).
   *
   * @throws TerminalError `error parsing image reference ...` / `error creating reference: ...`;
   *   `error applying image: catalog image is missing the required label "<label>"` (terminal
   *   only for a digest reference); otherwise retryable: `error getting manifest: ...`, `error
   *   checking cache for existing content: ...`, `error copying image: ...`, `error applying
   *   image: error reading|applying layer[i]: ...` or `...: image <ref>: layer <digest>: exceeds
   *   the limit of ...` (an ImageLimitError), `error deleting old images: ...`; `loading registries
   *   configuration ...`, a RegistryBlockedError, or `(Mirrors also failed: [...]): <ref>:
   *   <error>` with registries.conf. A timed-out request makes any retryable one `pulling image
   *   "<ref>": timeout after 30s reading layer sha256:… from registry <host>` (or `... connecting
   *   to registry ...`), the RegistryTimeoutError among its causes.
   */
  async pull(ref: string, options: PullOptions): Promise<PullResult> {
    try {
      const resolved = await this.#source.resolve(ref, options.signal);
      let inflight = this.#inflight.get(options.cache);
      if (inflight === undefined) this.#inflight.set(options.cache, (inflight = new Map()));
      const key = [options.owner, resolved.digest, options.labelPathFilter ?? ''].join('\0');
      const running = inflight.get(key);
      if (running !== undefined) return await running;
      const p = this.#pullResolved(resolved, options).finally(() => inflight.delete(key));
      inflight.set(key, p);
      return await p;
    } catch (err) {
      throw pullTimeoutError(ref, err) ?? err;
    }
  }

  async #pullResolved(resolved: ResolvedReference, options: PullOptions): Promise<PullResult> {
    const { owner, cache, signal } = options;
    const log = this.#log;
    let hit;
    try {
      hit = await cache.fetch(owner, resolved.digest);
    } catch (err) {
      throw wrapError('error checking cache for existing content', err);
    }
    if (hit !== undefined) {
      log?.debug({ ref: resolved.digestRef, owner }, 'image already unpacked');
      return { ...hit, digestRef: resolved.digestRef, fromCache: true };
    }

    await this.#checkPolicy(resolved, signal);
    const meta = await this.#metadata(resolved, signal);

    let entry;
    try {
      const dir = this.#labelDir(resolved, meta.config, options.labelPathFilter);
      const filter = dir === undefined ? undefined : onlyPath(dir);
      entry = await cache.store(owner, resolved.digest, meta.config, (tree) => this.#unpack(resolved, meta, tree, filter, signal));
    } catch (err) {
      throw wrapError('error applying image', err);
    }
    log?.info({ ref: resolved.digestRef, owner, layers: meta.manifest.layers.length }, 'unpacked image');

    try {
      await cache.garbageCollect(owner, resolved.digest);
    } catch (err) {
      throw wrapError('error deleting old images', err);
    }
    return { ...entry, digestRef: resolved.digestRef, fromCache: false };
  }

  /** Manifest and config, with pull's error wrapping. */
  async #metadata(resolved: ResolvedReference, signal: AbortSignal | undefined): Promise<ImageMetadata> {
    try {
      return await this.#source.metadata(resolved, signal);
    } catch (err) {
      throw wrapError('error copying image', err);
    }
  }

  /** The directory `label` names in `config` (undefined without a label to look for). */
  #labelDir(resolved: ResolvedReference, config: ImageConfig, label: string | undefined): string | undefined {
    if (label === undefined) return undefined;
    const dir = config.labels[label];
    if (dir !== undefined) return dir;
    const message = `catalog image is missing the required label ${JSON.stringify(label)}`;
    // A tag may later point at an image that has the label; a digest never changes.
    if (resolved.ref.digest !== undefined) throw new TerminalError(message);
    throw new Error(message);
  }

  /**
   * Resolves `ref` and reads its manifest and config like `pull`, but unpacks nothing: the
   * layers are returned for the caller to stream (catalogd's streamed ingest). Each
   * `open()` fetches its blob anew and yields it verified: iteration throws at the end on a
   * digest or size mismatch; stopping early closes the connection.
   *
   * @throws the errors `pull` throws for the same steps: a bad reference, `error getting
   *   manifest: ...`, `error copying image: ...`, `error applying image: catalog image is
   *   missing the required label ...` (terminal only for digest references).
   */
  async openLayers(ref: string, options: Pick<PullOptions, 'labelPathFilter' | 'signal'>): Promise<OpenedImage> {
    let resolved: ResolvedReference;
    let meta: ImageMetadata;
    try {
      resolved = await this.#source.resolve(ref, options.signal);
      await this.#checkPolicy(resolved, options.signal);
      meta = await this.#metadata(resolved, options.signal);
    } catch (err) {
      throw pullTimeoutError(ref, err) ?? err;
    }
    let pathFilter;
    try {
      pathFilter = this.#labelDir(resolved, meta.config, options.labelPathFilter);
    } catch (err) {
      throw wrapError('error applying image', err);
    }
    const registry = this.#registry;
    const layers = meta.manifest.layers.map(({ digest, size }) => ({
      digest,
      size,
      async *open(signal?: AbortSignal): AsyncGenerator<Buffer> {
        const opened = await registry.openBlob(meta.repo, { digest, size }, signal);
        try {
          yield* opened.stream;
        } finally {
          opened.body.destroy();
        }
      },
    }));
    return { digest: resolved.digest, digestRef: resolved.digestRef, config: meta.config, pathFilter, layers, limits: this.#limits };
  }

  /**
   * Reads the whole filesystem of `ref` (all layers applied, whiteouts honoured) into memory
   * through a temporary directory under `tmpDir` (default: the OS's), removed afterwards (bundle
   * images in the CLI). The caps apply while unpacking: at most `maxUnpackedBytes` is written.
   *
   * @throws the errors of `pull` (without the cache ones).
   */
  async readImageFiles(ref: string, options: { tmpDir?: string } = {}): Promise<ImageFiles> {
    let dir: string | undefined;
    try {
      const resolved = await this.#source.resolve(ref);
      await this.#checkPolicy(resolved, undefined);
      const meta = await this.#metadata(resolved, undefined);
      dir = await mkdtemp(join(options.tmpDir ?? tmpdir(), 'olmv1-image-'));
      try {
        await this.#unpack(resolved, meta, dir);
      } catch (err) {
        throw wrapError('error applying image', err);
      }
      const files = await readTreeFiles(dir, this.#limits.maxUnpackedBytes);
      return { digest: resolved.digest, digestRef: resolved.digestRef, config: meta.config, files };
    } catch (err) {
      throw pullTimeoutError(ref, err) ?? err;
    } finally {
      if (dir !== undefined) await deleteReadOnly(dir);
    }
  }
}
