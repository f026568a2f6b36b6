import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readTar, type TarHeader } from './tar-reader.ts';
import { tarHeaderBlock, tarPadding, writeTar, type TarWriteEntry } from './tar-writer.ts';

async function* chunked(data: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let off = 0; off < data.length; off += size) yield data.subarray(off, off + size);
}

async function readAll(data: Buffer, chunk = 4096): Promise<Array<{ header: TarHeader; data: string }>> {
  const out: Array<{ header: TarHeader; data: string }> = [];
  for await (const e of readTar(chunked(data, chunk))) {
    const parts: Buffer[] = [];
    for await (const c of e.body) parts.push(Buffer.from(c));
    out.push({ header: e.header, data: Buffer.concat(parts).toString('utf8') });
  }
  return out;
}

function gnuLong(flag: 'L' | 'K', value: string): Buffer {
  const data = Buffer.from(`${value}\0`);
  return Buffer.concat([tarHeaderBlock({ name: '././@LongLink', typeflag: flag, size: data.length, magic: 'gnu' }), data, tarPadding(data.length)]);
}

describe('readTar', () => {
  it('reads what writeTar writes, including pax long names and link names', async () => {
    const longName = `configs/${'n'.repeat(180)}/catalog.json`;
    const longLink = 't'.repeat(130);
    const entries: TarWriteEntry[] = [
      { path: 'configs', type: 'dir', mtime: 1700000000 },
      { path: longName, type: 'file', data: Buffer.from('{"schema":"olm.package"}'), mode: 0o600 },
      { path: 'configs/ünicode.yaml', type: 'file', data: Buffer.from('x: 1') },
      { path: 'configs/link', type: 'symlink', linkname: longLink },
      { path: 'configs/hard', type: 'hardlink', linkname: 'configs/ünicode.yaml' },
    ];
    const got = await readAll(writeTar(entries), 100);
    expect(got.map((e) => [e.header.type, e.header.name, e.header.linkname, e.data])).toEqual([
      ['dir', 'configs/', '', ''],
      ['file', longName, '', '{"schema":"olm.package"}'],
      ['file', 'configs/ünicode.yaml', '', 'x: 1'],
      ['symlink', 'configs/link', longLink, ''],
      ['hardlink', 'configs/hard', 'configs/ünicode.yaml', ''],
    ]);
    expect(got[0]?.header.mtimeMs).toBe(1700000000 * 1000);
    expect(got[1]?.header.mode).toBe(0o600);
  });

  it('reads GNU long names and long link names', async () => {
    const name = `a/${'b'.repeat(200)}`;
    const link = `c/${'d'.repeat(150)}`;
    const archive = Buffer.concat([
      gnuLong('L', name),
      tarHeaderBlock({ name: name.slice(0, 99), typeflag: '0', size: 2, magic: 'gnu' }),
      Buffer.from('hi'),
      tarPadding(2),
      gnuLong('K', link),
      gnuLong('L', `${name}-link`),
      tarHeaderBlock({ name: 'short', typeflag: '2', magic: 'gnu' }),
      Buffer.alloc(1024),
    ]);
    const got = await readAll(archive, 7);
    expect(got.map((e) => [e.header.type, e.header.name, e.header.linkname, e.data])).toEqual([
      ['file', name, '', 'hi'],
      ['symlink', `${name}-link`, link, ''],
    ]);
  });

  it('joins the ustar prefix field and applies pax size and mtime', async () => {
    const pax = Buffer.from('16 mtime=12.375\n');
    const archive = Buffer.concat([
      tarHeaderBlock({ name: 'file.txt', prefix: 'deep/dir', typeflag: '0', size: 3 }),
      Buffer.from('abc'),
      tarPadding(3),
      tarHeaderBlock({ name: 'pax', typeflag: 'x', size: pax.length }),
      pax,
      tarPadding(pax.length),
      tarHeaderBlock({ name: 'old-dir/', typeflag: '\0' }),
      Buffer.alloc(1024),
    ]);
    const got = await readAll(archive);
    expect(got[0]?.header.name).toBe('deep/dir/file.txt');
    expect(got[1]?.header.type).toBe('dir');
    expect(got[1]?.header.mtimeMs).toBe(12375);
  });

  it('decodes GNU base-256 sizes', async () => {
    const block = tarHeaderBlock({ name: 'big', typeflag: '0', size: 0 });
    // Re-encode size 5 as base-256 and fix the checksum.
    block.fill(0, 124, 136);
    block[124] = 0x80;
    block[135] = 5;
    block.fill(0x20, 148, 156);
    let sum = 0;
    for (const b of block) sum += b;
    block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
    const got = await readAll(Buffer.concat([block, Buffer.from('12345'), tarPadding(5), Buffer.alloc(1024)]));
    expect(got[0]?.data).toBe('12345');
  });

  it('ignores data sizes of header-only entries and skips unread bodies', async () => {
    const archive = Buffer.concat([
      tarHeaderBlock({ name: 'skipped', typeflag: '0', size: 700 }),
      Buffer.alloc(700, 0x41),
      tarPadding(700),
      tarHeaderBlock({ name: 'after', typeflag: '0', size: 1 }),
      Buffer.from('z'),
      tarPadding(1),
      Buffer.alloc(1024),
    ]);
    const names: string[] = [];
    for await (const e of readTar(chunked(archive, 300))) names.push(e.header.name);
    expect(names).toEqual(['skipped', 'after']);
  });

  it('rejects a corrupted header checksum', async () => {
    const archive = writeTar([{ path: 'a', type: 'file', data: Buffer.from('x') }]);
    archive[0] = 0x62; // name "a" -> "b" without fixing the checksum
    await expect(readAll(archive)).rejects.toThrow('invalid tar header: checksum mismatch');
  });

  it('rejects a truncated archive', async () => {
    const archive = writeTar([{ path: 'a', type: 'file', data: Buffer.alloc(2000, 1) }]);
    await expect(readAll(archive.subarray(0, 1200))).rejects.toThrow('unexpected EOF');
  });

  it('treats a clean end of input without end marker as the end', async () => {
    const archive = writeTar([{ path: 'a', type: 'file', data: Buffer.from('x') }]);
    const got = await readAll(archive.subarray(0, 1024));
    expect(got.map((e) => e.header.name)).toEqual(['a']);
  });

  it('round-trips arbitrary entries under arbitrary chunking (property)', async () => {
    const segment = fc.stringMatching(/^[a-z0-9._-]{1,40}$/).filter((s) => s !== '.' && s !== '..');
    const entry = fc.record({
      path: fc.array(segment, { minLength: 1, maxLength: 6 }).map((p) => p.join('/')),
      data: fc.uint8Array({ maxLength: 1500 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { maxLength: 6 }), fc.integer({ min: 1, max: 2048 }), async (entries, chunk) => {
        const archive = writeTar(entries.map((e) => ({ path: e.path, type: 'file' as const, data: Buffer.from(e.data) })));
        const got: Array<{ name: string; data: Buffer }> = [];
        for await (const e of readTar(chunked(archive, chunk))) {
          const parts: Buffer[] = [];
          for await (const c of e.body) parts.push(Buffer.from(c));
          got.push({ name: e.header.name, data: Buffer.concat(parts) });
        }
        expect(got.map((g) => g.name)).toEqual(entries.map((e) => e.path));
        expect(got.map((g) => g.data.toString('hex'))).toEqual(entries.map((e) => Buffer.from(e.data).toString('hex')));
      }),
      { numRuns: 60 },
    );
  });
});
