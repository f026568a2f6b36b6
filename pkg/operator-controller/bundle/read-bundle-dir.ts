/**
 * Filesystem edge of bundle parsing: reads an unpacked bundle directory into the `BundleFiles`
 * that `parseBundle` takes, so that images and directories go through the same code.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalFileError, type LocalTree, listDir, openTree, readRegularFile } from '../../shared/localfs/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';

/** Directory nesting deeper than this is refused (it also stops symbolic-link loops). */
const MAX_DEPTH = 32;

/** Files larger than this are refused: no legitimate bundle file comes close. */
const MAX_BUNDLE_FILE_BYTES = 64 * 1024 * 1024;

/**
 * What one read may take in all, links followed: a symbolic link is read again wherever it
 * appears, so without these a few links to one large file would make a small image read
 * without end. No legitimate bundle comes close.
 */
const MAX_BUNDLE_TREE_BYTES = 64 * 1024 * 1024;
const MAX_BUNDLE_TREE_ENTRIES = 20_000;

/** What a read has taken so far (see MAX_BUNDLE_TREE_BYTES). */
interface Taken {
  bytes: number;
  entries: number;
}

/**
 * Reads every regular file under `dir` (recursively) into a map keyed by `/`-separated relative
 * paths; directories are recorded as keys ending in `/` (so an empty `manifests/` subdirectory
 * is reported). Symbolic links are followed only to regular files or directories inside `dir`.
 *
 * @throws LocalFileError or Error naming the path when an entry cannot or must not be read, or
 *   a file, the nesting or the whole read exceeds its limit.
 */
export async function readBundleDir(dir: string): Promise<Map<string, Uint8Array>> {
  let tree: LocalTree;
  try {
    tree = await openTree(dir);
  } catch (cause) {
    throw new Error(`reading bundle directory ${JSON.stringify(dir)}: ${errorMessage(cause)}`, { cause });
  }
  const files = new Map<string, Uint8Array>();
  await walk(tree, [], files, { bytes: 0, entries: 0 });
  return files;
}

async function walk(tree: LocalTree, dir: string[], files: Map<string, Uint8Array>, taken: Taken): Promise<void> {
  if (dir.length > MAX_DEPTH) throw new Error(`bundle directory ${JSON.stringify(tree.root)} nests deeper than ${MAX_DEPTH} levels`);
  for (const entry of await listDir(tree, dir)) {
    const rel = [...dir, entry.name];
    const key = rel.join('/');
    if (entry.kind === 'refused') throw new LocalFileError(entry.path, entry.refusal);
    if (++taken.entries > MAX_BUNDLE_TREE_ENTRIES) throw tooLarge(tree, `more than ${MAX_BUNDLE_TREE_ENTRIES} entries`);
    if (entry.kind === 'dir') {
      files.set(`${key}/`, new Uint8Array());
      await walk(tree, rel, files, taken);
      continue;
    }
    const left = MAX_BUNDLE_TREE_BYTES - taken.bytes;
    const limit = Math.min(MAX_BUNDLE_FILE_BYTES, left);
    let bytes: Uint8Array;
    try {
      bytes = await readRegularFile(entry.path, { maxBytes: limit });
    } catch (err) {
      // Over what the files read before it left, not over the size of one file: the tree is too large.
      if (limit < MAX_BUNDLE_FILE_BYTES && err instanceof LocalFileError && err.message.endsWith(`is larger than ${limit} bytes`)) {
        throw tooLarge(tree, `more than ${MAX_BUNDLE_TREE_BYTES} bytes`, err);
      }
      throw err;
    }
    taken.bytes += bytes.byteLength;
    files.set(key, bytes);
  }
}

function tooLarge(tree: LocalTree, what: string, cause?: unknown): Error {
  return new Error(`bundle directory ${JSON.stringify(tree.root)} reads ${what} (symbolic links counted wherever they appear)`, { cause });
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
