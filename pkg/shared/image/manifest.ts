/** Manifests, indexes and image configs from a registry, parsed once with zod (the caller bounds their size). */
import { z } from 'zod';
import { isDigest } from './digest.ts';

/** Media types of the OCI image spec and Docker image manifest v2 schema 2 used here. */
export const MediaTypes = {
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  ociConfig: 'application/vnd.oci.image.config.v1+json',
  ociLayer: 'application/vnd.oci.image.layer.v1.tar',
  ociLayerGzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
  ociLayerZstd: 'application/vnd.oci.image.layer.v1.tar+zstd',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerManifestList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  dockerConfig: 'application/vnd.docker.container.image.v1+json',
  dockerLayerGzip: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
} as const;

/** Manifest media types that describe a single image. */
const IMAGE_MANIFEST_TYPES: readonly string[] = [MediaTypes.ociManifest, MediaTypes.dockerManifest];

/** Manifest media types that list per-platform images. */
const INDEX_MANIFEST_TYPES: readonly string[] = [MediaTypes.ociIndex, MediaTypes.dockerManifestList];

/** The `Accept` header sent for manifests: every type this client can read. */
export const MANIFEST_ACCEPT = [MediaTypes.ociIndex, MediaTypes.ociManifest, MediaTypes.dockerManifestList, MediaTypes.dockerManifest].join(', ');

/** An OS/architecture pair (plus optional CPU variant) as used in indexes and configs. */
export const Platform = z.object({
  os: z.string(),
  architecture: z.string(),
  variant: z.string().optional(),
});
export type Platform = z.infer<typeof Platform>;

/** A content descriptor: what a manifest says about a blob or a child manifest. */
export const Descriptor = z.object({
  mediaType: z.string(),
  digest: z.string().refine(isDigest, { message: 'invalid digest' }),
  size: z.number().int().nonnegative(),
  platform: Platform.optional(),
  annotations: z.record(z.string(), z.string()).optional(),
});
export type Descriptor = z.infer<typeof Descriptor>;

/** An OCI image manifest or Docker v2 schema 2 manifest. */
export const ImageManifest = z.object({
  schemaVersion: z.literal(2),
  mediaType: z.string().optional(),
  config: Descriptor,
  layers: z.array(Descriptor),
  annotations: z.record(z.string(), z.string()).optional(),
});
export type ImageManifest = z.infer<typeof ImageManifest>;

/** An OCI image index or Docker manifest list. */
const ImageIndex = z.object({
  schemaVersion: z.literal(2),
  mediaType: z.string().optional(),
  manifests: z.array(Descriptor),
  annotations: z.record(z.string(), z.string()).optional(),
});
type ImageIndex = z.infer<typeof ImageIndex>;

/** The fields of an image config blob this client reads. */
const ImageConfigJson = z.object({
  architecture: z.string().optional(),
  os: z.string().optional(),
  variant: z.string().optional(),
  config: z.object({ Labels: z.record(z.string(), z.string()).nullish() }).nullish(),
  rootfs: z.object({ type: z.string(), diff_ids: z.array(z.string()) }).optional(),
});

/** An image config, reduced to what consumers use, with the parsed JSON kept in `raw`. */
export interface ImageConfig {
  os?: string;
  architecture?: string;
  /** `config.Labels`; empty when the image has none. */
  labels: Readonly<Record<string, string>>;
  /** The whole config document. */
  raw: Readonly<Record<string, unknown>>;
}

/** A parsed manifest: one image, or an index of per-platform images. */
type ParsedManifest = { kind: 'image'; mediaType: string; manifest: ImageManifest } | { kind: 'index'; mediaType: string; index: ImageIndex };

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}

