/**
 * `.indexignore` matching as operator-registry does it (joelanford/ignore over go-git's gitignore
 * patterns): each `.indexignore` contributes patterns scoped to its directory (lines trimmed,
 * blanks and `#` comments skipped, no escapes); `!` re-includes, a trailing `/` restricts the
 * last component to directories, a pattern without `/` matches any single component, otherwise
 * components match from the directory (`**`: zero or more) and a consumed pattern matches a
 * longer path. The last matching pattern decides; unlike git, `!` can re-include a file below
 * an ignored directory.
 */
import { goTrimSpace } from '../../gocompat/gotext/index.ts';
import { goFilepathMatch } from './glob.ts';

/** One parsed pattern line. */
export interface IgnorePattern {
  domain: readonly string[];
  parts: readonly string[];
  inclusion: boolean;
  dirOnly: boolean;
  isGlob: boolean;
}

/** go-git's `ParsePattern`. */
function parseIgnorePattern(line: string, domain: readonly string[]): IgnorePattern {
  let p = line;
  let inclusion = false;
  if (p.startsWith('!')) {
    inclusion = true;
    p = p.slice(1);
  }
  if (!p.endsWith('\\ ')) p = p.replace(/ +$/, '');
  let dirOnly = false;
  if (p.endsWith('/')) {
    dirOnly = true;
    p = p.slice(0, -1);
  }
  return { domain: [...domain], parts: p.split('/'), inclusion, dirOnly, isGlob: p.includes('/') };
}

/** The patterns of one `.indexignore` file whose directory components are `domain`. */
export function parseIndexIgnore(content: string, domain: readonly string[]): IgnorePattern[] {
  const out: IgnorePattern[] = [];
  for (const raw of content.split('\n')) {
    const line = goTrimSpace(raw);
    if (line === '' || line.startsWith('#')) continue;
    out.push(parseIgnorePattern(line, domain));
  }
  return out;
}

const NO_MATCH = 0;
const EXCLUDE = 1;
const INCLUDE = 2;

function matchPattern(p: IgnorePattern, path: readonly string[], isDir: boolean): number {
  if (path.length <= p.domain.length) return NO_MATCH;
  for (let i = 0; i < p.domain.length; i++) if (path[i] !== p.domain[i]) return NO_MATCH;
  const rel = path.slice(p.domain.length);
  const ok = p.isGlob ? globMatch(p, rel, isDir) : simpleNameMatch(p, rel, isDir);
  if (!ok) return NO_MATCH;
  return p.inclusion ? INCLUDE : EXCLUDE;
}

function simpleNameMatch(p: IgnorePattern, path: readonly string[], isDir: boolean): boolean {
  const pattern = p.parts[0] ?? '';
  for (let i = 0; i < path.length; i++) {
    if (!goFilepathMatch(pattern, path[i] as string)) continue;
    return !(p.dirOnly && !isDir && i === path.length - 1);
  }
  return false;
}

function globMatch(p: IgnorePattern, pathIn: readonly string[], isDir: boolean): boolean {
  let path = pathIn;
  let matched = false;
  let canTraverse = false;
  for (let i = 0; i < p.parts.length; i++) {
    const part = p.parts[i] as string;
    if (part === '') {
      canTraverse = false;
      continue;
    }
    if (part === '**') {
      if (i === p.parts.length - 1) break;
      canTraverse = true;
      continue;
    }
    if (part.includes('**')) return false;
    if (path.length === 0) return false;
    if (canTraverse) {
      canTraverse = false;
      while (path.length > 0) {
        const e = path[0] as string;
        path = path.slice(1);
        if (goFilepathMatch(part, e)) {
          matched = true;
          break;
        }
        if (path.length === 0) matched = false;
      }
    } else {
      if (!goFilepathMatch(part, path[0] as string)) return false;
      matched = true;
      path = path.slice(1);
    }
  }
  if (matched && p.dirOnly && !isDir && path.length === 0) matched = false;
  return matched;
}

/** The combined matcher of all `.indexignore` patterns, in increasing priority order. */
export class IgnoreMatcher {
  private readonly patterns: readonly IgnorePattern[];

  constructor(patterns: readonly IgnorePattern[]) {
    this.patterns = patterns;
  }

  /** True when `path` ('/'-separated, relative to the catalog root) is ignored. */
  ignores(path: string, isDir = false): boolean {
    const parts = path.split('/');
    for (let i = this.patterns.length - 1; i >= 0; i--) {
      const r = matchPattern(this.patterns[i] as IgnorePattern, parts, isDir);
      if (r !== NO_MATCH) return r === EXCLUDE;
    }
    return false;
  }
}
