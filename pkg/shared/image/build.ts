/**
 * Building images in memory, deterministically (same input, same digests), for `olmv1 catalog
 * push` and tests: layers from tar entries, images with labels, indexes, catalog images.
 */
import { posix } from 'node:path';
import { constants as zlibConstants, gzipSync, zstdCompressSync } from 'node:zlib';
import { compareWalkOrder } from '../../gocompat/gotext/index.ts';
import { LocalFileError, type LocalTree, listDir, openTree, readRegularFile } from '../localfs/index.ts';
import { sha256Digest } from './digest.ts';
import { goCleanPath } from './go-path.ts';
import { MediaTypes, type Platform } from './manifest.ts';
import { CATALOG_CONFIGS_LABEL } from './path-filter.ts';
import { writeTar, type TarWriteEntry } from './tar-writer.ts';

/** A blob ready to upload. */
interface BuiltBlob {
  mediaType: string;
  digest: string;
  size: number;
  data: Buffer;
}

/** A layer blob with the digest of its uncompressed tar (`diff_id`). */
export interface BuiltLayer extends BuiltBlob {
  diffId: string;
}

/** A single-platform image: manifest bytes plus every blob it references. */
export interface BuiltImage {
  kind: 'image';
  mediaType: string;
  manifest: Buffer;
  digest: string;
  config: BuiltBlob;
  layers: BuiltLayer[];
  platform: Platform;
}

/** A multi-platform index and its images. */
export interface BuiltIndex {
  kind: 'index';
  mediaType: string;
  manifest: Buffer;
  digest: string;
  images: BuiltImage[];
}

/** Layer compression for built images. */
type LayerCompression = 'gzip' | 'zstd' | 'none';

/** Manifest flavour: OCI (default) or Docker v2 schema 2. */
type ImageFormat = 'oci' | 'docker';

const DEFAULT_PLATFORM: Platform = { os: 'linux', architecture: 'amd64' };

/** Builds a layer from tar entries written in the given order. */
export function buildLayer(entries: readonly TarWriteEntry[], options: { compression?: LayerCompression; format?: ImageFormat } = {}): BuiltLayer {
  const tar = writeTar(entries);
  const compression = options.compression ?? 'gzip';
  if (options.format === 'docker' && compression !== 'gzip') throw new Error('Docker v2 layers must be gzip-compressed');
  let data: Buffer;
  let mediaType: string;
  if (compression === 'gzip') {
    data = gzipSync(tar, { level: 6 });
    mediaType = options.format === 'docker' ? MediaTypes.dockerLayerGzip : MediaTypes.ociLayerGzip;
  } else if (compression === 'zstd') {
    data = zstdCompressSync(tar, { params: { [zlibConstants.ZSTD_c_compressionLevel]: 3 } });
    mediaType = MediaTypes.ociLayerZstd;
  } else {
    data = tar;
    mediaType = MediaTypes.ociLayer;
  }
  return { mediaType, digest: sha256Digest(data), size: data.length, data, diffId: sha256Digest(tar) };
}

/** A layer blob with arbitrary bytes (for tests of broken layers). */
export function rawLayer(data: Buffer, mediaType: string = MediaTypes.ociLayerGzip): BuiltLayer {
  return { mediaType, digest: sha256Digest(data), size: data.length, data, diffId: sha256Digest(data) };
}

/**
 * Tar entries for a map of file paths to contents: parent directories added, sorted by path,
 * modes 0644/0755, mtime 0.
 *
 * @throws Error for an empty path or one containing `..`.
 */
