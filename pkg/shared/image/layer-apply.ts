/**
 * Applies one layer's tar entries onto an unpack root as containerd's naive applier does for
 * upstream: names cleaned, entries at the root ignored and escaping ones (`../x`) skipped, parents
 * resolved through symlinks inside the root; `.wh.<name>` removes `<name>`, `.wh..wh..opq` empties
 * its directory of what this layer did not create (whiteouts are never written); an existing
 * path is replaced except directory over directory (merged); ownership ignored, modes `| 0700`,
 * absolute link targets re-anchored at the root, devices and FIFOs skipped; directory mtimes set
 * once the layer is complete. The optional filter applies to every entry, whiteouts included.
 */
import { chmod, link, lstat, lutimes, mkdir, open, readdir, rm, symlink, utimes } from 'node:fs/promises';
import { dirname, join, posix, relative } from 'node:path';
import type { Logger } from 'pino';
import { goCleanPath } from './go-path.ts';
import type { ImageBudget } from './limits.ts';
import type { EntryFilter } from './path-filter.ts';
import { confineLinkTarget, resolveInRoot } from './root-path.ts';
import type { TarEntry } from './tar-reader.ts';
import { isErrno } from '../errors/index.ts';

/** Logging used by the unpacker (a pino Logger fits). */
export type UnpackLog = Pick<Logger, 'debug' | 'warn'>;

/** Options for {@link applyLayer}. */
interface ApplyLayerOptions {
  filter?: EntryFilter | undefined;
  log?: UnpackLog | undefined;
  /** Counts each entry about to be created (a file by its header's size, before its data). */
  budget?: ImageBudget | undefined;
}

const WHITEOUT_PREFIX = '.wh.';
const OPAQUE_WHITEOUT = '.wh..wh..opq';
// Entry types that create something (special files are skipped).
const CREATED = new Set(['dir', 'file', 'symlink', 'hardlink']);

async function exists(p: string): Promise<Awaited<ReturnType<typeof lstat>> | undefined> {
  try {
    return await lstat(p);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return undefined;
    throw err;
  }
}

/** Removes every entry under `dir` that is not in `keep`, descending into kept directories. */
async function removeOpaque(dir: string, keep: ReadonlySet<string>): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (!keep.has(p)) {
      await rm(p, { recursive: true, force: true });
    } else if (entry.isDirectory()) {
      await removeOpaque(p, keep);
    }
  }
}

/**
 * Applies `entries` (one layer) onto `root`, which must exist.
 *
 * @throws the filter's error, a filesystem error, `unhandled tar header type <n>` for an
 *   unknown entry type, or an error from `entries` itself (the caller tells them apart).
 */
