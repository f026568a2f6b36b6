/**
 * Precompressed `/api/v1/metas?package=<p>` answers. While catalog.jsonl is written, every run
 * of consecutive indexed blobs of one package is compressed into its own gzip member of
 * `packages.jsonl.gz`; the index records each member's byte range. A gzip-accepting client
 * asking for a package then gets those bytes as they are: no compression per request.
 *
 * A member is exactly the package's answer only when the package's indexed blobs are one
 * contiguous run, as a directory-per-package catalog lays them out. Packages spread over several
 * runs (or bigger than MAX_MEMBER) get no member and are compressed on the fly. Members are not
 * concatenated into one response: several gzip members in one body are valid gzip, but curl
 * and other clients stop after the first.
 *
 * Runs compress on libuv's thread pool (several at once) while the caller keeps producing
 * blobs; finished members are appended in file order. Compressions in flight are bounded.
 */
import { type WriteStream, createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { drained } from './drained.ts';
import type { ByteRange } from './meta-index.ts';

const gzipAsync = promisify(gzip);

/** Largest package answer (uncompressed) that gets a member. */
export const MAX_MEMBER = 4 << 20;
// Compressions handed to the thread pool and not yet written: beyond this, add() waits. Each
// holds zlib's deflate state (~256 KiB) from the moment it is queued, so this bounds memory;
// a run compresses in well under the time the caller takes to produce the next one.
const MAX_JOBS = 2;

interface Run {
  pkg: string;
  parts: string[];
  bytes: number;
}

/** Writes the members file; `add` every blob in catalog.jsonl order, then `finish`. */
export class PackageMemberWriter {
  readonly #out: WriteStream;
  readonly #level: number;
  #run: Run | undefined;
  readonly #seen = new Set<string>();
  readonly #split = new Set<string>();
  readonly #members = new Map<string, ByteRange>();
  #offset = 0;
  #tail: Promise<void> = Promise.resolve();
  #jobs = 0;
  #failed: unknown;

  constructor(path: string, level: number) {
    this.#out = createWriteStream(path);
    this.#out.on('error', (err) => (this.#failed ??= err));
    this.#level = level;
  }

  /**
   * Records one blob of catalog.jsonl. `pkg` is the blob's package when the blob is indexed
   * (has a schema), else "" (it belongs to no answer and ends the current run). Returns a
   * promise when the caller should wait for compression to catch up.
   */
  add(pkg: string, blob: string, bytes: number): Promise<void> | undefined {
    let wait: Promise<void> | undefined;
    if (this.#run?.pkg !== pkg) {
      wait = this.#close();
      if (pkg === '') return wait;
      if (this.#seen.has(pkg)) this.#split.add(pkg);
      this.#run = { pkg, parts: [], bytes: 0 };
    }
    const run = this.#run as Run;
    run.bytes += bytes;
    if (run.bytes > MAX_MEMBER) this.#split.add(pkg);
    // A package that gets no member holds none of its blobs.
    if (this.#split.has(pkg)) run.parts = [];
    else run.parts.push(blob);
    return wait;
  }

  /** Writes the last member and closes the file; resolves to each package's member. */
  async finish(): Promise<Map<string, ByteRange>> {
    await this.#close();
    await this.#tail;
    this.#out.end();
    await finished(this.#out);
    if (this.#failed !== undefined) throw this.#failed;
    for (const pkg of this.#split) this.#members.delete(pkg);
    return this.#members;
  }

  /** Stops writing after a failure elsewhere. */
  destroy(): void {
    this.#out.destroy();
  }

  #close(): Promise<void> | undefined {
    const run = this.#run;
    this.#run = undefined;
    if (run === undefined) return undefined;
    this.#seen.add(run.pkg);
    if (this.#split.has(run.pkg)) return undefined;
    const compressed = gzipAsync(Buffer.from(run.parts.join(''), 'utf8'), { level: this.#level });
    this.#jobs++;
    this.#tail = this.#tail.then(async () => {
      const member = await compressed;
      this.#jobs--;
      this.#members.set(run.pkg, { offset: this.#offset, length: member.length });
      this.#offset += member.length;
      if (!this.#out.write(member)) await drained(this.#out);
    });
    // Keep the chain from reporting an unhandled rejection before finish() awaits it.
    this.#tail.catch((err: unknown) => (this.#failed ??= err));
    return this.#jobs >= MAX_JOBS ? this.#tail : undefined;
  }
}
