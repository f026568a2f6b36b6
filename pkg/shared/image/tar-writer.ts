/** A small deterministic tar writer for building images: ustar, pax names when needed, owners 0, no user names. */

/** An entry to write. Directories need no trailing slash; it is added. */
export interface TarWriteEntry {
  path: string;
  type: 'file' | 'dir' | 'symlink' | 'hardlink';
  /** File content (files only). */
  data?: Buffer | undefined;
  /** Target of a symlink or hardlink. */
  linkname?: string | undefined;
  /** Permission bits; default 0644 for files, 0755 for directories, 0777 for symlinks. */
  mode?: number | undefined;
  /** Seconds since the epoch; default 0. */
  mtime?: number | undefined;
}

/** Raw header fields for {@link tarHeaderBlock}. */
interface TarHeaderFields {
  name: string;
  typeflag: string;
  size?: number;
  mode?: number;
  mtime?: number;
  linkname?: string;
  uid?: number;
  gid?: number;
  /** `posix` writes `ustar\0` + `00`, `gnu` writes `ustar ` + ` \0`. */
  magic?: 'posix' | 'gnu';
  prefix?: string;
}

const BLOCK = 512;
const TYPEFLAG: Readonly<Record<TarWriteEntry['type'], string>> = { file: '0', dir: '5', symlink: '2', hardlink: '1' };

function writeString(block: Buffer, offset: number, length: number, value: string): void {
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length > length) throw new Error(`tar field too long: ${JSON.stringify(value)}`);
  bytes.copy(block, offset);
}

function writeOctal(block: Buffer, offset: number, length: number, value: number): void {
  const text = value.toString(8).padStart(length - 1, '0');
  if (text.length > length - 1) throw new Error(`tar numeric field overflow: ${value}`);
  block.write(`${text}\0`, offset, 'latin1');
}

/**
 * Encodes one 512-byte header block with a correct checksum. Exposed for tests that need
 * archives this writer would not produce (GNU long names, odd type flags).
 */
export function tarHeaderBlock(fields: TarHeaderFields): Buffer {
  const block = Buffer.alloc(BLOCK);
  writeString(block, 0, 100, fields.name);
  writeOctal(block, 100, 8, fields.mode ?? 0o644);
  writeOctal(block, 108, 8, fields.uid ?? 0);
  writeOctal(block, 116, 8, fields.gid ?? 0);
  writeOctal(block, 124, 12, fields.size ?? 0);
  writeOctal(block, 136, 12, fields.mtime ?? 0);
  block.write(fields.typeflag, 156, 'latin1');
  writeString(block, 157, 100, fields.linkname ?? '');
  if ((fields.magic ?? 'posix') === 'posix') {
    block.write('ustar\u000000', 257, 'latin1');
  } else {
    block.write('ustar  \u0000', 257, 'latin1');
  }
  if (fields.prefix !== undefined) writeString(block, 345, 155, fields.prefix);
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of block) sum += b;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return block;
}

/** Zero bytes that pad `size` bytes of data to a block boundary. */
export function tarPadding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let len = Buffer.byteLength(body) + 1;
  // The length prefix counts its own digits.
  while (String(len).length + Buffer.byteLength(body) !== len) len = String(len).length + Buffer.byteLength(body);
  return `${len}${body}`;
}

function fitsUstar(value: string): boolean {
  return Buffer.byteLength(value) <= 100 && /^[\x20-\x7e]*$/.test(value);
}

/**
 * Serialises entries, in the given order, into a complete archive (with the two zero blocks
 * that end it). Names longer than 100 bytes or non-ASCII get a pax extended header.
 */
export function writeTar(entries: readonly TarWriteEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const name = e.type === 'dir' && !e.path.endsWith('/') ? `${e.path}/` : e.path;
    const linkname = e.linkname ?? '';
    const data = e.type === 'file' ? (e.data ?? Buffer.alloc(0)) : Buffer.alloc(0);
    const mtime = e.mtime ?? 0;
    let records = '';
    if (!fitsUstar(name)) records += paxRecord('path', name);
    if (!fitsUstar(linkname)) records += paxRecord('linkpath', linkname);
    if (records !== '') {
      const pax = Buffer.from(records, 'utf8');
      parts.push(tarHeaderBlock({ name: 'PaxHeaders/entry', typeflag: 'x', size: pax.length, mtime }), pax, tarPadding(pax.length));
    }
    const defaultMode = e.type === 'dir' ? 0o755 : e.type === 'symlink' ? 0o777 : 0o644;
    parts.push(
      tarHeaderBlock({
        name: fitsUstar(name)
          ? name
          : Buffer.from(name)
              .subarray(0, 99)
              .toString('latin1')
              .replace(/[^\x20-\x7e]/g, '_'),
        typeflag: TYPEFLAG[e.type],
        size: data.length,
        mode: e.mode ?? defaultMode,
        mtime,
        linkname: fitsUstar(linkname) ? linkname : '',
      }),
      data,
      tarPadding(data.length),
    );
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}
