/**
 * The digest-keyed unpack cache: `<base>/<owner>/<digest>/` holds a read-only image tree and
 * `<digest>.config.json` its config (`owner`: the ClusterCatalog or ClusterExtension). Trees are
 * built in `<owner>/.tmp-*` and renamed into place, so a tree under its digest is complete.
 */
import { mkdir, mkdtemp, readFile, readdir, rename, rmdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { validateDigest } from './digest.ts';
import { deleteReadOnly, dirModTime, makeReadOnly } from './fs-tree.ts';
import type { ImageConfig } from './manifest.ts';
import { isErrno } from '../errors/index.ts';

/** A cached image: its tree, config and the time it was unpacked. */
interface CacheEntry {
  dir: string;
  digest: string;
  config: ImageConfig;
  /** When the tree was unpacked (the tree root's mtime). */
  unpackedAt: Date;
}

/** Where unpacked images live: `store` is atomic and leftovers of a crash are tolerated. */
export interface ImageCache {
  /** The entry for `(owner, digest)`, or undefined (a non-directory in its place is deleted). */
  fetch(owner: string, digest: string): Promise<CacheEntry | undefined>;
  /**
   * Creates the entry: `populate` fills an empty temporary directory, made read-only and moved
   * into place (replacing any previous tree); on failure it (and an emptied owner dir) is removed.
   */
  store(owner: string, digest: string, config: ImageConfig, populate: (dir: string) => Promise<void>): Promise<CacheEntry>;
  /** Deletes every entry of `owner` except `keepDigest`; the owner dir too if that is absent. */
  garbageCollect(owner: string, keepDigest: string): Promise<void>;
  /** Deletes all entries of `owner`. */
  delete(owner: string): Promise<void>;
  /** Names of all owners with a directory in the cache. */
  owners(): Promise<string[]>;
  /** Removes temporary directories left by an interrupted store (call at start-up). */
  cleanupTemporary(): Promise<void>;
}

const TMP_PREFIX = '.tmp-';
const CONFIG_SUFFIX = '.config.json';

function checkOwner(owner: string): void {
  if (owner === '' || owner.length > 253 || owner.startsWith('.') || /[/\\\0]/.test(owner)) {
    throw new Error(`invalid cache owner ${JSON.stringify(owner)}: must be a non-empty name without "/" that does not start with "."`);
  }
}

function checkDigest(digest: string): void {
  const problem = validateDigest(digest);
  if (problem !== undefined) throw new Error(`invalid cache digest ${JSON.stringify(digest)}: ${problem}`);
}

/** A cache on the local filesystem under `baseDir` (created on first store). */
export function createDiskImageCache(baseDir: string): ImageCache {
  const ownerDir = (owner: string): string => join(baseDir, owner);

  async function fetch(owner: string, digest: string): Promise<CacheEntry | undefined> {
    checkOwner(owner);
    checkDigest(digest);
    const dir = join(ownerDir(owner), digest);
    const info = await dirModTime(dir);
    if (info === undefined) return undefined;
    const configPath = `${dir}${CONFIG_SUFFIX}`;
    let config: ImageConfig | undefined;
    if (info.isDir) {
      try {
        config = JSON.parse(await readFile(configPath, 'utf8')) as ImageConfig;
      } catch (err) {
        if (!isErrno(err, 'ENOENT') && !(err instanceof SyntaxError)) throw err;
      }
    }
    if (config === undefined) {
      // Not a directory, or a tree without its config: not a usable entry.
      await deleteReadOnly(dir);
      await deleteReadOnly(configPath);
      return undefined;
    }
    return { dir, digest, config, unpackedAt: info.mtime };
  }

  async function store(owner: string, digest: string, config: ImageConfig, populate: (dir: string) => Promise<void>): Promise<CacheEntry> {
    checkOwner(owner);
    checkDigest(digest);
    const parent = ownerDir(owner);
    await mkdir(parent, { recursive: true });
    const tmp = await mkdtemp(join(parent, TMP_PREFIX));
    const dir = join(parent, digest);
    try {
      await populate(tmp);
      await makeReadOnly(tmp);
      const now = new Date();
      await utimes(tmp, now, now);
      const configTmp = `${tmp}${CONFIG_SUFFIX}`;
      await writeFile(configTmp, JSON.stringify(config), { mode: 0o400 });
      await deleteReadOnly(dir);
      await rename(configTmp, `${dir}${CONFIG_SUFFIX}`);
      await rename(tmp, dir);
      const info = await dirModTime(dir);
      return { dir, digest, config, unpackedAt: info?.mtime ?? now };
    } catch (err) {
      await deleteReadOnly(tmp);
      await deleteReadOnly(`${tmp}${CONFIG_SUFFIX}`);
      // Nothing of a failed store stays behind: the owner directory too, when it holds nothing else.
      await rmdir(parent).catch(() => undefined);
      throw err;
    }
  }

  async function listOwner(owner: string): Promise<string[] | undefined> {
    try {
      return await readdir(ownerDir(owner));
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return undefined;
      throw err;
    }
  }

  async function garbageCollect(owner: string, keepDigest: string): Promise<void> {
    checkOwner(owner);
    const names = await listOwner(owner);
    if (names === undefined) return;
    const keep = new Set([keepDigest, `${keepDigest}${CONFIG_SUFFIX}`]);
    for (const name of names) {
      // Temporary trees belong to stores in progress; start-up cleanup handles leftovers.
      if (keep.has(name) || name.startsWith(TMP_PREFIX)) continue;
      await deleteReadOnly(join(ownerDir(owner), name));
    }
    if (!names.includes(keepDigest)) {
      try {
        await rmdir(ownerDir(owner));
      } catch (err) {
        const code = isErrno(err) ? err.code : undefined;
        if (code !== 'ENOENT' && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
      }
    }
  }

  async function remove(owner: string): Promise<void> {
    checkOwner(owner);
    await deleteReadOnly(ownerDir(owner));
  }

  async function owners(): Promise<string[]> {
    try {
      const entries = await readdir(baseDir, { withFileTypes: true });
      return entries.filter((e) => e.isDirectory()).map((e) => e.name);
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return [];
      throw err;
    }
  }

  async function cleanupTemporary(): Promise<void> {
    for (const owner of await owners()) {
      for (const name of (await listOwner(owner)) ?? []) {
        if (name.startsWith(TMP_PREFIX)) await deleteReadOnly(join(ownerDir(owner), name));
      }
    }
  }

  return { fetch, store, garbageCollect, delete: remove, owners, cleanupTemporary };
}
