/**
 * Reading image metadata: tag-to-digest resolution and the walk from a digest to the platform's
 * manifest and config, from the first of registries.conf's pull sources that serves it.
 */
import type { Logger } from 'pino';
import { wrapError } from '../errors/index.ts';
import { MAX_MANIFEST_BYTES, type RegistryClient, type Repository } from './registry-client.ts';
import { parseImageConfig, parseManifest, selectPlatform, type ImageConfig, type ImageManifest, type Platform } from './manifest.ts';
import { canonicalReference, parseImageReference, requireTagOrDigest, withDigest, type ImageReference } from './reference.ts';
import { EMPTY_REGISTRIES_CONF, pullSources, type RegistriesConf } from './registries-conf.ts';
import { trySources } from './pull-sources.ts';
import { RegistryTimeoutError } from './timeout.ts';
import { validateDigest } from './digest.ts';
import type { SigstoreAttachment } from './signature-sigstore.ts';
import { sigstoreSignatureTag } from './copy.ts';
import { isRegistryNotFound } from './registry-error.ts';

/** Bound of one sigstore attachment layer (containers/image's MaxSignatureBodySize). */
const MAX_ATTACHMENT_BYTES = 4 << 20;
/** At most this many attachment layers are read (a manifest listing more is refused). */
const MAX_ATTACHMENT_LAYERS = 128;
const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';

