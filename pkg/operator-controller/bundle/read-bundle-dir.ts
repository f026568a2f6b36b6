/**
 * Filesystem edge of bundle parsing: reads an unpacked bundle directory into the
 * path-to-bytes map that `parseBundle` takes. Kept apart from the pure parser so that
 * images (unpacked by the OCI client) and directories go through the same code.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalFileError, type LocalTree, listDir, openTree, readRegularFile } from '../../shared/localfs/index.ts';
import type { BundleFiles } from './types.ts';

/** Directory nesting deeper than this is refused (it also stops symbolic-link loops). */
const MAX_DEPTH = 32;

/** Files larger than this are refused: no legitimate bundle file comes close. */
const MAX_BUNDLE_FILE_BYTES = 64 * 1024 * 1024;

/**
 * Reads every regular file under `dir` (recursively) into a map keyed by `/`-separated paths
 * relative to `dir`. Directories are also recorded, as keys ending in `/`, so that an empty
 * subdirectory of `manifests/` is still reported. Symbolic links are followed when they lead
 * to a regular file or directory inside `dir` (pkg/shared/localfs); anything else (a FIFO, socket or
 * device, a link leading outside) fails the read with its path, before any content is read.
 *
 * @throws LocalFileError or Error naming the path when `dir` or an entry cannot or must not be
 *   read, a file exceeds `MAX_BUNDLE_FILE_BYTES`, or directories nest deeper than 32 levels.
 */
export async function readBundleDir(dir: string): Promise<BundleFiles> {
  let tree: LocalTree;
  try {
    tree = await openTree(dir);
  } catch (cause) {
    throw new Error(`reading bundle directory ${JSON.stringify(dir)}: ${(cause as Error).message}`, { cause });
  }
  const files = new Map<string, Uint8Array>();
  await walk(tree, [], files);
  return files;
}

async function walk(tree: LocalTree, dir: string[], files: Map<string, Uint8Array>): Promise<void> {
  if (dir.length > MAX_DEPTH) throw new Error(`bundle directory ${JSON.stringify(tree.root)} nests deeper than ${MAX_DEPTH} levels`);
  for (const entry of await listDir(tree, dir)) {
    const rel = [...dir, entry.name];
    const key = rel.join('/');
    if (entry.kind === 'refused') throw new LocalFileError(entry.path, entry.refusal);
    if (entry.kind === 'dir') {
      files.set(`${key}/`, new Uint8Array());
      await walk(tree, rel, files);
      continue;
    }
    files.set(key, await readRegularFile(entry.path, { maxBytes: MAX_BUNDLE_FILE_BYTES }));
  }
}

/**
 * About how many bytes `readBundleDir(dir)` would read: the sizes of the regular files under
 * `dir` (symbolic links counted by what they lead to), without reading any. For sizing what a
 * bundle costs before its files are read; entries that cannot be examined count 0 (the read
 * reports them).
 */
export async function bundleDirBytes(dir: string): Promise<number> {
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch {
    return 0;
  }
  let total = 0;
  for (const entry of entries) {
    if (entry.isDirectory()) continue;
    const size = await stat(join(entry.parentPath, entry.name)).then(
      (s) => (s.isFile() ? s.size : 0),
      () => 0,
    );
    total += size;
  }
  return total;
}
