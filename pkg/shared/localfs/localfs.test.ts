import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalFileError, listDir, openRegularFileSync, openTree, readRegularFile } from './index.ts';

const q = JSON.stringify;
let base: string;
let root: string;
let socketServer: Server;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'localfs-'));
  root = join(base, 'tree');
  await mkdir(join(root, 'sub'), { recursive: true });
  await writeFile(join(root, 'file.yaml'), 'schema: x\n');
  await writeFile(join(root, 'sub', 'inner.json'), '{}');
  await writeFile(join(base, 'token'), 'secret-token-value');
  await symlink('file.yaml', join(root, 'link-file'));
  await symlink('sub', join(root, 'link-dir'));
  await symlink(join(base, 'token'), join(root, 'link-out'));
  await symlink('../tree/sub/../../token', join(root, 'link-out-relative'));
  await symlink('/dev/zero', join(root, 'link-zero'));
  await symlink('missing', join(root, 'link-dangling'));
  execFileSync('mkfifo', [join(root, 'fifo')]);
  socketServer = createServer();
  await new Promise<void>((done) => socketServer.listen(join(root, 'socket'), done));
});

afterAll(async () => {
  await new Promise((done) => socketServer.close(done));
  await rm(base, { recursive: true, force: true });
});

describe('listing a tree', () => {
  it('keeps regular files, directories and links to them inside the tree, and refuses everything else naming the entry', async () => {
    const tree = await openTree(root);
    const entries = await listDir(tree, []);
    const byName = Object.fromEntries(entries.map((e) => [e.name, e]));
    expect(Object.keys(byName).sort()).toEqual([
      'fifo',
      'file.yaml',
      'link-dangling',
      'link-dir',
      'link-file',
      'link-out',
      'link-out-relative',
      'link-zero',
      'socket',
      'sub',
    ]);
    expect(byName['file.yaml']).toEqual({ name: 'file.yaml', path: join(root, 'file.yaml'), kind: 'file', link: false });
    expect(byName['sub']).toMatchObject({ kind: 'dir', link: false });
    expect(byName['link-file']).toMatchObject({ kind: 'file', link: true });
    expect(byName['link-dir']).toMatchObject({ kind: 'dir', link: true });
    const refusals = Object.fromEntries(entries.filter((e) => e.kind === 'refused').map((e) => [e.name, e.kind === 'refused' ? e.refusal : '']));
    const p = (name: string): string => q(join(root, name));
    expect(refusals).toEqual({
      fifo: `refusing ${p('fifo')}: a FIFO, not a regular file or directory`,
      socket: `refusing ${p('socket')}: a socket, not a regular file or directory`,
      'link-zero': `refusing ${p('link-zero')}: a symbolic link leading outside ${q(root)}`,
      'link-out': `refusing ${p('link-out')}: a symbolic link leading outside ${q(root)}`,
      'link-out-relative': `refusing ${p('link-out-relative')}: a symbolic link leading outside ${q(root)}`,
      'link-dangling': `refusing ${p('link-dangling')}: a symbolic link that does not resolve (no such file or directory)`,
    });
    // Never the target's name or content.
    expect(Object.values(refusals).join('\n')).not.toMatch(/token|dev\/zero|missing/);
  });

  it('refuses a link to a device inside the tree for its type', async () => {
    const devRoot = '/dev';
    const tree = await openTree(devRoot);
    const zero = (await listDir(tree, [])).find((e) => e.name === 'zero');
    expect(zero).toEqual({
      name: 'zero',
      path: '/dev/zero',
      kind: 'refused',
      link: false,
      refusal: 'refusing "/dev/zero": a character device, not a regular file or directory',
    });
  });

  it('names the root when it is missing or not a directory, and a directory it cannot list', async () => {
    await expect(openTree(join(base, 'nope'))).rejects.toThrow(`open ${q(join(base, 'nope'))}: no such file or directory`);
    await expect(openTree(join(root, 'file.yaml'))).rejects.toThrow(`${q(join(root, 'file.yaml'))} is not a directory`);
    const tree = await openTree(root);
    await expect(listDir(tree, ['file.yaml'])).rejects.toThrow(`reading directory ${q(join(root, 'file.yaml'))}: not a directory`);
  });
});

describe('reading a file', () => {
  it('reads a regular file, through a link too', async () => {
    expect((await readRegularFile(join(root, 'link-file'), { maxBytes: 100 })).toString()).toBe('schema: x\n');
  });

  it('reads a large file into one Buffer that owns its memory (a caller may free it whole)', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < big.length; i += 4096) big[i] = i % 251;
    await writeFile(join(base, 'big'), big);
    const read = await readRegularFile(join(base, 'big'), { maxBytes: big.length });
    expect(read.equals(big)).toBe(true);
    expect(read.byteOffset).toBe(0);
    expect(read.buffer.byteLength).toBe(big.length);
    await expect(readRegularFile(join(base, 'big'), { maxBytes: big.length - 1 })).rejects.toThrow('is larger than');
  });

  it('refuses a FIFO, a device and a directory at once, naming the path', async () => {
    await expect(readRegularFile(join(root, 'fifo'), { maxBytes: 100 })).rejects.toThrow(
      `refusing ${q(join(root, 'fifo'))}: a FIFO, not a regular file`,
    );
    await expect(readRegularFile('/dev/zero', { maxBytes: 100 })).rejects.toThrow('refusing "/dev/zero": a character device, not a regular file');
    await expect(readRegularFile(join(root, 'sub'), { maxBytes: 100 })).rejects.toThrow(`read ${q(join(root, 'sub'))}: is a directory`);
    expect(() => openRegularFileSync(join(root, 'fifo'))).toThrow(LocalFileError);
    expect(() => openRegularFileSync(join(root, 'link-dir'))).toThrow(`read ${q(join(root, 'link-dir'))}: is a directory`);
  });

  it('refuses a file larger than the limit before reading it', async () => {
    await expect(readRegularFile(join(root, 'file.yaml'), { maxBytes: 4 })).rejects.toThrow(`${q(join(root, 'file.yaml'))} is larger than 4 bytes`);
  });

  it('names the path when the file is missing', async () => {
    const err = await readRegularFile(join(root, 'gone'), { maxBytes: 4 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LocalFileError);
    expect((err as LocalFileError).message).toBe(`open ${q(join(root, 'gone'))}: no such file or directory`);
    expect((err as LocalFileError).path).toBe(join(root, 'gone'));
  });
});
