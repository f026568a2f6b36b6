/**
 * The release manifest's images: every container image of every object (Pods' templates,
 * init containers, ephemeral containers) must be a digest reference, so that a cluster runs
 * exactly the bytes that were signed.
 */

/** `<name>@sha256:<64 hex>`. */
const DIGEST_REF = /^[^\s@]+@sha256:[0-9a-f]{64}$/;

/** One `image:` value of the manifest and whether it is pinned by digest. */
interface ManifestImage {
  image: string;
  pinned: boolean;
}

/**
 * Every `image:` value of a multi-document YAML manifest (pure; a line scan, as kubectl's
 * rendered output puts one `image: <ref>` per line, optionally quoted).
 */
export function manifestImages(yaml: string): ManifestImage[] {
  const out: ManifestImage[] = [];
  for (const line of yaml.split('\n')) {
    const m = /^\s*(?:-\s+)?image:\s*["']?([^"'\s#]+)["']?\s*$/.exec(line);
    if (m === null || m[1] === undefined) continue;
    out.push({ image: m[1], pinned: DIGEST_REF.test(m[1]) });
  }
  return out;
}

/** The manifest's images not pinned by digest (empty when every one is); throws when it has none at all. */
export function unpinnedImages(yaml: string): string[] {
  const images = manifestImages(yaml);
  if (images.length === 0) throw new Error('the release manifest holds no container image');
  return images.filter((i) => !i.pinned).map((i) => i.image);
}
