/**
 * Go's `path/filepath.Match` (Unix), which `.indexignore` patterns use per path component: `*`
 * (never crossing `/`), `?`, `[...]`/`[^...]` with ranges, `\` escapes. A malformed pattern
 * never matches (Go's ErrBadPattern, which the ignore matcher treats as no match).
 */

type Runes = string[];

class BadPattern extends Error {}

/** Reports whether `name` matches the shell pattern `pattern` (false for malformed patterns). */
export function goFilepathMatch(pattern: string, name: string): boolean {
  try {
    return match(Array.from(pattern), Array.from(name));
  } catch (err) {
    if (err instanceof BadPattern) return false;
    throw err;
  }
}

function match(patternIn: Runes, nameIn: Runes): boolean {
  let pattern = patternIn;
  let name = nameIn;
  outer: while (pattern.length > 0) {
    const { star, chunk, rest } = scanChunk(pattern);
    pattern = rest;
    if (star && chunk.length === 0) return !name.includes('/');
    const t = matchChunk(chunk, name);
    if (t !== undefined && (t.length === 0 || pattern.length > 0)) {
      name = t;
      continue;
    }
    if (star) {
      // Let the star swallow more of the name, but never a separator.
      for (let i = 0; i < name.length && name[i] !== '/'; i++) {
        const t2 = matchChunk(chunk, name.slice(i + 1));
        if (t2 !== undefined) {
          if (pattern.length === 0 && t2.length > 0) continue;
          name = t2;
          continue outer;
        }
      }
    }
    // Before failing, make sure the rest of the pattern is well-formed (Go reports ErrBadPattern).
    while (pattern.length > 0) {
      const next = scanChunk(pattern);
      pattern = next.rest;
      matchChunk(next.chunk, []);
    }
    return false;
  }
  return name.length === 0;
}

function scanChunk(pattern: Runes): { star: boolean; chunk: Runes; rest: Runes } {
  let p = 0;
  let star = false;
  while (p < pattern.length && pattern[p] === '*') {
    p++;
    star = true;
  }
  let inRange = false;
  let i = p;
  scan: for (; i < pattern.length; i++) {
    switch (pattern[i]) {
      case '\\':
        if (i + 1 < pattern.length) i++;
        break;
      case '[':
        inRange = true;
        break;
      case ']':
        inRange = false;
        break;
      case '*':
        if (!inRange) break scan;
        break;
    }
  }
  return { star, chunk: pattern.slice(p, i), rest: pattern.slice(i) };
}

// Matches `chunk` (no stars) against a prefix of `s`: the remainder, or undefined on mismatch.
// Throws BadPattern for malformed chunks, even after a mismatch (Go keeps validating).
function matchChunk(chunkIn: Runes, sIn: Runes): Runes | undefined {
  let chunk = chunkIn;
  let s = sIn;
  let failed = false;
  while (chunk.length > 0) {
    if (!failed && s.length === 0) failed = true;
    const c = chunk[0];
    if (c === '[') {
      let r = '';
      if (!failed) {
        r = s[0] as string;
        s = s.slice(1);
      }
      chunk = chunk.slice(1);
      let negated = false;
      if (chunk[0] === '^') {
        negated = true;
        chunk = chunk.slice(1);
      }
      let matched = false;
      let nrange = 0;
      for (;;) {
        if (chunk.length > 0 && chunk[0] === ']' && nrange > 0) {
          chunk = chunk.slice(1);
          break;
        }
        const lo = getEsc(chunk);
        chunk = lo.rest;
        let hi = lo;
        if (chunk[0] === '-') {
          hi = getEsc(chunk.slice(1));
          chunk = hi.rest;
        }
        const rc = r.codePointAt(0) ?? -1;
        if ((lo.rune.codePointAt(0) ?? 0) <= rc && rc <= (hi.rune.codePointAt(0) ?? 0)) matched = true;
        nrange++;
      }
      if (matched === negated) failed = true;
    } else if (c === '?') {
      if (!failed) {
        if (s[0] === '/') failed = true;
        s = s.slice(1);
      }
      chunk = chunk.slice(1);
    } else {
      if (c === '\\') {
        chunk = chunk.slice(1);
        if (chunk.length === 0) throw new BadPattern();
      }
      if (!failed) {
        if (chunk[0] !== s[0]) failed = true;
        s = s.slice(1);
      }
      chunk = chunk.slice(1);
    }
  }
  return failed ? undefined : s;
}

function getEsc(chunkIn: Runes): { rune: string; rest: Runes } {
  let chunk = chunkIn;
  if (chunk.length === 0 || chunk[0] === '-' || chunk[0] === ']') throw new BadPattern();
  if (chunk[0] === '\\') {
    chunk = chunk.slice(1);
    if (chunk.length === 0) throw new BadPattern();
  }
  const rune = chunk[0] as string;
  const rest = chunk.slice(1);
  // A class must always continue after a character (at least its closing bracket).
  if (rest.length === 0) throw new BadPattern();
  return { rune, rest };
}
