/** Whole-tree operations on unpacked images. */
import { chmod, lstat, readFile, readdir, rm, stat, unlink } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { symlinkEscapes } from './root-path.ts';
import { isErrno } from '../errors/index.ts';

/**
 * Makes `root` and everything under it read-only for its owner: regular files 0400,
 * directories 0500; symlinks are left alone.
 *
 * @throws Error `refusing to change ownership of file "<path>" with type <type>` for any other
 *   file type (the unpacker never creates one).
 */
export async function makeReadOnly(root: string): Promise<void> {
  const st = await lstat(root);
  if (st.isSymbolicLink()) return;
  if (st.isFile()) {
    await chmod(root, 0o400);
    return;
  }
  if (!st.isDirectory()) throw refuseType(root, st);
  await makeDirReadOnly(root);
}

async function makeDirReadOnly(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) await makeDirReadOnly(p);
    else if (entry.isFile()) await chmod(p, 0o400);
    else if (!entry.isSymbolicLink()) throw refuseType(p, entry);
  }
  await chmod(dir, 0o500);
}

function refuseType(p: string, st: { isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean }): Error {
  const type = st.isFIFO() ? 'fifo' : st.isSocket() ? 'socket' : st.isCharacterDevice() ? 'char device' : 'block device';
  return new Error(`refusing to change ownership of file ${JSON.stringify(p)} with type ${type}`);
}

/** Gives the owner write access to every directory under `root` so it can be deleted. */
async function makeDirsWritable(p: string): Promise<void> {
  const st = await lstat(p);
  if (!st.isDirectory()) return;
  await chmod(p, 0o700);
  for (const name of await readdir(p)) await makeDirsWritable(join(p, name));
}

/** Deletes `p` (file or tree, possibly read-only). A missing `p` is not an error. */
export async function deleteReadOnly(p: string): Promise<void> {
  try {
    await makeDirsWritable(p);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return;
    throw err;
  }
  await rm(p, { recursive: true, force: true });
}

/** The modification time of directory `p`; undefined when `p` does not exist. */
export async function dirModTime(p: string): Promise<{ isDir: boolean; mtime: Date } | undefined> {
  try {
    const st = await stat(p);
    return { isDir: st.isDirectory(), mtime: st.mtime };
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return undefined;
    throw err;
  }
}

/** Removes every symlink under `root` that would resolve outside it, returning their paths (for logging). */
export async function removeEscapingSymlinks(root: string): Promise<string[]> {
  const removed: string[] = [];
  async function walk(rel: string): Promise<void> {
    for (const entry of await readdir(join(root, rel), { withFileTypes: true })) {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        await walk(child);
      } else if (entry.isSymbolicLink() && (await symlinkEscapes(root, child))) {
        await unlink(join(root, child));
        removed.push(child);
      }
    }
  }
  await walk('');
  return removed;
}

/**
 * Reads every regular file under `root` into a map keyed by root-relative slash paths.
 * Symlinks to regular files inside the root are read through; other links are skipped.
 *
 * @throws Error `image content exceeds <n> bytes` when the files add up to more than
 *   `maxBytes`.
 */
export async function readTreeFiles(root: string, maxBytes: number): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  let total = 0;
  async function walk(rel: string): Promise<void> {
    const entries = await readdir(join(root, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const child = rel === '' ? entry.name : posix.join(rel, entry.name);
      if (entry.isDirectory()) {
        await walk(child);
        continue;
      }
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      let st;
      try {
        st = await stat(join(root, child));
      } catch (err) {
        if (isErrno(err, 'ENOENT')) continue; // dangling link
        throw err;
      }
      if (!st.isFile()) continue;
      total += st.size;
      if (total > maxBytes) throw new Error(`image content exceeds ${maxBytes} bytes`);
      files.set(child, await readFile(join(root, child)));
    }
  }
  await walk('');
  return files;
}
