/**
 * A streaming tar reader: ustar, POSIX pax extended headers (`path`, `linkpath`, `size`,
 * `mtime`, `uid`, `gid`), GNU long names/link names (`L`/`K`) and GNU base-256 numbers.
 * Memory use is bounded by one input chunk plus extended headers (capped at 1 MiB).
 */

/** Kinds of entries; `other` carries a type flag this reader does not interpret. */
type TarEntryType = 'file' | 'dir' | 'symlink' | 'hardlink' | 'char' | 'block' | 'fifo' | 'other';

/** An entry header after pax and GNU extensions are folded in. */
export interface TarHeader {
  /** The path as stored (not cleaned). */
  name: string;
  type: TarEntryType;
  /** The raw type flag character. */
  typeflag: string;
  mode: number;
  uid: number;
  gid: number;
  /** Bytes of data that follow (0 for header-only types). */
  size: number;
  /** Modification time in milliseconds since the epoch. */
  mtimeMs: number;
  /** Link target for symlinks and hardlinks. */
  linkname: string;
}

/** One entry. `body` yields exactly `header.size` bytes; it is skipped if not read. */
export interface TarEntry {
  header: TarHeader;
  body: AsyncIterable<Buffer>;
}

/** The input is not a well-formed tar archive (bad header, truncated data). */
export class TarFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TarFormatError';
  }
}

const BLOCK = 512;
const EXTENDED_HEADER_LIMIT = 1024 * 1024;
const HEADER_ONLY = new Set(['1', '2', '3', '4', '5', '6']);

/** Pulls exact byte counts out of a chunked async source. */
class ByteSource {
  readonly #it: AsyncIterator<Uint8Array>;
  #buf: Buffer = Buffer.alloc(0);
  #ended = false;

  constructor(source: AsyncIterable<Uint8Array>) {
    this.#it = source[Symbol.asyncIterator]();
  }

  /** The next input chunk, or undefined at the end. */
  async #next(): Promise<Buffer | undefined> {
    if (this.#ended) return undefined;
    const next = await this.#it.next();
    if (next.done === true) {
      this.#ended = true;
      return undefined;
    }
    return Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
  }

  /** Exactly `n` bytes; undefined on a clean end before any byte; throws on a short read. */
  async read(n: number): Promise<Buffer | undefined> {
    if (this.#buf.length >= n) {
      const out = this.#buf.subarray(0, n);
      this.#buf = this.#buf.subarray(n);
      return out;
    }
    // Straddling chunks: copy only the bytes asked for, keep the rest of the last chunk as is.
    const parts: Buffer[] = this.#buf.length > 0 ? [this.#buf] : [];
    let have = this.#buf.length;
    this.#buf = Buffer.alloc(0);
    while (have < n) {
      const chunk = await this.#next();
      if (chunk === undefined) {
        if (have === 0) return undefined;
        throw new TarFormatError('unexpected EOF');
      }
      const need = n - have;
      if (chunk.length > need) {
        parts.push(chunk.subarray(0, need));
        this.#buf = chunk.subarray(need);
        have = n;
      } else {
        parts.push(chunk);
        have += chunk.length;
      }
    }
    return parts.length === 1 && parts[0] !== undefined ? parts[0] : Buffer.concat(parts, n);
  }

  /** Yields the next `n` bytes in pieces as they arrive. */
  async *take(n: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.#buf.length === 0) {
        const chunk = await this.#next();
        if (chunk === undefined) throw new TarFormatError('unexpected EOF');
        this.#buf = chunk;
      }
      const piece = this.#buf.subarray(0, Math.min(left, this.#buf.length));
      this.#buf = this.#buf.subarray(piece.length);
      left -= piece.length;
      yield piece;
    }
  }

  async skip(n: number): Promise<void> {
    for await (const _ of this.take(n)) {
      // discarded
    }
  }
}

function cString(b: Buffer): string {
  const nul = b.indexOf(0);
  return (nul >= 0 ? b.subarray(0, nul) : b).toString('utf8');
}

/** Parses a numeric field: octal text, or GNU base-256 when the high bit is set. */
function parseNumeric(b: Buffer, field: string): number {
  if (b.length > 0 && ((b[0] ?? 0) & 0x80) !== 0) {
    if (b[0] === 0xff) throw new TarFormatError(`invalid tar header: negative ${field}`);
    let v = (b[0] ?? 0) & 0x7f;
    for (let i = 1; i < b.length; i++) v = v * 256 + (b[i] ?? 0);
    if (!Number.isSafeInteger(v)) throw new TarFormatError(`invalid tar header: ${field} too large`);
    return v;
  }
  const text = b
    .toString('latin1')
    .replace(/[\0 ]+$/, '')
    .replace(/^[\0 ]+/, '');
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw new TarFormatError(`invalid tar header: bad ${field} ${JSON.stringify(text)}`);
  return parseInt(text, 8);
}

