/**
 * Pushing built images: missing blobs (checked with HEAD) are uploaded monolithically, an
 * index's child manifests pushed by digest, the top manifest PUT under the tag (or digest).
 */
import type { BuiltImage, BuiltIndex } from './build.ts';
import { parseImageReference, type ImageReference } from './reference.ts';
import type { RegistryClient } from './registry-client.ts';

async function pushBlobs(registry: RegistryClient, repo: ImageReference, image: BuiltImage, signal?: AbortSignal): Promise<void> {
  for (const blob of [image.config, ...image.layers]) {
    if (await registry.blobExists(repo, blob.digest, signal)) continue;
    await registry.uploadBlob(repo, blob.digest, blob.data, signal);
  }
}

/**
 * Pushes `image` to `ref` (`domain/path:tag`, or `domain/path@digest` matching the image) and
 * returns the digest of the pushed top-level manifest. Prints nothing.
 *
 * @throws TerminalError for an unparseable reference; Error `cannot push to <ref>: ...` for a
 *   reference without a tag, with both tag and digest, or whose digest differs from the image;
 *   RegistryError when the registry refuses a step.
 */
export async function pushImage(registry: RegistryClient, ref: string, image: BuiltImage | BuiltIndex, signal?: AbortSignal): Promise<string> {
  const parsed = parseImageReference(ref);
  if (parsed.tag === undefined && parsed.digest === undefined) throw new Error(`cannot push to ${ref}: the reference needs a tag`);
  if (parsed.tag !== undefined && parsed.digest !== undefined) throw new Error(`cannot push to ${ref}: give a tag or a digest, not both`);
  if (parsed.digest !== undefined && parsed.digest !== image.digest) {
    throw new Error(`cannot push to ${ref}: the image digest is ${image.digest}`);
  }
  if (image.kind === 'index') {
    for (const child of image.images) {
      await pushBlobs(registry, parsed, child, signal);
      await registry.putManifest(parsed, child.digest, child.mediaType, child.manifest, signal);
    }
  } else {
    await pushBlobs(registry, parsed, image, signal);
  }
  const target = parsed.tag ?? image.digest;
  return registry.putManifest(parsed, target, image.mediaType, image.manifest, signal);
}
