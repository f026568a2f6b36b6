/**
 * Lines of text (each without its "\n") kept by position in a file (decision 0098): a bundle
 * near the image caps is ~33 MB of JSON lines twice over, held through its install; in a file
 * they leave the heap for the page cache. (Lines in memory need none of this: an array is a
 * LineList.) The file is unlinked at once, so a crash leaves nothing; its space goes when the
 * store is closed or collected. Reading a closed store throws.
 */
import { closeSync, mkdirSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Lines by position: what readers of a store, and arrays, offer. */
export interface LineList extends Iterable<string> {
  readonly length: number;
  at(index: number): string | undefined;
}

const closing = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Closed already.
  }
});

/** See the module comment. */
export class LineStore implements LineList {
  #fd: number | undefined;
  readonly #offsets: number[] = [];
  readonly #sizes: number[] = [];
  #end = 0;
  readonly #dropped = new Set<number>();
  readonly #dir: string;
  readonly #token = {};

  private constructor(fd: number, dir: string) {
    this.#fd = fd;
    this.#dir = dir;
    closing.register(this, fd, this.#token);
  }

  /** A store in a new file under `dir` (created if missing); the file is unlinked at once. */
  static file(dir: string): LineStore {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, `lines-${randomBytes(8).toString('hex')}`);
    const fd = openSync(path, 'wx+', 0o600);
    try {
      unlinkSync(path);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    return new LineStore(fd, dir);
  }

  /** A new, empty store in a new file in the same directory. */
  sibling(): LineStore {
    return LineStore.file(this.#dir);
  }

  get length(): number {
    return this.#offsets.length;
  }

  /** Lines not dropped. */
  get left(): number {
    return this.length - this.#dropped.size;
  }

  /** Appends `line`; returns the new length (as an array's push). */
  push(line: string): number {
    const bytes = Buffer.from(line, 'utf8');
    for (let at = 0; at < bytes.length;) at += writeSync(this.#open(), bytes, at, bytes.length - at, this.#end + at);
    this.#offsets.push(this.#end);
    this.#sizes.push(bytes.length);
    this.#end += bytes.length;
    return this.#offsets.length;
  }

  /** The line at `index`, or undefined past the end or once dropped. */
  at(index: number): string | undefined {
    const i = index < 0 ? this.#offsets.length + index : index;
    if (this.#dropped.has(i)) return undefined;
    const offset = this.#offsets[i];
    const size = this.#sizes[i];
    if (offset === undefined || size === undefined) return undefined;
    const bytes = Buffer.allocUnsafe(size);
    for (let got = 0; got < size;) {
      const n = readSync(this.#open(), bytes, got, size - got, offset + got);
      if (n === 0) throw new Error(`line store: line ${i + 1} ends early`);
      got += n;
    }
    return bytes.toString('utf8');
  }

  /** Lets go of the line at `index`: `at` then gives undefined. */
  drop(index: number): void {
    if (index >= 0 && index < this.length) this.#dropped.add(index);
  }

  /** Closes the file's descriptor now (later reads and writes throw); again does nothing. */
  close(): void {
    if (this.#fd === undefined) return;
    closing.unregister(this.#token);
    closeSync(this.#fd);
    this.#fd = undefined;
  }

  /** The lines not dropped, in order. */
  *[Symbol.iterator](): Iterator<string> {
    for (let i = 0; i < this.length; i++) {
      const line = this.at(i);
      if (line !== undefined) yield line;
    }
  }

  #open(): number {
    if (this.#fd === undefined) throw new Error('line store: read or written after close');
    return this.#fd;
  }
}