/** The layers of a sigstore attachment manifest (an OCI image manifest), checked field by field. */
function attachmentLayers(
  bytes: Buffer,
  what: string,
): Array<{ mediaType: string; digest: string; size: number; annotations: Record<string, string> }> {
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    throw new Error(`${what}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  const layers = (doc as { layers?: unknown } | null)?.layers;
  if (!Array.isArray(layers)) throw new Error(`${what}: no layers list`);
  if (layers.length > MAX_ATTACHMENT_LAYERS) throw new Error(`${what}: ${layers.length} layers, more than ${MAX_ATTACHMENT_LAYERS}`);
  return layers.map((l: unknown, i) => {
    const o = (l ?? {}) as Record<string, unknown>;
    const { mediaType, digest, size } = o;
    const annotations = o.annotations ?? {};
    if (typeof mediaType !== 'string' || typeof digest !== 'string' || typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
      throw new Error(`${what}: layer ${i} is not a valid descriptor`);
    }
    const invalid = validateDigest(digest);
    if (invalid !== undefined) throw new Error(`${what}: layer ${i}: ${invalid}`);
    if (typeof annotations !== 'object' || annotations === null || Array.isArray(annotations))
      throw new Error(`${what}: layer ${i} annotations are not an object`);
    const strings: Record<string, string> = {};
    for (const [k, v] of Object.entries(annotations)) {
      if (typeof v !== 'string') throw new Error(`${what}: layer ${i} annotation ${JSON.stringify(k)} is not a string`);
      strings[k] = v;
    }
    return { mediaType, digest, size, annotations: strings };
  });
}

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
  /** Where the image was found (a mirror, or the registry itself): read its layers there. */
  repo: Repository;
}

/** Index nesting deeper than this is refused (real images use one level). */
const MAX_INDEX_DEPTH = 4;

/** Reads references and metadata for one image client. */
export class ImageSource {
  readonly #registry: RegistryClient;
  readonly #platform: Platform;
  readonly #log: Pick<Logger, 'debug'> | undefined;
  readonly #registries: () => Promise<RegistriesConf>;

  /** `registries` is called before each registry access (the files are re-read every time). */
  constructor(registry: RegistryClient, platform: Platform, log?: Pick<Logger, 'debug'>, registries?: () => Promise<RegistriesConf>) {
    this.#registry = registry;
    this.#platform = platform;
    this.#log = log;
    this.#registries = registries ?? (() => Promise.resolve(EMPTY_REGISTRIES_CONF));
  }

  /** The pull sources of `ref` under the current configuration; throws for a broken one. */
  async #sources(ref: ImageReference) {
    const sources = pullSources(ref, await this.#registries());
    if (!sources.ok) throw new Error(sources.error);
    return sources.value;
  }

  /**
   * Parses `ref` and pins it to a digest. A digest reference needs no registry call; a tag
   * is resolved with HEAD (the registry's `Docker-Content-Digest`), falling back to GET and
   * hashing the manifest bytes, at the first pull source that answers.
   *
   * @throws TerminalError for an unparseable reference or one without tag or digest; Error
   *   `loading registries configuration ...` for a broken registries.conf; Error `error
   *   getting manifest: <registry error>` (retryable) when the tag cannot be read (with every
   *   source's error when mirrors were tried, see pull-sources.ts).
   */
  async resolve(ref: string, signal?: AbortSignal): Promise<ResolvedReference> {
    const parsed = parseImageReference(ref);
    requireTagOrDigest(parsed);
    if (parsed.digest !== undefined) {
      return { ref: parsed, digest: parsed.digest, digestRef: canonicalReference(parsed, parsed.digest) };
    }
    const tag = parsed.tag ?? '';
    const sources = await this.#sources(parsed);
    let digest: string;
    try {
      ({ value: digest } = await trySources(sources, (repo) => this.#tagDigest(repo, tag, signal), { signal, log: this.#log }));
    } catch (err) {
      throw wrapError('error getting manifest', err);
    }
    return { ref: parsed, digest, digestRef: canonicalReference(parsed, digest) };
  }

  async #tagDigest(repo: Repository, tag: string, signal: AbortSignal | undefined): Promise<string> {
    const digest = await this.#registry.headManifestDigest(repo, tag, signal).catch((err: unknown) => {
      // A registry that does not answer HEAD in time will not answer GET either.
      if (err instanceof RegistryTimeoutError) throw err;
      // Some registries refuse HEAD (405) or omit the digest header; GET decides.
      this.#log?.debug({ repo: repo.name, tag, err }, 'manifest HEAD failed, trying GET');
      return undefined;
    });
    return digest ?? (await this.#registry.getManifest(repo, tag, signal)).digest;
  }

  /**
   * Fetches the manifest for `resolved.digest` from the first pull source that has it,
   * descends an index to the configured platform, and fetches and parses the config from the
   * same source. All bytes are digest-verified.
   *
   * @throws Error `loading registries configuration ...` for a broken registries.conf; Error
   *   naming the manifest or blob that failed (registry status and error codes, digest
   *   mismatch, unsupported media type, no image for the platform).
   */
  async metadata(resolved: ResolvedReference, signal?: AbortSignal): Promise<ImageMetadata> {
    const sources = await this.#sources(withDigest(resolved.ref, resolved.digest));
    let digest = resolved.digest;
    const found = await trySources(sources, (repo) => this.#registry.getManifest(repo, resolved.digest, signal), { signal, log: this.#log });
    const repo = found.repo;
    let fetched = found.value;
    for (let depth = 0; ; depth++) {
      const parsed = parseManifest(fetched.bytes, fetched.contentType, `manifest ${digest} in ${repo.name}`);
      if (parsed.kind === 'image') {
        const bytes = await this.#registry.getBlobBytes(
          repo,
          { digest: parsed.manifest.config.digest, size: parsed.manifest.config.size },
          MAX_MANIFEST_BYTES,
          signal,
        );
        const config = parseImageConfig(bytes, `config ${parsed.manifest.config.digest} in ${repo.name}`);
        return { manifest: parsed.manifest, manifestDigest: digest, config, repo };
      }
      if (depth >= MAX_INDEX_DEPTH) throw new Error(`manifest ${resolved.digest} in ${repo.name}: indexes nested too deeply`);
      const chosen = selectPlatform(parsed.index, parsed.mediaType, this.#platform);
      this.#log?.debug({ index: digest, manifest: chosen.digest }, 'selected platform manifest');
      digest = chosen.digest;
      fetched = await this.#registry.getManifest(repo, digest, signal);
    }
  }

  /**
   * The layers of `digest`'s sigstore attachment manifest, tag `sha256-<hex>.sig` in the same
   * repository (containers/image's use-sigstore-attachments), from the first pull source that
   * answers: none when that source has no such tag. Each layer is read within 4 MiB and
   * digest-verified; what they are worth is the policy's to decide.
   *
   * @throws Error naming the attachment manifest or layer that could not be read.
   */
  async sigstoreAttachments(ref: ImageReference, digest: string, signal?: AbortSignal): Promise<SigstoreAttachment[]> {
    const invalid = validateDigest(digest);
    if (invalid !== undefined) throw new Error(invalid);
    const tag = sigstoreSignatureTag(digest);
    const sources = await this.#sources(withDigest(ref, digest));
    const { value } = await trySources(
      sources,
      async (repo) => {
        let fetched;
        try {
          fetched = await this.#registry.getManifest(repo, tag, signal);
        } catch (err) {
          if (isRegistryNotFound(err)) return [];
          throw err;
        }
        const mime = (fetched.contentType ?? '').split(';')[0]?.trim() ?? '';
        const what = `sigstore attachment manifest ${tag} in ${repo.name}`;
        if (mime !== OCI_MANIFEST) throw new Error(`unexpected MIME type for ${what}: ${JSON.stringify(mime)}`);
        const out: SigstoreAttachment[] = [];
        for (const layer of attachmentLayers(fetched.bytes, what)) {
          const payload = await this.#registry.getBlobBytes(repo, { digest: layer.digest, size: layer.size }, MAX_ATTACHMENT_BYTES, signal);
          out.push({ mimeType: layer.mediaType, payload, annotations: layer.annotations });
        }
        return out;
      },
      { signal, log: this.#log },
    );
    return value;
  }
}
