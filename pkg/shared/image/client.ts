/** The image client of catalogd, operator-controller and the CLI: one transport, credential store, token cache, platform. */
import type { Logger } from 'pino';
import type { ProxySelector, TlsMaterial } from '../nodehttp/index.ts';
import type { BuiltImage, BuiltIndex } from './build.ts';
import type { DockerConfig } from './docker-config.ts';
import { HttpTransport } from './http-transport.ts';
import { CATALOG_IMAGE_LIMITS, type ImageLimits } from './limits.ts';
import { ImageSource, type ResolvedReference } from './image-source.ts';
import { normalizeArchitecture, type Platform } from './manifest.ts';
import { Puller, type ImageFiles, type OpenedImage, type PullOptions, type PullResult } from './puller.ts';
import { copyImage, sigstoreSignatureTag, type CopyOutcome } from './copy.ts';
import { pushImage } from './push.ts';
import { parseImageReference } from './reference.ts';
import { isRegistryNotFound } from './registry-error.ts';
import { RegistryAuth } from './registry-auth.ts';
import { RegistryClient } from './registry-client.ts';
import { loadRegistriesConf, type RegistriesConfPaths } from './registries-conf-load.ts';
import { signaturePolicyCheck } from './signature-check.ts';
import { httpLookasideReader, type SignaturePolicyPaths } from './signature-load.ts';

/** Settings of {@link createImageClient}. Providers are read at each request. */
interface ImageClientOptions {
  /** `host[:port]` of registries spoken to over plain HTTP; all others use HTTPS. */
  insecureRegistries?: readonly string[];
  /** PEM CA bundle trusted in addition to the system roots (or a provider for reloads). */
  caPem?: string | (() => string | undefined);
  /** Per-registry TLS material (a `--pull-cas-dir` certificate directory), read per request. */
  tlsFor?: (url: URL) => TlsMaterial | undefined;
  /** The forward proxy of each registry request; default: direct. */
  proxy?: ProxySelector;
  /** Pull/push credentials (or a provider, e.g. fed by the pull-secret controller). */
  credentials?: DockerConfig | (() => DockerConfig | undefined);
  /** Platform chosen from multi-arch indexes; default linux/amd64. */
  platform?: Platform;
  logger?: Pick<Logger, 'debug' | 'info' | 'warn'>;
  /** Bound of connecting to a registry (TCP and TLS), default 30 s. */
  connectTimeoutMs?: number;
  /** Read timeout: socket inactivity per request once connected, headers and body, default 60 s. */
  timeoutMs?: number;
  userAgent?: string;
  /** Caps of every pull (default CATALOG_IMAGE_LIMITS; BUNDLE_IMAGE_LIMITS suit bundle images). */
  limits?: ImageLimits;
  /** Where registries.conf is read from, before each pull (not pushes); unset: none is read. */
  registriesConf?: RegistriesConfPaths | undefined;
  /** Where the signature policy and registries.d are read from, before each uncached pull; unset: no policy check. */
  signaturePolicy?: SignaturePolicyPaths | undefined;
}

/** Registry operations on images. */
export interface ImageClient {
  /**
   * Pins `ref` to its manifest digest without pulling (no registry call for digest refs).
   * @throws TerminalError for a bad reference; Error `error getting manifest: ...` otherwise.
   */
  resolveDigest(ref: string, signal?: AbortSignal): Promise<ResolvedReference>;
  /** Pulls into a cache; see {@link Puller.pull} for steps and errors. */
  pull(ref: string, options: PullOptions): Promise<PullResult>;
  /** Reads manifest and config and leaves the layers to stream; see {@link Puller.openLayers}. */
  openLayers(ref: string, options: Pick<PullOptions, 'labelPathFilter' | 'signal'>): Promise<OpenedImage>;
  /** Reads a whole image into memory; see {@link Puller.readImageFiles}. */
  readImageFiles(ref: string, options?: { tmpDir?: string }): Promise<ImageFiles>;
  /** Pushes a built image or index and returns its digest; see {@link pushImage}. */
  push(ref: string, image: BuiltImage | BuiltIndex, signal?: AbortSignal): Promise<string>;
  /**
   * Copies image `source` (a tag or digest reference, read from that registry itself: no
   * registries.conf mirror applies) to repository `target` (`domain/path`) by digest, and its
   * sigstore signature (tag `sha256-<hex>.sig`) when the source has one; `tag` is put on the copy
   * too. See copyImage.
   */
  copy(source: string, target: string, options?: { tag?: string | undefined; signal?: AbortSignal | undefined }): Promise<ImageCopy>;
  /** Closes idle connections. The client stays usable. */
  close(): void;
}

