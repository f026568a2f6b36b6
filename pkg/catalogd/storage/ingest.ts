/**
 * Ingest = walk an unpacked FBC directory (ingest-directory.ts) or read an image's layers as
 * they stream in (ingest-layers.ts), decode and normalise every document, and write the catalog
 * content (content-writer.ts). Two implementations of `IngestFn`:
 * - `ingestInProcess`: on the calling thread, yielding every few milliseconds (CLI, tests);
 * - `createProcessIngest()`: in a short-lived child process (catalogd). A 30-60 MB catalog
 *   then never blocks the event loop that serves HTTP and runs reconciles, and the memory the
 *   ingest needed is returned to the system when the child exits instead of staying in the
 *   long-running process's allocator (decision 0082).
 * Both reject with the loader's error (which names the file and line at fault); for layers,
 * with `CatalogContentError` carrying it. The process ingest can be cancelled: when its signal
 * aborts, the child is killed and waited for, so nothing writes into the target directory
 * any more when the ingest rejects (with the signal's reason). A child that died of a signal
 * nobody here sent (the kernel's OOM killer, V8 aborting out of heap) rejects with a
 * `LimitExceededError`, which catalogd retries only after a floor.
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
 * Writes the content of an unpacked FBC directory into `targetDir` (LocalDirStore's ingest). `prepare`,
 * when present, is a hint that an ingest is coming (a pull started): the implementation may
 * start work that does not depend on the content, such as a process. `layers`, when present,
 * ingests an image's layers as they stream in (ingest-layers.ts; without it the store does
 * that on its own thread). An implementation that honours `signal` stops writing into
 * `targetDir` before it rejects with the signal's reason.
 */
export type IngestFn = ((fbcDir: string, targetDir: string, signal?: AbortSignal) => Promise<ContentSummary>) & {
  prepare?: () => void;
  layers?: (image: CatalogLayers, targetDir: string, signal?: AbortSignal) => Promise<ContentSummary>;
};

/**
 * Ingests on the current thread (ingest-directory.ts); `.layers` streams an image's layers
 * (ingest-layers.ts). A signal is not honoured here (the CLI and tests use it). The decoder (pkg/shared/fbc, pkg/shared/semver, the YAML parser) is loaded on first use:
 * catalogd's own process ingests through `createProcessIngest` and never needs it, and loading
 * it would add to that process's steady RSS (decision 0087).
 */
export const ingestInProcess: IngestFn & { layers: NonNullable<IngestFn['layers']> } = Object.assign(
  async (fbcDir: string, targetDir: string): Promise<ContentSummary> => (await import('./ingest-directory.ts')).ingestDirectory(fbcDir, targetDir),
  {
    layers: async (image: CatalogLayers, targetDir: string): Promise<ContentSummary> =>
      (await import('./ingest-layers.ts')).ingestLayersInProcess(image, targetDir),
  },
);

/**
 * What an ingest process answers; `content` marks a decoding error of the catalog itself,
 * `limit` an error that was a LimitExceededError (a resource limit, see pkg/shared/errors),
 * `imageLimit` an image cap the layers crossed (an ImageLimitError's fields, to rebuild it).
 */
export interface IngestReply {
  ok: boolean;
  summary?: ContentSummary;
  message?: string;
  content?: boolean;
  limit?: boolean;
  imageLimit?: { image: string; layer: string; kind: ImageLimitKind; limit: number };
}

/**
 * What the parent sends a waiting ingest process: a directory to walk, or the sizes of the
 * layer blobs it then writes, one after the other, to the process's descriptor
 * `LAYER_STREAM_FD`.
 */
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
 * V8 flags of the ingest child. 4 MB semi-spaces give the lowest peak memory (smaller ones
 * promote more short-lived strings to the old generation, V8's default ones keep more young
 * garbage) at nearly the default's speed. A fixed old generation growth of 50% per collection
 * instead of V8's dynamic factor (which, for a small, fast-collected heap, lets the heap run far
 * ahead of the little that stays live) lowers the peak at the same speed (decision 0086).
 * Unlike a heap limit, it cannot fail a larger catalog.
 */
const INGEST_CHILD_FLAGS = ['--max-semi-space-size=4', '--heap-growing-percent=50'];

/**
 * Environment of the ingest child: nothing is inherited (it needs no variables), in particular
 * not catalogd's own allocator settings (cmd/shared/node-flags.ts), which trade speed for a
 * low steady RSS in the long-running process. With those, every block of 32 KiB or more (zlib
 * state, segment buffers) is a fresh mmap, which slows the ingest. Two arenas and a fixed
 * 256 KiB mmap threshold (no dynamic raising, which lets freed 1 MiB buffers fragment the heap)
 * trade a little speed against the arena cap alone and a little peak memory against the 32 KiB
 * threshold, in a process that exits (decisions 0082, 0084).
 */
export const INGEST_CHILD_ENVIRONMENT: Readonly<Record<string, string>> = {
  GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=262144',
};

/**
 * Signals an ingest process dies of when it runs out of memory: SIGKILL from the kernel's OOM
 * killer (or a cgroup limit), SIGABRT or SIGTRAP from V8 failing an allocation. A process this
 * module killed itself is not counted.
 */
const OUT_OF_MEMORY_SIGNALS = new Set(['SIGKILL', 'SIGABRT', 'SIGTRAP']);

/** How long a process started by `prepare()` waits for its ingest before it exits. */
const SPARE_IDLE_MS = 5 * 60_000;

/** Options of `createProcessIngest`. */
interface ProcessIngestOptions {
  /** Node flags of the child (default INGEST_CHILD_FLAGS). */
  execArgv?: string[];
  /** Environment of the child (default INGEST_CHILD_ENVIRONMENT). */
  env?: Readonly<Record<string, string>>;
  /** Called with the pid of the process that runs an ingest, when it starts that ingest. */
  onSpawn?: (pid: number) => void;
  /** See SPARE_IDLE_MS (tests shorten it). */
  spareIdleMs?: number;
  /** Decode limits of every ingest (default pkg/shared/fbc's DEFAULT_DECODE_LIMITS). */
  limits?: Partial<DecodeLimits>;
}

/**
 * Returns an IngestFn that runs each ingest in a fresh child process of the same Node. Its
 * `prepare()` starts the process for the next ingest ahead of time, so that Node's start-up
 * and module loading overlap the image pull instead of following it. At most one
 * such spare waits; it exits after `spareIdleMs` without work, or when this process exits.
 */
export function createProcessIngest(options: ProcessIngestOptions = {}): IngestFn & { prepare: () => void; layers: NonNullable<IngestFn['layers']> } {
  const idleMs = options.spareIdleMs ?? SPARE_IDLE_MS;
  const start = (): ChildProcess => {
    const child = fork(CHILD, [String(idleMs)], {
      execArgv: options.execArgv ?? INGEST_CHILD_FLAGS,
      env: { ...(options.env ?? INGEST_CHILD_ENVIRONMENT) },
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
   * Resolves with the process's reply (the content is complete on disk when it replies: the
   * process's own exit, tearing down its heap, is not waited for) or, without
   * one, how it exited (`died`: of a signal we did not send, see OUT_OF_MEMORY_SIGNALS); and
   * with what failed the feed, once the feed is over. When `signal` aborts first, the process
   * is killed and, once it exited and the feed is over, the promise rejects with the reason.
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
