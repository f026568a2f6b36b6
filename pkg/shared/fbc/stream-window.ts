/**
 * The byte window a push-based FBC stream decoder reads from, and its callbacks. Decoded bytes
 * are dropped when the window must grow, so what is held is bounded by the current document;
 * offsets are relative to the window's first byte (a subclass moves its own in `moved`).
 */
import type { DecodedMeta } from './meta.ts';

/** A decoded document and the 1-based line where it starts. */
export interface StreamDocument extends DecodedMeta {
  line: number;
}

/** Callbacks of a stream decoder (`MetaStreamParser`). */
export interface StreamCallbacks {
  onDocument(doc: StreamDocument): void;
  /**
   * Called with upstream's error text and the line of the failing document; throw to abort,
   * return to let the parser go on. For a YAML error that names a line, `located` has the text
   * and line in the file's numbering (goyaml `inFileNumbering`), for messages.
   */
  onError(detail: string, line: number, located?: { text: string; line: number }): void;
}

// A grown window is at least this large, so small files share one allocation size.
const MIN_CAPACITY = 64 * 1024;

/** A growable window over a byte stream; see the file comment. */
export abstract class StreamWindow {
  protected buf: Buffer = Buffer.allocUnsafe(0);
  protected absStart = 0; // absolute stream offset of buf[0]
  protected len = 0; // bytes filled
  protected start = 0; // first byte still needed
  protected pos = 0; // scan cursor
  protected line = 1; // line at pos
  private peak = 0;

  /**
   * `scratch`, when given, is used as the initial buffer (a walk hands the same one to each
   * file's decoder, so reading a catalog does not allocate per file); see `buffer`.
   */
  protected constructor(scratch?: Buffer) {
    if (scratch !== undefined) this.buf = scratch;
  }

  /** The buffer in use, possibly grown; reusable by another decoder once this one is done. */
  get buffer(): Buffer {
    return this.buf;
  }

  /** The largest buffer capacity used so far, in bytes (a bound on memory per stream). */
  get peakBufferBytes(): number {
    return this.peak;
  }

  /** Appends a chunk, first dropping decoded bytes or growing the buffer as needed. */
  protected append(chunk: Uint8Array): void {
    this.reserve(chunk.length);
    this.buf.set(chunk, this.len);
    this.len += chunk.length;
  }

  /** Moves the subclass's own offsets into the window back by `d` bytes. */
  protected abstract moved(d: number): void;

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const live = this.len - this.start;
    let target = this.buf;
    if (live + n > this.buf.length / 2) {
      target = Buffer.allocUnsafe(Math.max(MIN_CAPACITY, 2 * (live + n)));
      this.peak = Math.max(this.peak, target.length);
    }
    this.buf.copy(target, 0, this.start, this.len);
    this.buf = target;
    this.shift(this.start);
  }

  private shift(d: number): void {
    this.absStart += d;
    this.len -= d;
    this.start -= d;
    this.pos -= d;
    this.moved(d);
  }
}
