/**
 * One stored, servable catalog version: file locations, sizes, modification time and the
 * lazily loaded metas index. Reads of `catalog.jsonl` byte ranges go through one shared file
 * handle, which stays valid even after the version's directory is removed.
 */
import { open, readFile, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { CONTENT_FILES } from './content-writer.ts';
import type { VersionInfo } from './local-dir-store.ts';
import { type ByteRange, MetaIndex } from './meta-index.ts';

const READ_CHUNK = 256 * 1024;

export class StoredVersion {
  readonly catalog: string;
  readonly dir: string;
  readonly dirName: string;
  readonly info: VersionInfo;
  /** Modification time of catalog.jsonl: the Last-Modified of every response. */
  readonly modTime: Date;
  readonly sizes: { jsonl: number; gzip: number; zstd: number };
  #index: Promise<MetaIndex> | undefined;
  #handle: Promise<FileHandle> | undefined;
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

  /** Reads the metadata of the version stored in `dir`; throws if any content file is missing. */
  static async load(catalog: string, dir: string, dirName: string, info: VersionInfo): Promise<StoredVersion> {
    const [jsonl, gzip, zstd] = await Promise.all([
      stat(join(dir, CONTENT_FILES.jsonl)),
      stat(join(dir, CONTENT_FILES.gzip)),
      stat(join(dir, CONTENT_FILES.zstd)),
    ]);
    return new StoredVersion(catalog, dir, dirName, info, jsonl.mtime, { jsonl: jsonl.size, gzip: gzip.size, zstd: zstd.size });
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

  /** Streams the bytes of `ranges` of catalog.jsonl in order, in chunks of at most 256 KiB. */
  async *readRanges(ranges: readonly ByteRange[]): AsyncGenerator<Buffer> {
    // A request that raced a retirement reads through a private handle it closes itself;
    // otherwise the shared handle stays open until the last reader finishes.
    const shared = !this.#closed;
    if (shared) this.#readers++;
    try {
      const fh = shared ? await this.#sharedFile() : await open(this.path('jsonl'), 'r');
      try {
        yield* readFrom(fh, ranges, this.catalog);
      } finally {
        if (!shared) await fh.close();
      }
    } finally {
      if (shared) {
        this.#readers--;
        if (this.#closed && this.#readers === 0) await this.#closeHandle();
      }
    }
  }

  /** Releases the shared file handle once no read is using it. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#readers === 0) await this.#closeHandle();
  }

  async #closeHandle(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    if (handle !== undefined) await (await handle.catch(() => undefined))?.close();
  }

  #sharedFile(): Promise<FileHandle> {
    this.#handle ??= open(this.path('jsonl'), 'r');
    return this.#handle;
  }
}

async function* readFrom(fh: FileHandle, ranges: readonly ByteRange[], catalog: string): AsyncGenerator<Buffer> {
    for (const range of ranges) {
      let done = 0;
      while (done < range.length) {
        const want = Math.min(READ_CHUNK, range.length - done);
        const buf = Buffer.allocUnsafe(want);
        const { bytesRead } = await fh.read(buf, 0, want, range.offset + done);
        if (bytesRead === 0) throw new Error(`catalog ${catalog}: content ended before byte ${range.offset + done}`);
        done += bytesRead;
        yield bytesRead === want ? buf : buf.subarray(0, bytesRead);
      }
    }
}
