import { describe, expect, it } from 'vitest';
import { isTable, parseToml, type TomlValue } from './toml-subset.ts';

/** Maps to plain objects, for comparison. */
function plain(v: TomlValue): unknown {
  if (Array.isArray(v)) return v.map(plain);
  if (isTable(v)) return Object.fromEntries([...v].map(([k, x]) => [k, plain(x)]));
  return v;
}

function parsed(text: string): unknown {
  const r = parseToml(text);
  if (!r.ok) throw new Error(`line ${r.error.line}: ${r.error.message}`);
  return plain(r.value.root);
}

describe('parseToml: the subset registries.conf uses', () => {
  it.each([
    ['empty', '', {}],
    ['comments and blank lines', '# a\n\n   # b\r\n', {}],
    [
      'strings, booleans, integers',
      'a = "x"\nb = \'lit\\eral\'\nc = true\nd = false\ne = -1_000',
      { a: 'x', b: 'lit\\eral', c: true, d: false, e: -1000 },
    ],
    ['basic string escapes', 'a = "q\\"\\\\\\t\\u00e9\\U0001F600"', { a: 'q"\\\té😀' }],
    ['quoted and dotted keys', '"a.b" = 1\nc.d = 2\n\'e\' = 3', { 'a.b': 1, c: { d: 2 }, e: 3 }],
    ['trailing comment', 'a = "x" # note', { a: 'x' }],
    ['arrays over lines with comments and a trailing comma', 'a = [\n  "x", # one\n  "y",\n]\nb = []', { a: ['x', 'y'], b: [] }],
    ['inline tables', 'a = [{ location = "m", insecure = true }, {}]', { a: [{ location: 'm', insecure: true }, {}] }],
    ['tables and nested tables', '[a]\nx = 1\n[a.b]\ny = 2\n[c.d]\n[c]\nz = 3', { a: { x: 1, b: { y: 2 } }, c: { d: {}, z: 3 } }],
    [
      'arrays of tables with sub-arrays',
      '[[registry]]\nprefix = "a"\n[[registry.mirror]]\nlocation = "m1"\n[[registry.mirror]]\nlocation = "m2"\n[[registry]]\nprefix = "b"',
      { registry: [{ prefix: 'a', mirror: [{ location: 'm1' }, { location: 'm2' }] }, { prefix: 'b' }] },
    ],
    ['a byte-order mark', '\uFEFFa = 1', { a: 1 }],
  ])('%s', (_name, text, expected) => {
    expect(parsed(text)).toEqual(expected);
  });

  it('records the line of each table header', () => {
    const r = parseToml('x = 1\n\n[[registry]]\nprefix = "a"\n\n[[registry.mirror]]\nlocation = "m"\n');
    if (!r.ok) throw new Error(r.error.message);
    const registry = (r.value.root.get('registry') as TomlValue[])[0];
    if (!isTable(registry)) throw new Error('not a table');
    const mirror = (registry.get('mirror') as TomlValue[])[0];
    expect(r.value.lineOf.get(registry)).toBe(3);
    expect(isTable(mirror) ? r.value.lineOf.get(mirror) : undefined).toBe(6);
  });

  it.each([
    ['a duplicate key', 'a = 1\na = 2', 2, 'key a is defined more than once'],
    ['a table defined twice', '[a]\n[b]\n[a]', 3, 'table [a] is defined more than once'],
    ['a table over an array of tables', '[[a]]\n[a]', 2, 'table [a] is defined more than once'],
    ['an array of tables over a value', 'a = 1\n[[a]]', 2, '[[a]] conflicts with the earlier definition of a'],
    ['a multi-line string', 'a = """x"""', 1, 'multi-line strings are not supported'],
    ['a float', 'a = 1.5', 1, 'unsupported value starting with "1" (strings, booleans, integers, arrays and inline tables only)'],
    ['a date', 'a = 1979-05-27', 1, 'unsupported value starting with "1" (strings, booleans, integers, arrays and inline tables only)'],
    ['a bare word', 'a = yes', 1, 'unsupported value starting with "y" (strings, booleans, integers, arrays and inline tables only)'],
    ['a missing value', 'a =\nb = 1', 1, 'expected a value'],
    ['an unterminated string', 'x = 1\na = "x\n', 2, 'unterminated string'],
    ['an invalid escape', 'a = "\\q"', 1, 'invalid escape \\q'],
    ['a surrogate escape', 'a = "\\ud800"', 1, 'invalid escape \\ud800: not a Unicode scalar value'],
    ['two values on a line', 'a = 1 b = 2', 1, 'expected the end of the line, found "b"'],
    ['a key without "="', '\n\na "x"', 3, 'expected "=" after the key a'],
    ['an unclosed header', '[a\nb = 1', 1, 'expected ] to close the table header'],
    ['an unclosed array', 'a = ["x"\nb = 1', 2, 'expected "," or "]" in an array'],
    ['an inline table with a newline', 'a = { b = 1\n}', 1, 'expected "," or "}" in an inline table'],
    ['a header extending an inline table', 'a = { b = 1 }\n[a.c]', 2, 'key "a" is already defined and is not a table'],
    ['a dotted key through a value', 'a = 1\na.b = 2', 2, 'key "a" is already defined and is not a table'],
    ['a control character', 'a = "\u0001"', 1, 'control character in a string'],
    ['an empty key', ' = 1', 1, 'expected a key, found "="'],
  ])('refuses %s, naming the line', (_name, text, line, message) => {
    expect(parseToml(text)).toEqual({ ok: false, error: { line, message } });
  });
});