export function filesToEntries(files: Readonly<Record<string, string | Buffer>> | ReadonlyMap<string, string | Buffer>): TarWriteEntry[] {
  const list = files instanceof Map ? [...files.entries()] : Object.entries(files);
  const dirs = new Set<string>();
  const out: TarWriteEntry[] = [];
  for (const [raw, content] of list) {
    const path = goCleanPath(raw.replace(/^\/+/, ''));
    if (path === '.' || path === '..' || path.startsWith('../')) throw new Error(`invalid image file path ${JSON.stringify(raw)}`);
    for (let d = posix.dirname(path); d !== '.'; d = posix.dirname(d)) dirs.add(d);
    out.push({ path, type: 'file', data: typeof content === 'string' ? Buffer.from(content, 'utf8') : content });
  }
  for (const d of dirs) out.push({ path: d, type: 'dir' });
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** How a container of the image runs: the OCI config's `config` fields besides `Labels`, as the spec spells them. */
interface ImageRunConfig {
  /** `uid[:gid]` or a name; numeric lets Kubernetes check runAsNonRoot. */
  User?: string;
  Entrypoint?: readonly string[];
  Cmd?: readonly string[];
  /** `NAME=value` entries. */
  Env?: readonly string[];
  WorkingDir?: string;
  /** `port/protocol` keys, e.g. `8080/tcp`. */
  ExposedPorts?: readonly string[];
}

/** Options of {@link buildImage}: give `files` (one layer) or prebuilt `layers`. */
interface BuildImageOptions {
  files?: Readonly<Record<string, string | Buffer>> | ReadonlyMap<string, string | Buffer>;
  layers?: readonly BuiltLayer[];
  labels?: Readonly<Record<string, string>>;
  /** Run-time settings (user, entry point, environment) beside the labels. */
  run?: ImageRunConfig;
  platform?: Platform;
  compression?: LayerCompression;
  format?: ImageFormat;
}

/**
 * Builds an image: config (`os`, `architecture`, `config.Labels`, `rootfs.diff_ids`) and
 * manifest, OCI by default.
 *
 * @throws Error when both or neither of `files` and `layers` are given.
 */
export function buildImage(options: BuildImageOptions): BuiltImage {
  if ((options.files === undefined) === (options.layers === undefined)) throw new Error('buildImage needs exactly one of files or layers');
  const format = options.format ?? 'oci';
  const layers = options.layers ?? [buildLayer(filesToEntries(options.files ?? {}), { compression: options.compression ?? 'gzip', format })];
  const platform = options.platform ?? DEFAULT_PLATFORM;
  const configDoc = {
    architecture: platform.architecture,
    os: platform.os,
    ...(platform.variant !== undefined ? { variant: platform.variant } : {}),
    config: { ...runConfig(options.run), Labels: { ...(options.labels ?? {}) } },
    rootfs: { type: 'layers', diff_ids: layers.map((l) => l.diffId) },
  };
  const configData = Buffer.from(JSON.stringify(configDoc));
  const config: BuiltBlob = {
    mediaType: format === 'docker' ? MediaTypes.dockerConfig : MediaTypes.ociConfig,
    digest: sha256Digest(configData),
    size: configData.length,
    data: configData,
  };
  const mediaType = format === 'docker' ? MediaTypes.dockerManifest : MediaTypes.ociManifest;
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType,
      config: { mediaType: config.mediaType, digest: config.digest, size: config.size },
      layers: layers.map((l) => ({ mediaType: l.mediaType, digest: l.digest, size: l.size })),
    }),
  );
  return { kind: 'image', mediaType, manifest, digest: sha256Digest(manifest), config, layers: [...layers], platform };
}

/** The config's run-time fields in the specification's shape (ExposedPorts is a set: an object of empty objects). */
function runConfig(run: ImageRunConfig | undefined): Record<string, unknown> {
  if (run === undefined) return {};
  const { ExposedPorts, ...rest } = run;
  return {
    ...rest,
    ...(ExposedPorts === undefined ? {} : { ExposedPorts: Object.fromEntries(ExposedPorts.map((p) => [p, {}])) }),
  };
}

/** Builds an OCI index (or Docker manifest list) over per-platform images. */
export function buildIndex(images: readonly BuiltImage[], format: ImageFormat = 'oci'): BuiltIndex {
  const mediaType = format === 'docker' ? MediaTypes.dockerManifestList : MediaTypes.ociIndex;
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType,
      manifests: images.map((i) => ({ mediaType: i.mediaType, digest: i.digest, size: i.manifest.length, platform: i.platform })),
    }),
  );
  return { kind: 'index', mediaType, manifest, digest: sha256Digest(manifest), images: [...images] };
}

// A catalog file beyond this is refused before it is read (the catalog image holds it in memory).
const MAX_CATALOG_FILE_BYTES = 1 << 30;

async function collectFiles(tree: LocalTree, dir: string[], out: TarWriteEntry[]): Promise<void> {
  for (const e of await listDir(tree, dir)) {
    const rel = [...dir, e.name];
    const path = `configs/${rel.join('/')}`;
    if (e.kind === 'dir' && !e.link) {
      out.push({ path, type: 'dir' });
      await collectFiles(tree, rel, out);
    } else if (e.kind === 'file') {
      out.push({ path, type: 'file', data: await readRegularFile(e.path, { maxBytes: MAX_CATALOG_FILE_BYTES }) });
    } else if (e.kind === 'refused') {
      throw new LocalFileError(e.path, e.refusal);
    } else {
      throw new LocalFileError(e.path, `cannot package ${JSON.stringify(e.path)}: a symbolic link to a directory`);
    }
  }
}

/**
 * Builds a catalog image from an FBC directory: one gzip layer with the files under `configs/`
 * in walk order (fixed mtimes, owners, modes; a link to a file inside `fbcDir` packaged as its
 * content) and the configs label `/configs`.
 *
 * @throws LocalFileError naming the path when `fbcDir` is not a directory or holds something
 *   other than files, directories and links to files inside it (pkg/shared/localfs).
 */
export async function buildCatalogImage(fbcDir: string, options: { platform?: Platform } = {}): Promise<BuiltImage> {
  const entries: TarWriteEntry[] = [{ path: 'configs', type: 'dir' }];
  await collectFiles(await openTree(fbcDir), [], entries);
  // In directory-walk order, as a build from a directory writes them: catalogd can then read
  // the layer as it streams in instead of unpacking it (decision 0086).
  entries.sort((a, b) => compareWalkOrder(a.path, b.path));
  return buildImage({
    layers: [buildLayer(entries)],
    labels: { [CATALOG_CONFIGS_LABEL]: '/configs' },
    ...(options.platform !== undefined ? { platform: options.platform } : {}),
  });
}
