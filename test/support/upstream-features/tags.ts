/**
 * Cucumber tag expressions ("@a and not (@b or @c)"), the selection language godog's --tags
 * takes: operators `and`, `or`, `not`, parentheses; `not` binds tightest, then `and`, then `or`.
 * Backslash escapes a space, parenthesis or backslash inside a tag.
 */

/** A compiled expression: true when a scenario with these tag names is selected. */
export type TagPredicate = (tags: readonly string[]) => boolean;

function tokenize(expr: string): string[] {
  const tokens: string[] = [];
  let cur = '';
  const flush = (): void => {
    if (cur !== '') tokens.push(cur);
    cur = '';
  };
  for (let i = 0; i < expr.length; i++) {
    const ch = expr[i] ?? '';
    if (ch === '\\') {
      const next = expr[i + 1];
      if (next === undefined) throw new Error(`tag expression "${expr}": a backslash ends it`);
      cur += next;
      i++;
    } else if (ch === '(' || ch === ')') {
      flush();
      tokens.push(ch);
    } else if (/\s/.test(ch)) flush();
    else cur += ch;
  }
  flush();
  return tokens;
}

/** Compiles `expr`; an empty expression selects everything. Throws on a malformed one. */
export function parseTagExpression(expr: string): TagPredicate {
  const tokens = tokenize(expr);
  if (tokens.length === 0) return () => true;
  let pos = 0;
  const fail = (why: string): never => {
    throw new Error(`tag expression "${expr}": ${why}`);
  };
  const parseOr = (): TagPredicate => {
    let left = parseAnd();
    while (tokens[pos] === 'or') {
      pos++;
      const l = left;
      const r = parseAnd();
      left = (t) => l(t) || r(t);
    }
    return left;
  };
  const parseAnd = (): TagPredicate => {
    let left = parseNot();
    while (tokens[pos] === 'and') {
      pos++;
      const l = left;
      const r = parseNot();
      left = (t) => l(t) && r(t);
    }
    return left;
  };
  const parseNot = (): TagPredicate => {
    const tok = tokens[pos];
    if (tok === 'not') {
      pos++;
      const inner = parseNot();
      return (t) => !inner(t);
    }
    if (tok === '(') {
      pos++;
      const inner = parseOr();
      if (tokens[pos] !== ')') fail('a "(" is not closed');
      pos++;
      return inner;
    }
    if (tok === undefined) return fail('it ends where a tag was expected');
    if (tok === ')' || tok === 'and' || tok === 'or') return fail(`"${tok}" where a tag was expected`);
    if (!tok.startsWith('@')) return fail(`"${tok}" is not a tag (tags start with "@")`);
    pos++;
    return (t) => t.includes(tok);
  };
  const predicate = parseOr();
  if (pos < tokens.length) fail(`unexpected "${tokens[pos] ?? ''}"`);
  return predicate;
}