export async function applyLayer(root: string, entries: AsyncIterable<TarEntry>, options: ApplyLayerOptions = {}): Promise<void> {
  const { filter, log, budget } = options;
  const unpacked = new Set<string>();
  const dirTimes = new Map<string, Date>();
  // Per-layer memo of resolved parent directories and of directories this layer created
  // (known empty at creation). Removing anything or creating a symlink can change how paths
  // resolve, so both are dropped then. This keeps small-file layers to a few syscalls per entry.
  const parents = new Map<string, string>();
  const fresh = new Set<string>();
  const invalidate = (): void => {
    parents.clear();
    fresh.clear();
  };

  for await (const { header, body } of entries) {
    const name = goCleanPath(header.name.startsWith('/') ? header.name.slice(1) : header.name);
    if (name === '.') continue;
    if (name === '..' || name.startsWith('../')) {
      log?.debug({ entry: header.name }, 'skipping layer entry outside the image root');
      continue;
    }
    if (filter !== undefined && !filter(header.name)) continue;

    const parentRel = posix.dirname(name);
    let parent = parents.get(parentRel);
    if (parent === undefined) {
      parent = await resolveInRoot(root, parentRel, true);
      if (relative(root, parent).startsWith('..')) continue;
      if (parent !== root && (await mkdir(parent, { recursive: true, mode: 0o755 })) !== undefined) fresh.add(parent);
      parents.set(parentRel, parent);
    }
    const base = posix.basename(name);
    const path = join(parent, base);

    if (base === OPAQUE_WHITEOUT) {
      await removeOpaque(parent, unpacked);
      invalidate();
      continue;
    }
    if (base.startsWith(WHITEOUT_PREFIX)) {
      const original = base.slice(WHITEOUT_PREFIX.length);
      if (original !== '' && original !== '.' && original !== '..') {
        await rm(join(parent, original), { recursive: true, force: true });
        invalidate();
      }
      continue;
    }

    // Counted before anything changes on disk; a file by the size its header declares.
    if (CREATED.has(header.type)) budget?.entry(header.type === 'file' ? header.size : 0);

    // In a directory this layer created, only this layer's own entries can exist.
    const existing = fresh.has(parent) && !unpacked.has(path) ? undefined : await exists(path);
    if (existing !== undefined && !(existing.isDirectory() && header.type === 'dir')) {
      await rm(path, { recursive: true, force: true });
      invalidate();
    }
    const mode = (header.mode & 0o777) | 0o700;
    const mtime = new Date(header.mtimeMs);

    switch (header.type) {
      case 'dir':
        if (existing?.isDirectory() === true) {
          await chmod(path, mode);
        } else {
          await mkdir(path, { mode });
          fresh.add(path);
        }
        parents.set(name, path);
        dirTimes.set(path, mtime);
        break;
      case 'file':
        await writeFileEntry(path, mode, mtime, body);
        break;
      case 'symlink':
        await symlink(confineLinkTarget(relative(root, dirname(path)), header.linkname), path);
        await lutimes(path, mtime, mtime);
        invalidate();
        break;
      case 'hardlink': {
        const target = await hardlinkTarget(root, header.linkname);
        if (target === undefined) {
          throw new Error(`hard link ${JSON.stringify(header.name)} points outside the image: ${JSON.stringify(header.linkname)}`);
        }
        await link(target, path);
        break;
      }
      case 'char':
      case 'block':
      case 'fifo':
        log?.debug({ entry: header.name, type: header.type }, 'skipping special file in layer');
        continue;
      default:
        throw new Error(`unhandled tar header type ${header.typeflag.charCodeAt(0)}`);
    }
    if (header.type !== 'dir') dirTimes.delete(path);
    unpacked.add(path);
  }

  // Set directory times last: creating entries inside a directory changes its mtime.
  for (const [path, mtime] of [...dirTimes].reverse()) {
    try {
      await utimes(path, mtime, mtime);
    } catch (err) {
      // Removed again by a later whiteout in this layer.
      const code = isErrno(err) ? err.code : undefined;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
    }
  }
}

/** Writes a regular file from its tar body (`mode` has owner rwx; the tree is made read-only afterwards). */
async function writeFileEntry(path: string, mode: number, mtime: Date, body: AsyncIterable<Buffer>): Promise<void> {
  const handle = await open(path, 'wx', mode);
  try {
    for await (const chunk of body) {
      let off = 0;
      while (off < chunk.length) off += (await handle.write(chunk, off, chunk.length - off)).bytesWritten;
    }
    await handle.utimes(mtime, mtime);
  } finally {
    await handle.close();
  }
}

/** The host path a hardlink's target names inside the root, or undefined if it escapes. */
async function hardlinkTarget(root: string, linkname: string): Promise<string | undefined> {
  const name = goCleanPath(linkname.startsWith('/') ? linkname.slice(1) : linkname);
  if (name === '.' || name === '..' || name.startsWith('../')) return undefined;
  const parent = await resolveInRoot(root, posix.dirname(name), true);
  const target = join(parent, posix.basename(name));
  if (relative(root, target).startsWith('..')) return undefined;
  return target;
}
