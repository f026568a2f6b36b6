/**
 * Filesystem edge of bundle parsing: reads an unpacked bundle directory into the
 * path-to-bytes map that `parseBundle` takes. Kept apart from the pure parser so that
 * images (unpacked by the OCI client) and directories go through the same code.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { BundleFiles } from './types.ts';

/** Directory nesting deeper than this is refused (it also stops symbolic-link loops). */
const MAX_DEPTH = 32;

/** Files larger than this are refused: no legitimate bundle file comes close. */
export const MAX_BUNDLE_FILE_BYTES = 64 * 1024 * 1024;

/**
 * Reads every regular file under `dir` (recursively; symbolic links are followed as the
 * filesystem resolves them) into a map keyed by `/`-separated paths relative to `dir`.
 * Directories are also recorded, as keys ending in `/`, so that an empty subdirectory of
 * `manifests/` is still reported.
 *
 * @throws Error (with `cause`) when `dir` cannot be read, a file exceeds
 *   `MAX_BUNDLE_FILE_BYTES`, or directories nest deeper than 32 levels.
 */
export async function readBundleDir(dir: string): Promise<BundleFiles> {
  const files = new Map<string, Uint8Array>();
  await walk(dir, dir, files, 0);
  return files;
}

async function walk(root: string, dir: string, files: Map<string, Uint8Array>, depth: number): Promise<void> {
  if (depth > MAX_DEPTH) throw new Error(`bundle directory ${JSON.stringify(root)} nests deeper than ${MAX_DEPTH} levels`);
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (cause) {
    throw new Error(`reading bundle directory ${JSON.stringify(dir)}: ${(cause as Error).message}`, { cause });
  }
  for (const entry of entries) {
    const full = join(dir, entry.name);
    const rel = relative(root, full).split(sep).join('/');
    const isDir = entry.isDirectory() || (entry.isSymbolicLink() && (await stat(full)).isDirectory());
    if (isDir) {
      files.set(`${rel}/`, new Uint8Array());
      await walk(root, full, files, depth + 1);
      continue;
    }
    const bytes = await readFile(full);
    if (bytes.length > MAX_BUNDLE_FILE_BYTES) {
      throw new Error(`bundle file ${JSON.stringify(rel)} is larger than ${MAX_BUNDLE_FILE_BYTES} bytes`);
    }
    files.set(rel, bytes);
  }
}