function parseJson(bytes: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (err) {
    throw new Error(`error parsing ${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

/**
 * Parses manifest bytes. The kind comes from the document's `mediaType`, else from the
 * response `Content-Type`, else from its shape (`manifests` => index, `layers` => image).
 *
 * @throws Error `unsupported manifest media type "<t>" for <what>` (e.g. Docker schema 1)
 *   or `error parsing <what>: <problem>` when the document does not match its type.
 */
export function parseManifest(bytes: Uint8Array, contentType: string | undefined, what: string): ParsedManifest {
  const doc = parseJson(bytes, what);
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new Error(`error parsing ${what}: not a JSON object`);
  }
  const record = doc as Record<string, unknown>;
  const header = contentType?.split(';')[0]?.trim().toLowerCase();
  const known = [...IMAGE_MANIFEST_TYPES, ...INDEX_MANIFEST_TYPES];
  let mediaType: string | undefined;
  if (typeof record['mediaType'] === 'string' && record['mediaType'] !== '') {
    mediaType = record['mediaType'];
  } else if (header !== undefined && known.includes(header)) {
    mediaType = header;
  } else if (Array.isArray(record['manifests'])) {
    mediaType = MediaTypes.ociIndex;
  } else if (Array.isArray(record['layers'])) {
    mediaType = MediaTypes.ociManifest;
  }
  if (mediaType === undefined || !known.includes(mediaType)) {
    const shown = mediaType ?? header ?? (record['schemaVersion'] === 1 ? 'schema version 1' : 'unknown');
    throw new Error(`unsupported manifest media type "${shown}" for ${what}`);
  }
  if (INDEX_MANIFEST_TYPES.includes(mediaType)) {
    const r = ImageIndex.safeParse(doc);
    if (!r.success) throw new Error(`error parsing ${what}: ${describeIssues(r.error)}`);
    return { kind: 'index', mediaType, index: r.data };
  }
  const r = ImageManifest.safeParse(doc);
  if (!r.success) throw new Error(`error parsing ${what}: ${describeIssues(r.error)}`);
  return { kind: 'image', mediaType, manifest: r.data };
}

/** Parses an image config blob; throws `error parsing <what>: <problem>`. */
export function parseImageConfig(bytes: Uint8Array, what: string): ImageConfig {
  const doc = parseJson(bytes, what);
  const r = ImageConfigJson.safeParse(doc);
  if (!r.success) throw new Error(`error parsing ${what}: ${describeIssues(r.error)}`);
  return {
    ...(r.data.os !== undefined ? { os: r.data.os } : {}),
    ...(r.data.architecture !== undefined ? { architecture: r.data.architecture } : {}),
    labels: { ...(r.data.config?.Labels ?? {}) },
    raw: doc as Record<string, unknown>,
  };
}

const ARCH_ALIASES: Readonly<Record<string, string>> = { x86_64: 'amd64', aarch64: 'arm64' };

/** Normalises architecture spellings (`x86_64` => `amd64`, `aarch64` => `arm64`). */
export function normalizeArchitecture(arch: string): string {
  return ARCH_ALIASES[arch] ?? arch;
}

/**
 * Picks the child manifest of `index` for `platform`: the first entry whose OS and
 * architecture match and, when `platform.variant` is set, whose variant matches too.
 *
 * @throws Error `no image found in image index|manifest list for architecture "<a>",
 *   variant "<v>", OS "<o>"`, listing the platforms the index offers.
 */
export function selectPlatform(index: ImageIndex, mediaType: string, platform: Platform): Descriptor {
  const arch = normalizeArchitecture(platform.architecture);
  for (const entry of index.manifests) {
    const p = entry.platform;
    if (p === undefined || p.os !== platform.os || normalizeArchitecture(p.architecture) !== arch) continue;
    if (platform.variant !== undefined && platform.variant !== '' && (p.variant ?? '') !== platform.variant) continue;
    return entry;
  }
  const kind = mediaType === MediaTypes.dockerManifestList ? 'manifest list' : 'image index';
  const offered = index.manifests
    .filter((m) => m.platform !== undefined)
    .map((m) => `${m.platform?.os}/${m.platform?.architecture}${m.platform?.variant ? `/${m.platform.variant}` : ''}`);
  throw new Error(
    `no image found in ${kind} for architecture "${arch}", variant "${platform.variant ?? ''}", OS "${platform.os}"` +
      ` (available: ${offered.length > 0 ? offered.join(', ') : 'none'})`,
  );
}
