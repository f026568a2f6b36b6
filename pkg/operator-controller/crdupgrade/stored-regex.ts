/**
 * Go RE2 `pattern`s as JavaScript regular expressions, only where the translation matches
 * exactly the same strings (decision 0120). RE2 and ECMAScript (with the `u` flag) agree on
 * literals, escaped punctuation, `\d`, `\w`, `\b`, `\B`, classes of those, groups, alternation,
 * greedy and lazy quantifiers and the anchors `^`/`$` (no multi-line flag). RE2's `.` (any
 * character but `\n`) and `\s` (`[\t\n\f\r ]`) are translated; everything else (flags,
 * `[[:alpha:]]`, `\p`, `\Q..\E`, `\A`, `\z`, `\x{..}`, octal, `\pN`, backreferences, lookaround)
 * is refused: the caller reports the pattern as not checkable rather than guess.
 */
import { err, ok, type Result } from '../../shared/errors/index.ts';

const SPACE = '\\t\\n\\f\\r ';
const PUNCT = new Set([...'\\.+*?()|[]{}^$-/']);
const SIMPLE_ESCAPES = new Set(['d', 'D', 'w', 'W', 'n', 't', 'r', 'f', 'v']);

/** A JavaScript RegExp source that matches exactly what RE2 matches for `pattern`, or why not. */
export function re2ToJs(pattern: string): Result<string, string> {
  let out = '';
  let inClass = false;
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    if (c === '\\') {
      const n = chars[++i];
      if (n === undefined) return err('trailing backslash');
      if (n === '-' && !inClass) out += '-';
      else if (PUNCT.has(n)) out += `\\${n}`;
      else if (SIMPLE_ESCAPES.has(n)) out += `\\${n}`;
      else if ((n === 'b' || n === 'B') && !inClass) out += `\\${n}`;
      else if (n === 's') out += inClass ? SPACE : `[${SPACE}]`;
      else if (n === 'S') {
        if (inClass) return err('\\S inside a character class');
        out += `[^${SPACE}]`;
      } else return err(`escape \\${n} has no exact JavaScript equivalent`);
      continue;
    }
    if (inClass) {
      if (c === '[') return err('nested or POSIX character class');
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    switch (c) {
      case '[':
        inClass = true;
        out += c;
        if (chars[i + 1] === '^') out += chars[++i];
        if (chars[i + 1] === ']') {
          // RE2 and JS both read a leading `]` differently: RE2 as a literal, JS as an empty class.
          i++;
          out += '\\]';
        }
        continue;
      case '.':
        out += '[^\\n]';
        continue;
      case '(':
        if (chars[i + 1] === '?') {
          if (chars[i + 2] !== ':') return err('group flags, named groups and lookaround are not checkable');
          out += '(?:';
          i += 2;
          continue;
        }
        out += c;
        continue;
      case '{': {
        const rest = chars.slice(i).join('');
        const m = /^\{(\d+)(,(\d*))?\}/.exec(rest);
        if (m === null) {
          out += '\\{'; // RE2 reads a `{` that starts no repetition as a literal
          continue;
        }
        if (Number(m[1]) > 1000 || (m[3] !== undefined && m[3] !== '' && Number(m[3]) > 1000)) return err('repetition count over 1000');
        out += m[0];
        i += m[0].length - 1;
        continue;
      }
      case '}':
        out += '\\}';
        continue;
      default:
        out += c;
    }
  }
  if (inClass) return err('unterminated character class');
  try {
    new RegExp(out, 'u');
  } catch (e) {
    return err(`does not compile: ${(e as Error).message}`);
  }
  return ok(out);
}
