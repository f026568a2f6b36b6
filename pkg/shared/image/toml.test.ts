import { describe, expect, it } from 'vitest';
import { isTable, parseToml, type TomlDocument, type TomlValue } from './toml.ts';

/** Maps to plain objects, for comparison. */
function plain(v: TomlValue): unknown {
  if (Array.isArray(v)) return v.map(plain);
  if (isTable(v)) return Object.fromEntries([...v].map(([k, x]) => [k, plain(x)]));
  return v;
}

function doc(text: string): TomlDocument {
  const r = parseToml(text);
  if (!r.ok) throw new Error(`line ${r.error.line}: ${r.error.message}`);
  return r.value;
}

/** The table at `path` (a number picks an element of an array of tables). */
function at(d: TomlDocument, ...path: (string | number)[]): TomlValue {
  let cur: TomlValue | undefined = d.root;
  for (const p of path) cur = typeof p === 'number' ? (cur as TomlValue[])[p] : isTable(cur) ? cur.get(p) : undefined;
  if (cur === undefined) throw new Error(`no ${path.join('.')}`);
  return cur;
}

function lineOf(d: TomlDocument, ...path: (string | number)[]): number | undefined {
  const t = at(d, ...path);
  return isTable(t) ? d.lineOf.get(t) : undefined;
}

describe('parseToml', () => {
  it('gives tables as Maps in document order, keys that are object properties included', () => {
    const d = doc('z = 1\na = "x"\n__proto__ = true\n[constructor]\nb = [1, "two"]\n');
    expect([...d.root.keys()]).toEqual(['z', 'a', '__proto__', 'constructor']);
    expect(plain(d.root)).toEqual({ z: 1, a: 'x', ['__proto__']: true, constructor: { b: [1, 'two'] } });
  });

  it('reads the TOML that upstream reads and the subset once refused: multi-line strings, floats, dates, inline tables over lines', () => {
    const d = doc('a = """x\n[[registry]]\ny"""\nb = 1.5\nc = 1979-05-27\nd = { e = 1,\n  f = 2 }\n');
    expect(at(d, 'a')).toBe('x\n[[registry]]\ny');
    expect(at(d, 'b')).toBe(1.5);
    expect(at(d, 'c')).toBeInstanceOf(Date);
    expect(plain(at(d, 'd'))).toEqual({ e: 1, f: 2 });
  });

  it('records the line of the header that opened each table, in document order', () => {
    const d = doc(
      [
        'x = 1', // 1
        '', // 2
        '[[registry]]', // 3
        'prefix = "a"', // 4
        '[[ registry.mirror ]]  # first', // 5
        'location = "m1"', // 6
        '[[registry]]', // 7
        'prefix = "b"', // 8
        'text = """', // 9
        '[[registry.mirror]]', // 10: inside a string
        '"""', // 11
        '[["registry".mirror]]', // 12
        'location = "m2"', // 13
        '[registries.block]', // 14
        'registries = []', // 15
        '[[registry]]', // 16
        'mirror = [{ location = "inline" }]', // 17
      ].join('\n'),
    );
    expect(lineOf(d, 'registry', 0)).toBe(3);
    expect(lineOf(d, 'registry', 0, 'mirror', 0)).toBe(5);
    expect(lineOf(d, 'registry', 1)).toBe(7);
    expect(lineOf(d, 'registry', 1, 'mirror', 0)).toBe(12);
    expect(lineOf(d, 'registries')).toBe(14);
    expect(lineOf(d, 'registries', 'block')).toBe(14);
    expect(lineOf(d, 'registry', 2)).toBe(16);
    expect(lineOf(d, 'registry', 2, 'mirror', 0)).toBeUndefined();
  });

  it.each([
    ['an unclosed array-of-tables header', 'a = 1\n[[registry]\n', 2, 'expected end of table array declaration'],
    ['a duplicate key', 'a = 1\na = 2', 2, 'trying to redefine an already defined table or value'],
    ['a bare word', 'x = 1\n\na = yes', 3, 'invalid value'],
    ['an unterminated string', 'x = 1\na = "x\n', 2, 'control characters are not allowed in strings'],
  ])('refuses %s, naming the line', (_name, text, line, message) => {
    expect(parseToml(text)).toEqual({ ok: false, error: { line, message } });
  });
});
