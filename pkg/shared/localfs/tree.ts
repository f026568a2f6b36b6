/**
 * Listing a directory tree a user names so that only regular files and directories inside it
 * are ever read: a FIFO or device would hang the reader, a link out of the tree could echo a
 * secret into an error. Such entries are listed as refused, naming the entry, never the target.
 * A link is kept only when its `realpath` ends inside the tree's real root, at a file or a
 * directory; plain entries are classified from their directory entry, at no extra system call.
 */
import type { Dirent, Stats } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { LocalFileError, describeType, reasonOf } from './errors.ts';

/** A directory tree opened for reading: the root as given and as the kernel resolves it. */
export interface LocalTree {
  /** The root as the caller gave it; entry paths start with it. */
  readonly root: string;
  /** `realpath(root)`: links must resolve to it or below it. */
  readonly realRoot: string;
}

/** One entry of a listed directory: a regular file or directory inside the tree, or refused. */
type TreeEntry = EntryBase & ({ kind: 'file' | 'dir' } | { kind: 'refused'; /** The message to report, naming `path`. */ refusal: string });

interface EntryBase {
  name: string;
  /** `join(root, ...dir, name)`: the path messages name. */
  path: string;
  /** True for a symbolic link (to a regular file or directory inside the tree, unless refused). */
  link: boolean;
}

/**
 * Opens the tree at `root`.
 * @throws LocalFileError naming `root` when it does not exist or is not a directory.
 */
export async function openTree(root: string): Promise<LocalTree> {
  let st: Stats;
  let realRoot: string;
  try {
    st = await stat(root);
    realRoot = await realpath(root);
  } catch (cause) {
    throw new LocalFileError(root, `open ${JSON.stringify(root)}: ${reasonOf(cause)}`, { cause });
  }
  if (!st.isDirectory()) throw new LocalFileError(root, `${JSON.stringify(root)} is not a directory`);
  return { root, realRoot };
}

/**
 * Lists the directory `dir` (path components below the root) in the order `readdir` returns
 * them, classifying every entry.
 * @throws LocalFileError naming the directory when it cannot be read.
 */
export async function listDir(tree: LocalTree, dir: readonly string[]): Promise<TreeEntry[]> {
  const dirPath = join(tree.root, ...dir);
  let dirents: Dirent[];
  try {
    dirents = await readdir(dirPath, { withFileTypes: true });
  } catch (cause) {
    throw new LocalFileError(dirPath, `reading directory ${JSON.stringify(dirPath)}: ${reasonOf(cause)}`, { cause });
  }
  const out: TreeEntry[] = [];
  for (const d of dirents) out.push(await classify(tree, join(dirPath, d.name), d));
  return out;
}

async function classify(tree: LocalTree, path: string, d: Dirent): Promise<TreeEntry> {
  const name = d.name;
  if (d.isFile()) return { name, path, kind: 'file', link: false };
  if (d.isDirectory()) return { name, path, kind: 'dir', link: false };
  if (!d.isSymbolicLink()) return refused(name, path, false, `refusing ${JSON.stringify(path)}: ${describeType(d)}, not a regular file or directory`);
  let target: string;
  let st: Stats;
  try {
    target = await realpath(path);
    st = await stat(target);
  } catch (cause) {
    return refused(name, path, true, `refusing ${JSON.stringify(path)}: a symbolic link that does not resolve (${reasonOf(cause)})`);
  }
  if (target !== tree.realRoot && !target.startsWith(tree.realRoot.endsWith(sep) ? tree.realRoot : tree.realRoot + sep)) {
    return refused(name, path, true, `refusing ${JSON.stringify(path)}: a symbolic link leading outside ${JSON.stringify(tree.root)}`);
  }
  if (st.isFile()) return { name, path, kind: 'file', link: true };
  if (st.isDirectory()) return { name, path, kind: 'dir', link: true };
  return refused(name, path, true, `refusing ${JSON.stringify(path)}: a symbolic link to ${describeType(st)}, not a regular file or directory`);
}

function refused(name: string, path: string, link: boolean, refusal: string): TreeEntry {
  return { name, path, kind: 'refused', link, refusal };
}
