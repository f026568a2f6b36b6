/**
 * Ingest = walk an unpacked FBC directory, decode and normalise every document, and write the
 * catalog content (content-writer.ts). Two implementations of `IngestFn`:
 * - `ingestInProcess`: on the calling thread (CLI, tests);
 * - `createWorkerIngest()`: on a worker thread, so a 30-60 MB catalog never blocks the event
 *   loop that serves HTTP and runs reconciles.
 * Both reject with the loader's error (which names the file and line at fault).
 */
import { Worker } from 'node:worker_threads';
import { walkMetas } from '../../fbc/index.ts';
import type { Meta } from '../../fbc/types.ts';
import { type ContentSummary, writeCatalogContent } from './content-writer.ts';
import type { IngestFn } from './local-dir-store.ts';

/** Ingests on the current thread. */
export async function ingestInProcess(fbcDir: string, targetDir: string): Promise<ContentSummary> {
  return writeCatalogContent(targetDir, metasOf(fbcDir));
}

async function* metasOf(fbcDir: string): AsyncGenerator<Meta> {
  for await (const { meta } of walkMetas(fbcDir)) yield meta;
}

interface WorkerReply {
  ok: boolean;
  summary?: ContentSummary;
  message?: string;
}

// Same extension as this module: `.ts` when run from source, `.js` in the built image.
const WORKER_URL = new URL(`./ingest-worker${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, import.meta.url);

/**
 * Returns an IngestFn that runs each ingest on a fresh worker thread. A worker is started per
 * ingest (start-up costs tens of milliseconds, ingests are rare) and always terminated.
 */
export function createWorkerIngest(opts: { resourceLimits?: { maxOldGenerationSizeMb?: number } } = {}): IngestFn {
  return (fbcDir, targetDir) =>
    new Promise<ContentSummary>((resolve, reject) => {
      const worker = new Worker(WORKER_URL, {
        workerData: { fbcDir, targetDir },
        ...(opts.resourceLimits === undefined ? {} : { resourceLimits: opts.resourceLimits }),
      });
      let settled = false;
      const settle = (fn: () => void): void => {
        if (settled) return;
        settled = true;
        fn();
        void worker.terminate();
      };
      worker.once('message', (reply: WorkerReply) => {
        settle(() => {
          if (reply.ok && reply.summary !== undefined) resolve(reply.summary);
          else reject(new Error(reply.message ?? 'catalog ingest failed'));
        });
      });
      worker.once('error', (err) => settle(() => reject(new Error(`catalog ingest worker failed: ${err.message}`, { cause: err }))));
      worker.once('exit', (code) => settle(() => reject(new Error(`catalog ingest worker exited with code ${code}`))));
    });
}
