/**
 * Ingest = walk an unpacked FBC directory, decode and normalise every document, and write the
 * catalog content (content-writer.ts). Two implementations of `IngestFn`:
 * - `ingestInProcess`: on the calling thread, yielding every few milliseconds (CLI, tests);
 * - `createProcessIngest()`: in a short-lived child process (catalogd). A 30-60 MB catalog
 *   then never blocks the event loop that serves HTTP and runs reconciles, and the memory the
 *   ingest needed is returned to the system when the child exits instead of staying in the
 *   long-running process's allocator (decision 0082).
 * Both reject with the loader's error (which names the file and line at fault).
 */
import { fork } from 'node:child_process';
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

interface ChildReply {
  ok: boolean;
  summary?: ContentSummary;
  message?: string;
}

// Same extension as this module: `.ts` when run from source, `.js` in the built image.
const CHILD = new URL(`./ingest-child${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, import.meta.url);

/**
 * V8 flags of the ingest child. Measured on the 31 MB benchmark catalog: 4 MB semi-spaces give
 * the lowest peak memory (smaller ones promote more short-lived strings to the old generation,
 * V8's default 16 MB ones keep more young garbage) at nearly the default's speed.
 */
export const INGEST_CHILD_FLAGS = ['--max-semi-space-size=4'];

/** Options of `createProcessIngest`. */
export interface ProcessIngestOptions {
  /** Node flags of the child (default INGEST_CHILD_FLAGS). */
  execArgv?: string[];
  /** Called with the child's pid once it is running (for logs and measurements). */
  onSpawn?: (pid: number) => void;
}

/** Returns an IngestFn that runs each ingest in a fresh child process of the same Node. */
export function createProcessIngest(options: ProcessIngestOptions = {}): IngestFn {
  return (fbcDir, targetDir) =>
    new Promise<ContentSummary>((resolve, reject) => {
      const child = fork(CHILD, [fbcDir, targetDir], {
        execArgv: options.execArgv ?? INGEST_CHILD_FLAGS,
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        serialization: 'json',
      });
      let reply: ChildReply | undefined;
      child.once('spawn', () => {
        if (child.pid !== undefined) options.onSpawn?.(child.pid);
      });
      child.once('message', (m: ChildReply) => {
        reply = m;
      });
      child.once('error', (err) => reject(new Error(`catalog ingest process failed: ${err.message}`, { cause: err })));
      child.once('exit', (code, signal) => {
        if (reply?.ok === true && reply.summary !== undefined) resolve(reply.summary);
        else if (reply !== undefined) reject(new Error(reply.message ?? 'catalog ingest failed'));
        else reject(new Error(`catalog ingest process exited with ${signal === null ? `code ${code}` : `signal ${signal}`}`));
      });
    });
}
