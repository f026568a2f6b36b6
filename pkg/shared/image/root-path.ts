/**
 * Path resolution confined to an unpack root. Symlinks created by earlier layer entries may
 * point anywhere: `resolveInRoot` follows them as the kernel would, except that the image root
 * acts as `/` (`..` never climbs above it, absolute targets restart at it: containerd's
 * `RootPath`). `symlinkEscapes` asks the opposite for the final tree: would the host kernel,
 * following this link, leave the root?
 */
import { lstat, readlink } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { isErrno } from '../errors/index.ts';

const MAX_LINK_HOPS = 255;

function splitPath(p: string): string[] {
  return p.split('/').filter((c) => c !== '' && c !== '.');
}

async function lstatOrUndefined(p: string): Promise<Awaited<ReturnType<typeof lstat>> | undefined> {
  try {
    return await lstat(p);
  } catch (err) {
    if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return undefined;
    throw err;
  }
}

/**
 * Follows `path` from directory `start` under `root` (symlinks in the last component only with
 * `followFinal`). `confine`: the root acts as `/` (see the module comment) and missing
 * components are taken literally; otherwise leaving the root `escapes` and a missing one stops.
 */
async function follow(
  root: string,
  start: string[],
  path: string[],
  confine: boolean,
  followFinal = true,
): Promise<string[] | 'escapes' | 'missing' | 'loop'> {
  const current = [...start];
  let pending = path;
  let hops = 0;
  while (pending.length > 0) {
    const [head = '', ...rest] = pending;
    pending = rest;
    if (head === '..') {
      if (current.length === 0 && !confine) return 'escapes';
      current.pop();
      continue;
    }
    if (pending.length === 0 && !followFinal) {
      current.push(head);
      break;
    }
    const st = await lstatOrUndefined(join(root, ...current, head));
    if (st === undefined && !confine) return 'missing';
    if (st?.isSymbolicLink() === true) {
      if (++hops > MAX_LINK_HOPS) return 'loop';
      const target = await readlink(join(root, ...current, head));
      if (target.startsWith('/')) {
        if (!confine) return 'escapes';
        current.length = 0;
      }
      pending = [...splitPath(target), ...pending];
      continue;
    }
    current.push(head);
  }
  return current;
}

/**
 * Resolves `rel` (slash-separated; a leading `/` means the root) to an absolute host path
 * under `root`, following symlinks in every component, and in the last one too when
 * `followFinal` is set. Missing components are taken literally.
 *
 * @throws Error `too many levels of symbolic links resolving "<rel>"` after 255 hops.
 */
export async function resolveInRoot(root: string, rel: string, followFinal: boolean): Promise<string> {
  const resolved = await follow(root, [], splitPath(rel), true, followFinal);
  if (typeof resolved === 'string') throw new Error(`too many levels of symbolic links resolving ${JSON.stringify(rel)}`);
  return join(root, ...resolved);
}

/**
 * Rewrites a symlink target so that it resolves inside the unpack root as it would inside the
 * image: an absolute target becomes relative to the link's directory (`linkDir`, relative to
 * the root). Relative targets are returned unchanged.
 */
export function confineLinkTarget(linkDir: string, target: string): string {
  if (!target.startsWith('/')) return target;
  const rel = posix.relative(posix.join('/', linkDir), posix.normalize(target));
  return rel === '' ? '.' : rel;
}

/**
 * True when following the symlink at `linkRel` (relative to `root`) would leave `root` on the
 * host: an absolute target, `..` above the root, or a chain of links doing either. Chains
 * longer than 255 hops count as escaping. Resolution stops (not escaping) at a missing
 * component, which cannot appear later in a read-only tree.
 */
export async function symlinkEscapes(root: string, linkRel: string): Promise<boolean> {
  const first = await readlink(join(root, linkRel));
  if (first.startsWith('/')) return true;
  const end = await follow(root, splitPath(posix.dirname(linkRel)), splitPath(first), false);
  return end === 'escapes' || end === 'loop';
}
