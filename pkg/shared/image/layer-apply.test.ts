import { lstat, mkdtemp, readFile, readdir, readlink, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeEscapingSymlinks } from './fs-tree.ts';
import { applyLayer } from './layer-apply.ts';
import { onlyPath } from './path-filter.ts';
import { readTar } from './tar-reader.ts';
import { tarHeaderBlock, tarPadding, writeTar, type TarWriteEntry } from './tar-writer.ts';

let root: string;
let outside: string;

beforeEach(async () => {
  outside = await mkdtemp(join(tmpdir(), 'olmv1-apply-test-'));
  root = join(outside, 'root');
  await import('node:fs/promises').then((fs) => fs.mkdir(root));
});

afterEach(async () => {
  await rm(outside, { recursive: true, force: true });
});

async function* once(data: Buffer): AsyncGenerator<Buffer> {
  yield data;
}

async function apply(entries: TarWriteEntry[], filter?: string): Promise<void> {
  await applyLayer(root, readTar(once(writeTar(entries))), { filter: filter === undefined ? undefined : onlyPath(filter) });
}

const file = (path: string, data = path, extra: Partial<TarWriteEntry> = {}): TarWriteEntry => ({
  path,
  type: 'file',
  data: Buffer.from(data),
  ...extra,
});

async function tree(dir = root, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    const rel = `${prefix}${e.name}`;
    if (e.isDirectory()) {
      out.push(`${rel}/`);
      out.push(...(await tree(join(dir, e.name), `${rel}/`)));
    } else if (e.isSymbolicLink()) {
      out.push(`${rel} -> ${await readlink(join(dir, e.name))}`);
    } else {
      out.push(`${rel}=${await readFile(join(dir, e.name), 'utf8')}`);
    }
  }
  return out;
}