/** What ImageClient.copy did. */
export interface ImageCopy extends CopyOutcome {
  /** `<target>@<digest>`. */
  targetRef: string;
  /** True when a sigstore signature was copied beside the image. */
  signature: boolean;
}

async function copyWithSignature(
  registry: RegistryClient,
  source: string,
  target: string,
  { tag: keep, signal }: { tag?: string | undefined; signal?: AbortSignal | undefined } = {},
): Promise<ImageCopy> {
  const from = parseImageReference(source);
  const to = parseImageReference(target);
  if (to.tag !== undefined || to.digest !== undefined) throw new Error(`cannot copy to ${target}: name a repository, without a tag or digest`);
  const image = await copyImage(registry, from, from.digest ?? from.tag ?? 'latest', to, { signal, tags: keep === undefined ? [] : [keep] });
  const tag = sigstoreSignatureTag(image.digest);
  let signature = false;
  try {
    await copyImage(registry, from, tag, to, { signal, tags: [tag] });
    signature = true;
  } catch (err) {
    if (!isRegistryNotFound(err)) throw err;
  }
  return { ...image, targetRef: `${target}@${image.digest}`, signature };
}

/** Creates an image client. Nothing is contacted until the first call. */
export function createImageClient(options: ImageClientOptions = {}): ImageClient {
  const transport = new HttpTransport({
    insecureRegistries: options.insecureRegistries,
    caPem: options.caPem,
    tlsFor: options.tlsFor,
    proxy: options.proxy,
    connectTimeoutMs: options.connectTimeoutMs,
    timeoutMs: options.timeoutMs,
    userAgent: options.userAgent,
  });
  const auth = new RegistryAuth(transport, options.credentials);
  const registry = new RegistryClient(transport, auth);
  const platform = options.platform ?? { os: 'linux', architecture: 'amd64' };
  const confPaths = options.registriesConf;
  const source = new ImageSource(
    registry,
    { ...platform, architecture: normalizeArchitecture(platform.architecture) },
    options.logger,
    confPaths === undefined ? undefined : () => loadRegistriesConf(confPaths),
  );
  const policy =
    options.signaturePolicy === undefined
      ? undefined
      : signaturePolicyCheck(options.signaturePolicy, {
          log: options.logger,
          lookasideHttp: httpLookasideReader(transport),
          sigstoreAttachments: (ref, digest, signal) => source.sigstoreAttachments(ref, digest, signal),
        });
  const puller = new Puller(source, registry, options.limits ?? CATALOG_IMAGE_LIMITS, options.logger, policy);
  return {
    resolveDigest: (ref, signal) => source.resolve(ref, signal),
    pull: (ref, pullOptions) => puller.pull(ref, pullOptions),
    openLayers: (ref, openOptions) => puller.openLayers(ref, openOptions),
    readImageFiles: (ref, readOptions) => puller.readImageFiles(ref, readOptions),
    push: (ref, image, signal) => pushImage(registry, ref, image, signal),
    copy: (source, target, options) => copyWithSignature(registry, source, target, options),
    close: () => transport.close(),
  };
}
