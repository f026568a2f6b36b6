/**
 * Reading image metadata from a registry: tag-to-digest resolution and the walk from a
 * digest to the platform's image manifest and config.
 */
import type { Logger } from 'pino';
import { wrapError } from '../errors/index.ts';
import { MAX_MANIFEST_BYTES, type RegistryClient } from './registry-client.ts';
import { parseImageConfig, parseManifest, selectPlatform, type ImageConfig, type ImageManifest, type Platform } from './manifest.ts';
import { canonicalReference, parseImageReference, requireTagOrDigest, type ImageReference } from './reference.ts';
import { RegistryTimeoutError } from './timeout.ts';

/** A reference pinned to the digest of its manifest (the index digest for multi-arch). */
export interface ResolvedReference {
  ref: ImageReference;
  digest: string;
  /** `<domain>/<path>@<digest>`. */
  digestRef: string;
}

/** The manifest and config of one platform image. */
export interface ImageMetadata {
  manifest: ImageManifest;
  /** Digest of the platform image manifest (differs from the index digest). */
  manifestDigest: string;
  config: ImageConfig;
}

/** Index nesting deeper than this is refused (real images use one level). */
const MAX_INDEX_DEPTH = 4;

/** Reads references and metadata for one image client. */
export class ImageSource {
  readonly #registry: RegistryClient;
  readonly #platform: Platform;
  readonly #log: Pick<Logger, 'debug'> | undefined;

  constructor(registry: RegistryClient, platform: Platform, log?: Pick<Logger, 'debug'>) {
    this.#registry = registry;
    this.#platform = platform;
    this.#log = log;
  }

  /**
   * Parses `ref` and pins it to a digest. A digest reference needs no registry call; a tag
   * is resolved with HEAD (the registry's `Docker-Content-Digest`), falling back to GET and
   * hashing the manifest bytes.
   *
   * @throws TerminalError for an unparseable reference or one without tag or digest;
   *   Error `error getting manifest: <registry error>` (retryable) when the tag cannot be read.
   */
  async resolve(ref: string, signal?: AbortSignal): Promise<ResolvedReference> {
    const parsed = parseImageReference(ref);
    requireTagOrDigest(parsed);
    if (parsed.digest !== undefined) {
      return { ref: parsed, digest: parsed.digest, digestRef: canonicalReference(parsed, parsed.digest) };
    }
    const tag = parsed.tag ?? '';
    let digest: string | undefined;
    try {
      digest = await this.#registry.headManifestDigest(parsed, tag, signal).catch((err: unknown) => {
        // A registry that does not answer HEAD in time will not answer GET either.
        if (err instanceof RegistryTimeoutError) throw err;
        // Some registries refuse HEAD (405) or omit the digest header; GET decides.
        this.#log?.debug({ ref, err }, 'manifest HEAD failed, trying GET');
        return undefined;
      });
      digest ??= (await this.#registry.getManifest(parsed, tag, signal)).digest;
    } catch (err) {
      throw wrapError('error getting manifest', err);
    }
    return { ref: parsed, digest, digestRef: canonicalReference(parsed, digest) };
  }

  /**
   * Fetches the manifest for `resolved.digest`, descends an index to the configured platform,
   * and fetches and parses the config. All bytes are digest-verified.
   *
   * @throws Error naming the manifest or blob that failed (registry status and error codes,
   *   digest mismatch, unsupported media type, no image for the platform).
   */
  async metadata(resolved: ResolvedReference, signal?: AbortSignal): Promise<ImageMetadata> {
    const repo = resolved.ref;
    let digest = resolved.digest;
    for (let depth = 0; ; depth++) {
      const fetched = await this.#registry.getManifest(repo, digest, signal);
      const parsed = parseManifest(fetched.bytes, fetched.contentType, `manifest ${digest} in ${repo.name}`);
      if (parsed.kind === 'image') {
        const bytes = await this.#registry.getBlobBytes(
          repo,
          { digest: parsed.manifest.config.digest, size: parsed.manifest.config.size },
          MAX_MANIFEST_BYTES,
          signal,
        );
        const config = parseImageConfig(bytes, `config ${parsed.manifest.config.digest} in ${repo.name}`);
        return { manifest: parsed.manifest, manifestDigest: digest, config };
      }
      if (depth >= MAX_INDEX_DEPTH) throw new Error(`manifest ${resolved.digest} in ${repo.name}: indexes nested too deeply`);
      const chosen = selectPlatform(parsed.index, parsed.mediaType, this.#platform);
      this.#log?.debug({ index: digest, manifest: chosen.digest }, 'selected platform manifest');
      digest = chosen.digest;
    }
  }
}
