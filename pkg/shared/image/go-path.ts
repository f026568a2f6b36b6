/**
 * Go's lexical path functions (`path.Clean`, `filepath.Rel`), which decide which tar entries a
 * label path filter keeps and how they are named, exactly as upstream's unpacker does.
 */

/**
 * Go's `path.Clean` for slash-separated paths: collapses `//`, removes `.` elements and
 * resolves `..` lexically; an empty result is `.`; a rooted path stays rooted and `..` never
 * climbs above `/`. Unlike Node's `posix.normalize`, no trailing slash is kept.
 */
export function goCleanPath(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') {
        out.pop();
      } else if (!rooted) {
        out.push('..');
      }
      continue;
    }
    out.push(part);
  }
  const joined = out.join('/');
  if (rooted) return `/${joined}`;
  return joined === '' ? '.' : joined;
}

/**
 * Go's `filepath.Rel` on slash-separated paths: the path of `target` relative to `base`, both
 * cleaned first. Throws `Rel: can't make <target> relative to <base>` when no such path exists
 * (one rooted and the other not, or `base` needs to climb through a `..` element).
 */
export function goRelPath(base: string, target: string): string {
  const cleanBase = goCleanPath(base);
  const cleanTarget = goCleanPath(target);
  if (cleanBase === cleanTarget) return '.';
  const b = cleanBase === '.' ? '' : cleanBase;
  const t = cleanTarget;
  const fail = (): Error => new Error(`Rel: can't make ${target} relative to ${base}`);
  if (b.startsWith('/') !== t.startsWith('/')) throw fail();
  const baseParts = b === '' ? [] : b.split('/');
  const targetParts = t.split('/');
  let i = 0;
  while (i < baseParts.length && i < targetParts.length && baseParts[i] === targetParts[i]) i++;
  if (baseParts[i] === '..') throw fail();
  const ups = baseParts.slice(i).map(() => '..');
  const rest = targetParts.slice(i);
  return [...ups, ...rest].join('/') || '.';
}
