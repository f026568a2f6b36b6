/**
 * Ingest = walk an unpacked FBC directory (ingest-directory.ts) or read an image's layers as
 * they stream in (ingest-layers.ts), decode every document and write the catalog content
 * (content-writer.ts). `ingestInProcess` runs on the calling thread (CLI, tests);
 * `createProcessIngest()` in a short-lived child process (catalogd), so a 30-60 MB catalog never
 * blocks the event loop and its memory goes back to the system when the child exits (decision
 * 0082). Both reject with the loader's error (for layers, a `CatalogContentError` carrying it).
 * On abort the child is killed and waited for before the ingest rejects with the signal's
 * reason; a child that died of a signal nobody here sent (OOM killer, V8 out of heap) rejects
 * with a `LimitExceededError`, which catalogd retries only after a floor.
 */
import { type ChildProcess, fork } from 'node:child_process';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { LimitExceededError } from '../../shared/errors/index.ts';
import type { DecodeLimits } from '../../shared/fbc/index.ts';
// Not pkg/shared/image's index: this module is loaded by the ingest process too (decision 0087).
import { ImageLimitError, type ImageLimitKind, type ImageLimits } from '../../shared/image/limits.ts';
import { CatalogContentError, type CatalogLayers } from './catalog-layers.ts';
import type { ContentSummary } from './content-writer.ts';

/**
 * Writes the content of an unpacked FBC directory into `targetDir` (LocalDirStore's ingest).
 * `prepare`: a hint that an ingest is coming (a pull started), e.g. to start a process early.
 * `layers`: ingests an image's layers as they stream in (without it the store does that on its
 * own thread). One that honours `signal` stops writing before it rejects with its reason.
 */
export type IngestFn = ((fbcDir: string, targetDir: string, signal?: AbortSignal) => Promise<ContentSummary>) & {
  prepare?: () => void;
  layers?: (image: CatalogLayers, targetDir: string, signal?: AbortSignal) => Promise<ContentSummary>;
};

/**
 * Ingests on the current thread, ignoring any signal (CLI, tests). The decoder (pkg/shared/fbc,
 * the YAML parser) is loaded on first use: catalogd's own process ingests through
 * `createProcessIngest` and loading it there would add to its steady RSS (decision 0087).
 */
export const ingestInProcess: IngestFn & { layers: NonNullable<IngestFn['layers']> } = Object.assign(
  async (fbcDir: string, targetDir: string): Promise<ContentSummary> => (await import('./ingest-directory.ts')).ingestDirectory(fbcDir, targetDir),
  {
    layers: async (image: CatalogLayers, targetDir: string): Promise<ContentSummary> =>
      (await import('./ingest-layers.ts')).ingestLayersInProcess(image, targetDir),
  },
);

/**
 * What an ingest process answers; `content`: a decoding error of the catalog itself, `limit`: a
 * LimitExceededError, `imageLimit`: the fields of an ImageLimitError, to rebuild it.
 */
export interface IngestReply {
  ok: boolean;
  summary?: ContentSummary;
  message?: string;
  content?: boolean;
  limit?: boolean;
  imageLimit?: { image: string; layer: string; kind: ImageLimitKind; limit: number };
}

/** A directory to walk, or the sizes of the layer blobs then written to `LAYER_STREAM_FD`. */
export type IngestRequest = (
  | { kind?: 'dir'; fbcDir: string; targetDir: string }
  | {
      kind: 'layers';
      layerSizes: number[];
      pathFilter: string | undefined;
      targetDir: string;
      /** The image's digest reference, layer digests and caps (none without). */
      image?: { ref: string; layerDigests: string[]; limits: ImageLimits } | undefined;
    }
) & { limits?: Partial<DecodeLimits> | undefined };

/** Descriptor of the ingest process on which layer bytes arrive (a socket pair end). */
export const LAYER_STREAM_FD = 4;

