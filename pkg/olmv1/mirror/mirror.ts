/**
 * `olmv1 catalog mirror` as a service: reads the catalog image's content, plans the copies
 * (plan.ts), copies each image by digest with its sigstore signature, a few at a time, and
 * returns what was copied and what failed; the mirror configuration is made from the copies
 * (config.ts). A failed image does not stop the others: every failure is reported.
 */
import { errorMessage } from '../../shared/errors/index.ts';
import type { DeclarativeConfig } from '../../shared/fbc/index.ts';
import type { ImageCopy } from '../../shared/image/index.ts';
import { mapLimited } from '../../shared/kube/index.ts';
import type { MirroredImage } from './config.ts';
import { mirrorPlan, type PlannedImage } from './plan.ts';

/** What the service reads and writes through. */
interface MirrorPorts {
  /** The catalog image's content, and the digest reference it was read at. */
  loadCatalog(ref: string, signal?: AbortSignal): Promise<{ digestRef: string; content: Pick<DeclarativeConfig, 'bundles'> }>;
  /** Copies `source` to repository `target` by digest, with its signature, tagged `tag` too (ImageClient.copy). */
  copy(source: string, target: string, options: { tag?: string | undefined; signal?: AbortSignal | undefined }): Promise<ImageCopy>;
}

/** One image that could not be copied. */
interface MirrorFailure {
  image: PlannedImage;
  error: string;
}

/** What a mirror run did. */
export interface MirrorReport {
  /** The catalog as read (`domain/path@digest`). */
  catalogDigestRef: string;
  copied: Array<MirroredImage & { role: PlannedImage['role']; signature: boolean; blobsCopied: number; bytes: number }>;
  failed: MirrorFailure[];
  /** References the catalog holds that cannot be mirrored (plan problems). */
  problems: string[];
}

/** Options of mirrorCatalog. */
interface MirrorRequest {
  catalog: string;
  /** The validated mirror prefix (parseMirrorPrefix). */
  prefix: string;
  /** Copies at once (default 2). */
  concurrency?: number;
  signal?: AbortSignal;
  /** Called as each image starts and ends. */
  progress?: (event: { image: PlannedImage; done: boolean; index: number; total: number; error?: string }) => void;
}

/** Mirrors `request.catalog` and everything it references to `request.prefix`; see the file comment. */
export async function mirrorCatalog(ports: MirrorPorts, request: MirrorRequest): Promise<MirrorReport> {
  const { signal } = request;
  const { digestRef, content } = await ports.loadCatalog(request.catalog, signal);
  // The catalog is copied as read, by digest, so the copy is the content the plan came from.
  const plan = mirrorPlan(request.catalog, content, request.prefix);
  const report: MirrorReport = { catalogDigestRef: digestRef, copied: [], failed: [], problems: plan.problems };
  const total = plan.images.length;
  await mapLimited(plan.images, request.concurrency ?? 2, async (image) => {
    const index = plan.images.indexOf(image);
    request.progress?.({ image, done: false, index, total });
    const from = image.role === 'catalog' ? digestRef : image.ref;
    try {
      const copy = await ports.copy(from, image.target, { tag: image.tag, signal });
      report.copied.push({
        ref: image.ref,
        source: image.source,
        target: image.target,
        digest: copy.digest,
        role: image.role,
        signature: copy.signature,
        blobsCopied: copy.blobsCopied,
        bytes: copy.bytes,
      });
      request.progress?.({ image, done: true, index, total });
    } catch (err) {
      signal?.throwIfAborted();
      report.failed.push({ image, error: errorMessage(err) });
      request.progress?.({ image, done: true, index, total, error: errorMessage(err) });
    }
  });
  const order = (r: { ref: string }) => plan.images.findIndex((i) => i.ref === r.ref);
  report.copied.sort((a, b) => order(a) - order(b));
  return report;
}