describe('applyLayer', () => {
  it('applies whiteouts and opaque directories across layers', async () => {
    await apply([
      { path: 'a', type: 'dir' },
      file('a/keep'),
      file('a/gone'),
      { path: 'a/sub', type: 'dir' },
      file('a/sub/x'),
      { path: 'b', type: 'dir' },
      file('b/old1'),
      { path: 'b/olddir', type: 'dir' },
      file('b/olddir/y'),
    ]);
    await apply([file('a/.wh.gone'), file('a/.wh.sub'), file('b/.wh..wh..opq'), file('b/new'), file('c/.wh.nothing')]);
    expect(await tree()).toEqual(['a/', 'a/keep=a/keep', 'b/', 'b/new=b/new', 'c/']);
  });

  it('keeps what the same layer created when an opaque whiteout follows it', async () => {
    await apply([{ path: 'd', type: 'dir' }, file('d/old'), { path: 'd/keepdir', type: 'dir' }, file('d/keepdir/old')]);
    await apply([{ path: 'd/keepdir', type: 'dir' }, file('d/keepdir/new'), file('d/.wh..wh..opq')]);
    expect(await tree()).toEqual(['d/', 'd/keepdir/', 'd/keepdir/new=d/keepdir/new']);
  });

  it('replaces files, directories and links, and merges directory over directory', async () => {
    await apply([{ path: 'x', type: 'dir' }, file('x/inner'), file('f', 'old'), { path: 'l', type: 'symlink', linkname: 'f' }]);
    await apply([file('x', 'now a file'), { path: 'f', type: 'dir' }, file('l', 'link replaced')]);
    await apply([{ path: 'f', type: 'dir', mode: 0o700 }, file('f/child')]);
    expect(await tree()).toEqual(['f/', 'f/child=f/child', 'l=link replaced', 'x=now a file']);
  });

  it('resolves parents through symlinks inside the root and never escapes it', async () => {
    await apply([
      { path: 'real', type: 'dir' },
      { path: 'via', type: 'symlink', linkname: 'real' },
      { path: 'x/etc', type: 'symlink', linkname: '/etc' },
      { path: 'up', type: 'symlink', linkname: '../../..' },
    ]);
    await apply([file('via/f', 'through link'), file('x/etc/passwd', 'contained'), file('up/escaped', 'contained too'), file('../outside', 'no')]);
    expect(await readFile(join(root, 'real/f'), 'utf8')).toBe('through link');
    // `/etc` is re-anchored at the root, so the write lands in <root>/etc.
    expect(await readlink(join(root, 'x/etc'))).toBe('../etc');
    expect(await readFile(join(root, 'etc/passwd'), 'utf8')).toBe('contained');
    expect(await readFile(join(root, 'escaped'), 'utf8')).toBe('contained too');
    expect(await readdir(outside)).toEqual(['root']);
  });

  it('re-resolves parents when a layer replaces a directory by a symlink halfway', async () => {
    await apply([
      { path: 'a', type: 'dir' },
      file('a/f1'),
      { path: 'b', type: 'dir' },
      file('.wh.a'),
      { path: 'a', type: 'symlink', linkname: 'b' },
      file('a/f2'),
      file('b/f3'),
    ]);
    expect(await tree()).toEqual(['a -> b', 'b/', 'b/f2=a/f2', 'b/f3=b/f3']);
  });

  it('rewrites absolute symlink targets relative to the link', async () => {
    await apply([
      { path: 'usr/share', type: 'dir' },
      file('usr/share/zone', 'UTC'),
      { path: 'etc/localtime', type: 'symlink', linkname: '/usr/share/zone' },
    ]);
    expect(await readlink(join(root, 'etc/localtime'))).toBe('../usr/share/zone');
    expect(await readFile(join(root, 'etc/localtime'), 'utf8')).toBe('UTC');
  });

  it('creates hard links inside the root and refuses ones pointing outside', async () => {
    await apply([file('data', 'shared'), { path: 'copy', type: 'hardlink', linkname: '/data' }]);
    expect((await stat(join(root, 'copy'))).ino).toBe((await stat(join(root, 'data'))).ino);
    await expect(apply([{ path: 'evil', type: 'hardlink', linkname: '../../etc/passwd' }])).rejects.toThrow('points outside the image');
  });

  it('forces owner rwx during unpack and sets directory mtimes from headers', async () => {
    await apply([{ path: 'd', type: 'dir', mode: 0o555, mtime: 1_000_000 }, file('d/f', 'x', { mode: 0o444, mtime: 2_000_000 })]);
    expect((await stat(join(root, 'd'))).mode & 0o777).toBe(0o755);
    expect((await stat(join(root, 'd/f'))).mode & 0o777).toBe(0o744);
    expect((await stat(join(root, 'd'))).mtimeMs).toBe(1_000_000_000);
    expect((await stat(join(root, 'd/f'))).mtimeMs).toBe(2_000_000_000);
  });

  it('skips device and fifo entries and fails on unknown types', async () => {
    const special = (name: string, flag: string): Buffer => tarHeaderBlock({ name, typeflag: flag });
    const archive = Buffer.concat([special('fifo', '6'), special('chr', '3'), special('blk', '4'), Buffer.alloc(1024)]);
    await applyLayer(root, readTar(once(archive)));
    expect(await readdir(root)).toEqual([]);
    const sparse = Buffer.concat([tarHeaderBlock({ name: 's', typeflag: 'S' }), tarPadding(0), Buffer.alloc(1024)]);
    await expect(applyLayer(root, readTar(once(sparse)))).rejects.toThrow('unhandled tar header type 83');
  });

  it('unpacks only the label directory, ignoring whiteouts outside it', async () => {
    await apply([file('configs/catalog.json', '{}'), file('configsfoo/x'), file('other/y'), file('/configs/nested/z')], '/configs');
    expect(await tree()).toEqual(['configs/', 'configs/catalog.json={}', 'configs/nested/', 'configs/nested/z=/configs/nested/z']);
    await apply([file('.wh.configs'), file('configs/.wh.catalog.json')], 'configs');
    expect(await tree()).toEqual(['configs/', 'configs/nested/', 'configs/nested/z=/configs/nested/z']);
  });

  it('fails with the filter error for a label that climbs out of the root', async () => {
    await expect(apply([file('anything')], '../not-supported')).rejects.toThrow(/^error getting relative path: /);
  });
});

describe('removeEscapingSymlinks', () => {
  it('removes links whose host resolution leaves the root and keeps contained ones', async () => {
    await apply([
      { path: 'dir/sub', type: 'dir' },
      file('dir/sub/target'),
      { path: 'dir/ok', type: 'symlink', linkname: 'sub/target' },
      { path: 'dir/up-ok', type: 'symlink', linkname: '../dir/sub' },
      { path: 'dir/dangling', type: 'symlink', linkname: 'missing/../../x' },
      { path: 'dir/bad', type: 'symlink', linkname: '../../etc/passwd' },
      { path: 'self', type: 'symlink', linkname: '.' },
      { path: 'dir/chain', type: 'symlink', linkname: '../self/..' },
    ]);
    const removed = await removeEscapingSymlinks(root);
    expect(removed.sort()).toEqual(['dir/bad', 'dir/chain']);
    expect((await lstat(join(root, 'dir/ok'))).isSymbolicLink()).toBe(true);
    expect((await lstat(join(root, 'dir/up-ok'))).isSymbolicLink()).toBe(true);
    expect((await lstat(join(root, 'dir/dangling'))).isSymbolicLink()).toBe(true);
  });
});