// Same extension as this module: `.ts` when run from source, `.js` in the built image.
const CHILD = new URL(`./ingest-child${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, import.meta.url);

/**
 * V8 flags of the ingest child, for the lowest peak memory at nearly the default's speed
 * (decision 0086): 4 MB semi-spaces, and a fixed 50% old-generation growth instead of V8's
 * dynamic factor, which lets a small heap run far ahead of what stays live. Unlike a heap
 * limit, neither can fail a larger catalog.
 */
const INGEST_CHILD_FLAGS = ['--max-semi-space-size=4', '--heap-growing-percent=50'];

/**
 * Environment of the ingest child: nothing inherited, in particular not catalogd's allocator
 * settings (cmd/shared/node-flags.ts), whose 32 KiB mmap threshold slows the ingest. Two arenas
 * and a fixed 256 KiB threshold (no dynamic raising, which lets freed 1 MiB buffers fragment the
 * heap) suit a process that exits (decisions 0082, 0084).
 */
export const INGEST_CHILD_ENVIRONMENT: Readonly<Record<string, string>> = {
  GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=262144',
};

/** Out of memory: SIGKILL from the OOM killer (or a cgroup limit), SIGABRT/SIGTRAP from V8. */
const OUT_OF_MEMORY_SIGNALS = new Set(['SIGKILL', 'SIGABRT', 'SIGTRAP']);

/** How long a process started by `prepare()` waits for its ingest before it exits. */
const SPARE_IDLE_MS = 5 * 60_000;

interface ProcessIngestOptions {
  /** Called with the pid of the process that runs an ingest, when it starts that ingest. */
  onSpawn?: (pid: number) => void;
  /** See SPARE_IDLE_MS (tests shorten it). */
  spareIdleMs?: number;
  /** Decode limits of every ingest (default pkg/shared/fbc's DEFAULT_DECODE_LIMITS). */
  limits?: Partial<DecodeLimits>;
}

/**
 * An IngestFn that runs each ingest in a fresh child process. `prepare()` starts the next one
 * ahead of time, so Node's start-up overlaps the image pull; at most one such spare waits, and
 * it exits after `spareIdleMs` without work, or when this process exits.
 */
export function createProcessIngest(options: ProcessIngestOptions = {}): IngestFn & { prepare: () => void; layers: NonNullable<IngestFn['layers']> } {
  const idleMs = options.spareIdleMs ?? SPARE_IDLE_MS;
  const start = (): ChildProcess => {
    const child = fork(CHILD, [String(idleMs)], {
      execArgv: INGEST_CHILD_FLAGS,
      env: { ...INGEST_CHILD_ENVIRONMENT },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc', 'pipe'],
      serialization: 'json',
    });
    // Our end of the layer stream is never read: close it with the process.
    child.once('exit', () => child.stdio[LAYER_STREAM_FD]?.destroy());
    return child;
  };
  let spare: ChildProcess | undefined;
  const usable = (c: ChildProcess | undefined): c is ChildProcess => c !== undefined && c.connected && c.exitCode === null && c.signalCode === null;

  /**
   * Runs one request in the spare (or a new) process, `feed` writing to its layer stream.
   * Resolves, once the feed is over, with the reply (the content is complete on disk then; the
   * exit is not waited for) or, without one, how it exited (`died`: of a signal we did not
   * send), and what failed the feed. When `signal` aborts first, the process is killed and,
   * once it exited and the feed is over, the promise rejects with the reason.
   */
  const run = (
    request: IngestRequest,
    feed?: (pipe: Writable) => Promise<void>,
    signal?: AbortSignal,
  ): Promise<{ reply: IngestReply | undefined; exit: string; died: boolean; feedError: unknown }> =>
    new Promise((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(signal.reason);
        return;
      }
      const child = usable(spare) ? spare : start();
      spare = undefined;
      let reply: IngestReply | undefined;
      let feedError: unknown;
      let settled = false;
      let killed = false;
      const kill = (): void => {
        killed = true;
        child.kill('SIGKILL');
      };
      const onAbort = (): void => {
        if (reply === undefined) kill();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const begin = (): void => {
        if (child.pid !== undefined) options.onSpawn?.(child.pid);
        // A failed send shows as the process's exit without a reply.
        child.send(request, () => undefined);
      };
      if (child.pid !== undefined) begin();
      else child.once('spawn', begin);
      const pipe = child.stdio[LAYER_STREAM_FD] as Writable;
      let readerFailed = false;
      pipe.on('error', () => (readerFailed = true)); // a process that stopped reading: its reply or exit says why
      const fed = (feed?.(pipe) ?? Promise.resolve()).catch((err: unknown) => {
        // Content is trusted only when every byte was fed, and so verified, without error.
        feedError = err ?? new Error('catalog layer stream failed');
        if (!readerFailed) kill();
      });
      const settle = (exit: string, died = false): void => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        void fed.then(() => {
          if (reply === undefined && signal?.aborted === true) reject(signal.reason);
          else resolve({ reply, exit, died, feedError });
        });
      };
      child.once('message', (m: IngestReply) => {
        reply = m;
        settle('still running');
      });
      child.once('error', (err) => {
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        reject(new Error(`catalog ingest process failed: ${err.message}`, { cause: err }));
      });
      child.once('exit', (code, sig) =>
        settle(sig === null ? `code ${code}` : `signal ${sig}`, sig !== null && !killed && OUT_OF_MEMORY_SIGNALS.has(sig)),
      );
    });

  /** The error a failed reply stands for. */
  const replyError = (reply: IngestReply, cause?: unknown): Error => {
    const message = reply.message ?? 'catalog ingest failed';
    if (reply.limit === true) return new LimitExceededError(message, { cause });
    return reply.content === true ? new CatalogContentError(message) : new Error(message, { cause });
  };

  /** The error of a process that exited without a reply. */
  const exitError = (exit: string, died: boolean, cause?: unknown): Error =>
    died
      ? new LimitExceededError(`catalog ingest process was killed by ${exit}, most likely for running out of memory`, { cause })
      : new Error(`catalog ingest process exited with ${exit}`, { cause });

  const ingest = async (fbcDir: string, targetDir: string, signal?: AbortSignal): Promise<ContentSummary> => {
    const { reply, exit, died } = await run({ kind: 'dir', fbcDir, targetDir, limits: options.limits }, undefined, signal);
    if (reply?.ok === true && reply.summary !== undefined) return reply.summary;
    if (reply !== undefined) throw replyError({ ...reply, content: false });
    throw exitError(exit, died);
  };

  const layers = async (image: CatalogLayers, targetDir: string, signal?: AbortSignal): Promise<ContentSummary> => {
    const request: IngestRequest = {
      kind: 'layers',
      layerSizes: image.layers.map((l) => l.size),
      pathFilter: image.pathFilter,
      targetDir,
      limits: options.limits,
      image: image.image === undefined ? undefined : { ...image.image, layerDigests: image.layers.map((l) => l.digest ?? '') },
    };
    // Once the process is gone nobody reads: the download stops too, even a stalled one.
    const readerGone = new AbortController();
    const feed = (pipe: Writable): Promise<void> => {
      pipe.once('close', () => readerGone.abort(new Error('catalog ingest process closed its layer stream')));
      return pipeline(async function* () {
        for (const layer of image.layers) yield* layer.open(readerGone.signal);
      }, pipe);
    };
    const { reply, exit, died, feedError } = await run(request, feed, signal);
    // A crossed image cap, rebuilt for the caller to report as the pull would.
    const cap = reply?.imageLimit;
    if (cap !== undefined) throw new ImageLimitError(cap.image, cap.layer, cap.kind, cap.limit);
    // A process that gave up (the stream needs unpacking) stops reading: its reason is the news.
    if (reply?.ok === false && reply.content !== true) throw replyError(reply, feedError);
    // So is one that died: the feed then failed only for want of a reader.
    if (died) throw exitError(exit, died, feedError);
    if (feedError !== undefined) throw feedError;
    if (reply?.ok === true && reply.summary !== undefined) return reply.summary;
    if (reply?.content === true) throw replyError(reply);
    throw exitError(exit, died);
  };

  const prepare = (): void => {
    if (usable(spare)) return;
    const child = start();
    child.once('error', () => undefined); // a failed start is reported by the ingest that needs it
    spare = child;
  };
  return Object.assign(ingest, { prepare, layers });
}
