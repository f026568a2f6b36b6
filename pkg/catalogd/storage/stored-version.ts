/**
 * One stored, servable catalog version: file locations, sizes, modification time and the
 * lazily loaded metas index. Byte-range reads of catalog.jsonl and catalog.jsonl.gz go through
 * one shared handle per file, which stays valid even after the version's directory is removed.
 */
import { readSync } from 'node:fs';
import { open, readFile, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { CONTENT_FILES } from './content-writer.ts';
import { type ByteRange, MetaIndex } from './meta-index.ts';

// Whole reads up to this size (every /metas answer sent whole) are synchronous: the content is
// in the page cache, where such a pread costs less than a thread-pool round trip, and the
// server's reusable answer buffers are then on loan only from read to write (async reads held
// them across the pool's queue, so under load most answers fell back to fresh buffers: decision
// 0083). On a cold cache it blocks the loop for one disk read, the trade nginx makes by default.
const SYNC_READ_MAX = 256 * 1024;

/** Identity of a version: the image digest (`sha256:<hex>`), its digest reference and unpack time. */
export interface VersionInfo {
  digest: string;
  ref: string;
  unpackedAt: string;
}

/** The content files read by byte range. */
export type RangeFile = 'jsonl' | 'gzip';

export class StoredVersion {
  readonly catalog: string;
  readonly dir: string;
  readonly dirName: string;
  readonly info: VersionInfo;
  /** Modification time of catalog.jsonl: the Last-Modified of every response. */
  readonly modTime: Date;
  readonly sizes: { jsonl: number; gzip: number };
  #index: Promise<MetaIndex> | undefined;
  readonly #handles = new Map<RangeFile, Promise<FileHandle>>();
  #closed = false;
  #readers = 0;

  private constructor(catalog: string, dir: string, dirName: string, info: VersionInfo, modTime: Date, sizes: StoredVersion['sizes']) {
    this.catalog = catalog;
    this.dir = dir;
    this.dirName = dirName;
    this.info = info;
    this.modTime = modTime;
    this.sizes = sizes;
  }

  /** Reads the metadata of the version stored in `dir`; throws if catalog.jsonl or its gzip copy is missing. */
  static async load(catalog: string, dir: string, dirName: string, info: VersionInfo): Promise<StoredVersion> {
    const [jsonl, gzip] = await Promise.all([stat(join(dir, CONTENT_FILES.jsonl)), stat(join(dir, CONTENT_FILES.gzip))]);
    return new StoredVersion(catalog, dir, dirName, info, jsonl.mtime, { jsonl: jsonl.size, gzip: gzip.size });
  }

  /** Absolute path of one of the content files. */
  path(file: keyof typeof CONTENT_FILES): string {
    return join(this.dir, CONTENT_FILES[file]);
  }

  /** The metas index, loaded on first use and kept (a few bytes per blob). */
  index(): Promise<MetaIndex> {
    this.#index ??= readFile(this.path('index'), 'utf8').then((text) => MetaIndex.parse(text));
    return this.#index;
  }

  /** Reads `ranges` of `file` into `out` from byte `at` on (they must fit) and returns that part of `out`. */
  async readRangesInto(file: RangeFile, ranges: readonly ByteRange[], out: Buffer, at: number): Promise<Buffer> {
    const start = at;
    const total = ranges.reduce((n, r) => n + r.length, 0);
    if (at + total > out.length) throw new Error(`catalog ${this.catalog}: ranges exceed ${out.length - at} bytes`);
    const sync = total <= SYNC_READ_MAX;
    return this.withFile(file, async (fh) => {
      for (const range of ranges) {
        for (let done = 0; done < range.length;) {
          const want = range.length - done;
          const bytesRead = sync
            ? readSync(fh.fd, out, at, want, range.offset + done)
            : (await fh.read(out, at, want, range.offset + done)).bytesRead;
          if (bytesRead === 0) throw new Error(`catalog ${this.catalog}: content ended before byte ${range.offset + done}`);
          done += bytesRead;
          at += bytesRead;
        }
      }
      return out.subarray(start, at);
    });
  }

  /**
   * Runs `fn` with the shared handle of `file` (or a private one after retirement), which stays
   * open until `fn` settles: for callers that read into buffers of their own.
   */
  async withFile<T>(file: RangeFile, fn: (fh: FileHandle) => Promise<T>): Promise<T> {
    const { fh, release } = await this.#acquire(file);
    try {
      return await fn(fh);
    } finally {
      await release();
    }
  }

  // A read that raced a retirement goes through a private handle it closes itself; otherwise
  // the shared handle stays open until the last reader releases it.
  async #acquire(file: RangeFile): Promise<{ fh: FileHandle; release: () => Promise<void> }> {
    if (this.#closed) {
      const fh = await open(this.path(file), 'r');
      return { fh, release: () => fh.close() };
    }
    this.#readers++;
    const release = async (): Promise<void> => {
      this.#readers--;
      if (this.#closed && this.#readers === 0) await this.#closeHandles();
    };
    try {
      return { fh: await this.#sharedFile(file), release };
    } catch (err) {
      await release();
      throw err;
    }
  }

  /** Releases the shared file handle once no read is using it. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#readers === 0) await this.#closeHandles();
  }

  async #closeHandles(): Promise<void> {
    const handles = [...this.#handles.values()];
    this.#handles.clear();
    await Promise.all(handles.map(async (h) => (await h.catch(() => undefined))?.close()));
  }

  #sharedFile(file: RangeFile): Promise<FileHandle> {
    let handle = this.#handles.get(file);
    if (handle === undefined) {
      handle = open(this.path(file), 'r');
      this.#handles.set(file, handle);
      // A failed open is not cached: the next read tries again.
      handle.catch(() => this.#handles.get(file) === handle && this.#handles.delete(file));
    }
    return handle;
  }
}