function verifyChecksum(block: Buffer): void {
  let stored: number;
  try {
    stored = parseNumeric(block.subarray(148, 156), 'checksum');
  } catch {
    stored = -1;
  }
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK; i++) {
    const byte = i >= 148 && i < 156 ? 0x20 : (block[i] ?? 0);
    unsigned += byte;
    signed += byte > 127 ? byte - 256 : byte;
  }
  if (stored !== unsigned && stored !== signed) throw new TarFormatError('invalid tar header: checksum mismatch');
}

/** Parses pax records `"<len> <key>=<value>\n"`. */
function parsePax(data: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let off = 0;
  while (off < data.length) {
    const space = data.indexOf(0x20, off);
    if (space < 0) break;
    const len = parseInt(data.subarray(off, space).toString('latin1'), 10);
    if (!Number.isSafeInteger(len) || len <= space - off || off + len > data.length) {
      throw new TarFormatError('invalid tar header: malformed pax record');
    }
    const record = data.subarray(space + 1, off + len - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq <= 0) throw new TarFormatError('invalid tar header: malformed pax record');
    out[record.slice(0, eq)] = record.slice(eq + 1);
    off += len;
  }
  return out;
}

function entryType(flag: string, name: string): TarEntryType {
  switch (flag) {
    case '\0':
      return name.endsWith('/') ? 'dir' : 'file';
    case '0':
    case '7':
      return 'file';
    case '1':
      return 'hardlink';
    case '2':
      return 'symlink';
    case '3':
      return 'char';
    case '4':
      return 'block';
    case '5':
      return 'dir';
    case '6':
      return 'fifo';
    default:
      return 'other';
  }
}

const padding = (size: number): number => (BLOCK - (size % BLOCK)) % BLOCK;

/**
 * Iterates the entries of a tar stream. Stops at the end-of-archive marker (a zero block)
 * or at a clean end of input; bytes after the marker are left unread in `source`.
 *
 * @throws Error `unexpected EOF` for a truncated archive, `invalid tar header: ...` for a bad
 *   checksum, number or pax record.
 */
export async function* readTar(source: AsyncIterable<Uint8Array>): AsyncGenerator<TarEntry> {
  const src = new ByteSource(source);
  let pax: Record<string, string> = {};
  let longName: string | undefined;
  let longLink: string | undefined;
  for (;;) {
    const block = await src.read(BLOCK);
    if (block === undefined || block.every((b) => b === 0)) return;
    verifyChecksum(block);
    const flag = String.fromCharCode(block[156] ?? 0);
    let size = parseNumeric(block.subarray(124, 136), 'size');
    if (flag === 'x' || flag === 'g' || flag === 'L' || flag === 'K') {
      if (size > EXTENDED_HEADER_LIMIT) throw new TarFormatError(`invalid tar header: extended header of ${size} bytes`);
      const data = (await src.read(size + padding(size))) ?? Buffer.alloc(0);
      const content = data.subarray(0, size);
      if (flag === 'x') pax = { ...pax, ...parsePax(content) };
      else if (flag === 'L') longName = cString(content);
      else if (flag === 'K') longLink = cString(content);
      // Global headers ('g') are ignored, as containerd's applier does.
      continue;
    }
    const posix = block.subarray(257, 263).toString('latin1') === 'ustar\0';
    const prefix = posix ? cString(block.subarray(345, 500)) : '';
    const rawName = cString(block.subarray(0, 100));
    const name = pax['path'] ?? longName ?? (prefix !== '' ? `${prefix}/${rawName}` : rawName);
    if (pax['size'] !== undefined) size = Number(pax['size']);
    if (HEADER_ONLY.has(flag)) size = 0;
    const mtimeSec = pax['mtime'] !== undefined ? Number(pax['mtime']) : parseNumeric(block.subarray(136, 148), 'mtime');
    const header: TarHeader = {
      name,
      type: entryType(flag, name),
      typeflag: flag,
      mode: parseNumeric(block.subarray(100, 108), 'mode') & 0o7777,
      uid: pax['uid'] !== undefined ? Number(pax['uid']) : parseNumeric(block.subarray(108, 116), 'uid'),
      gid: pax['gid'] !== undefined ? Number(pax['gid']) : parseNumeric(block.subarray(116, 124), 'gid'),
      size,
      mtimeMs: Number.isFinite(mtimeSec) ? Math.round(mtimeSec * 1000) : 0,
      linkname: pax['linkpath'] ?? longLink ?? cString(block.subarray(157, 257)),
    };
    if (!Number.isSafeInteger(size) || size < 0) throw new TarFormatError(`invalid tar header: bad size for ${JSON.stringify(name)}`);
    pax = {};
    longName = undefined;
    longLink = undefined;

    let consumed = 0;
    let reading = false;
    const body = (async function* () {
      if (reading) throw new Error('tar entry body can be read only once');
      reading = true;
      for await (const piece of src.take(size)) {
        consumed += piece.length;
        yield piece;
      }
    })();
    yield { header, body };
    await src.skip(size - consumed + padding(size));
  }
}
