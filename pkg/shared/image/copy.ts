/**
 * Copying an image from one repository to another by digest (`olmv1 catalog mirror`): its
 * manifest, or an index and every manifest it lists, and their blobs. The manifest bytes are
 * written unchanged, so the image has the same digest at the target, which is what a
 * digest-pinned reference resolved through a mirror needs. A blob the target already has is not
 * sent again; the others are streamed through in chunks, verified against their digests while
 * read, so no whole layer is held in memory.
 */
import { parseManifest } from './manifest.ts';
import type { RegistryClient, Repository } from './registry-client.ts';

/** What a copy did. */
export interface CopyOutcome {
  /** The digest of the top manifest (the same at both ends). */
  digest: string;
  /** Manifests written (an index counts with each image it lists). */
  manifests: number;
  /** Blobs sent, and blobs the target already had. */
  blobsCopied: number;
  blobsPresent: number;
  /** Bytes of the blobs sent. */
  bytes: number;
}

/** Options of copyImage. */
interface CopyOptions {
  /** Tags the top manifest also gets at the target (a signature's `sha256-<hex>.sig`). */
  tags?: readonly string[];
  /** Largest request body of a blob upload (default 8 MiB). */
  chunkBytes?: number;
  signal?: AbortSignal | undefined;
}

const DEFAULT_CHUNK_BYTES = 8 * 1024 * 1024;

/**
 * Copies manifest `reference` (a tag or a digest) of `source` to `target`, with everything it
 * references; returns what was done.
 *
 * @throws the registry client's errors, naming the repository and the manifest or blob.
 */
export async function copyImage(
  registry: RegistryClient,
  source: Repository,
  reference: string,
  target: Repository,
  options: CopyOptions = {},
): Promise<CopyOutcome> {
  const { signal } = options;
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  const outcome: CopyOutcome = { digest: '', manifests: 0, blobsCopied: 0, blobsPresent: 0, bytes: 0 };
  const blob = async (digest: string, size: number | undefined): Promise<void> => {
    if (await registry.blobExists(target, digest, signal)) {
      outcome.blobsPresent++;
      return;
    }
    const { stream } = await registry.openBlob(source, size === undefined ? { digest } : { digest, size }, signal);
    await registry.uploadBlobChunks(target, digest, stream, chunkBytes, signal);
    outcome.blobsCopied++;
    outcome.bytes += size ?? 0;
  };
  const manifest = async (ref: string, tags: readonly string[]): Promise<string> => {
    const { bytes, contentType, digest } = await registry.getManifest(source, ref, signal);
    const parsed = parseManifest(bytes, contentType, `manifest ${ref} in ${source.name}`);
    if (parsed.kind === 'index') {
      for (const child of parsed.index.manifests) await manifest(child.digest, []);
    } else {
      const { config, layers } = parsed.manifest;
      await blob(config.digest, config.size);
      for (const layer of layers) await blob(layer.digest, layer.size);
    }
    await registry.putManifest(target, digest, parsed.mediaType, bytes, signal);
    for (const tag of tags) await registry.putManifest(target, tag, parsed.mediaType, bytes, signal);
    outcome.manifests++;
    return digest;
  };
  outcome.digest = await manifest(reference, options.tags ?? []);
  return outcome;
}

/** The tag under which cosign keeps the signatures of manifest `digest` (`sha256-<hex>.sig`). */
export function sigstoreSignatureTag(digest: string): string {
  return `${digest.replace(':', '-')}.sig`;
}
