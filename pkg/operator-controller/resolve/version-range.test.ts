import { describe, expect, it } from 'vitest';
import { ADMITTED_VERSION_EXPRESSIONS } from '../../../test/support/version-expressions.ts';
import { parseSemver } from '../../shared/semver/index.ts';
import { CONSTRAINT_PARSER_ERROR, parseVersionRange, rangeContains } from './version-range.ts';

function accepts(range: string, version: string): boolean {
  const r = parseVersionRange(range);
  if (!r.ok) throw new Error(`${range}: ${r.error}`);
  const v = parseSemver(version);
  if (!v.ok) throw new Error(`${version}: ${v.error}`);
  return rangeContains(r.value, v.value);
}

// [range, versions inside, versions outside]
type Row = [string, string[], string[]];

function table(rows: Row[]): void {
  it.each(rows)('%s', (range, inside, outside) => {
    for (const v of inside) expect(accepts(range, v), `${range} should accept ${v}`).toBe(true);
    for (const v of outside) expect(accepts(range, v), `${range} should reject ${v}`).toBe(false);
  });
}

describe('operator semantics', () => {
  describe('= and bare versions', () => {
    table([
      ['1.2.3', ['1.2.3', '1.2.3+b'], ['1.2.4', '1.2.2', '1.2.3-rc.1']],
      ['=1.2.3', ['1.2.3'], ['1.2.4']],
      ['=2.0', ['2.0.0', '2.0.1', '2.0.9'], ['2.1.0', '1.9.9']],
      ['1', ['1.0.0', '1.9.9'], ['2.0.0', '0.9.9']],
      ['1.x', ['1.0.0', '1.5.3'], ['2.0.0']],
      ['1.x.x', ['1.0.0', '1.5.3'], ['2.0.0']],
      ['1.*', ['1.0.0', '1.5.3'], ['2.0.0']],
      ['1.2', ['1.2.0', '1.2.9'], ['1.3.0', '1.1.9']],
      ['1.11.x', ['1.11.0', '1.11.99'], ['1.12.0', '1.10.9']],
      ['1.2.x', ['1.2.0', '1.2.7'], ['1.3.0']],
      ['1.2.X', ['1.2.0', '1.2.7'], ['1.3.0']],
      ['1.2.*', ['1.2.0', '1.2.7'], ['1.3.0']],
      ['x', ['0.0.0', '5.6.7'], ['1.0.0-rc.1']],
      ['X', ['0.0.0', '5.6.7'], []],
      ['*', ['0.0.0', '5.6.7'], ['5.6.7-alpha']],
    ]);
  });

  describe('!=', () => {
    table([
      ['!=1.2.3', ['1.2.4', '1.2.2'], ['1.2.3', '1.2.3+x']],
      ['!=1.x', ['0.9.9', '2.0.0'], ['1.0.0', '1.9.9']],
      ['!=1.2.x', ['1.1.9', '1.3.0', '2.2.0'], ['1.2.0', '1.2.9']],
      ['!=*', ['0.0.1', '1.0.0'], ['0.0.0']],
      // With a pre-release elsewhere in the group, same major.minor differs only by PRE.
      ['!=1.2.x, >=1.0.0-0', ['1.2.3-alpha', '1.3.0'], ['1.2.3']],
    ]);
  });

  describe('>', () => {
    table([
      ['>1.2.3', ['1.2.4', '2.0.0'], ['1.2.3', '1.0.0']],
      ['>1', ['2.0.0', '3.1.0'], ['1.0.0', '1.9.9']],
      ['>1.1', ['1.2.0', '4.1.0'], ['1.1.0', '1.1.9', '0.9.0']],
      ['>11.1', ['11.2.1', '12.0.0'], ['11.1.1', '10.9.9']],
      ['>*', ['0.0.1', '2.0.0'], ['0.0.0']],
    ]);
  });

  describe('<, >=, =>', () => {
    table([
      ['<1.2.3', ['1.2.2', '0.0.0'], ['1.2.3', '1.3.0']],
      ['<1.x', ['0.9.9'], ['1.0.0']],
      ['<1.1', ['1.0.9'], ['1.1.0']],
      ['<2', ['1.9.9'], ['2.0.0']],
      ['>=1.2.3', ['1.2.3', '9.0.0'], ['1.2.2']],
      ['=>1.2.3', ['1.2.3'], ['1.2.2']],
      ['>= 1.2.x', ['1.2.0', '5.0.0'], ['1.1.9']],
    ]);
  });

  describe('<=, =<', () => {
    table([
      ['<=1.2.3', ['1.2.3', '0.1.0'], ['1.2.4']],
      ['=<1.2.3', ['1.2.3'], ['1.2.4']],
      ['<=2.x', ['2.9.9', '0.0.1'], ['3.0.0']],
      ['<= 2.x', ['2.0.0'], ['3.0.0']],
      ['<=1.1', ['1.1.0', '1.1.5', '0.5.0'], ['1.2.0']],
      // Code-derived quirk: a bare wildcard keeps only 0.0.z.
      ['<=*', ['0.0.0', '0.0.5'], ['0.1.0', '1.0.0']],
    ]);
  });

  describe('~ and ~>', () => {
    table([
      ['~1', ['1.0.0', '1.9.9'], ['2.0.0', '0.9.9']],
      ['~1.2', ['1.2.0', '1.2.9'], ['1.3.0']],
      ['~1.12', ['1.12.0', '1.12.9'], ['1.13.0', '1.11.9']],
      ['~1.2.3', ['1.2.3', '1.2.9'], ['1.3.0', '1.2.2']],
      ['~>1.2.3', ['1.2.3', '1.2.9'], ['1.3.0']],
      ['~0', ['0.0.0', '0.9.9'], ['1.0.0']],
      ['~0.0', ['0.0.0', '0.0.9'], ['0.1.0']],
      ['~0.0.0', ['0.0.0', '7.0.0'], []],
      ['~*', ['0.0.0', '7.0.0'], []],
      ['~2.x', ['2.0.0', '2.5.0'], ['3.0.0']],
    ]);
  });

  describe('^', () => {
    table([
      ['^1.2.3', ['1.2.3', '1.9.9'], ['2.0.0', '1.2.2']],
      ['^1.2', ['1.2.0', '1.9.0'], ['2.0.0', '1.1.9']],
      ['^1', ['1.0.0', '1.9.9'], ['2.0.0']],
      ['^1.x', ['1.0.0', '1.9.9'], ['2.0.0']],
      ['^1.2.x', ['1.2.0', '1.9.0'], ['2.0.0', '1.1.0']],
      ['^0.2.3', ['0.2.3', '0.2.9'], ['0.3.0', '0.2.2']],
      ['^0.2', ['0.2.0', '0.2.9'], ['0.3.0']],
      ['^0.0.3', ['0.0.3'], ['0.0.4', '0.0.2', '0.1.0']],
      ['^0.0', ['0.0.0', '0.0.9'], ['0.1.0']],
      ['^0', ['0.0.0', '0.9.9'], ['1.0.0']],
      ['^0.x', ['0.0.0', '0.9.9'], ['1.0.0']],
      // Code-derived quirk: only 0.0.0 itself.
      ['^*', ['0.0.0'], ['0.0.1', '1.0.0']],
    ]);
  });
});

describe("upstream's documented meanings", () => {
  table([
    ['1.5.0 - 4.5', ['1.5.0', '3.7.0', '4.5.9'], ['1.4.9', '4.6.0']],
    ['1.1 - 2', ['1.1.1', '2.9.0'], ['1.0.9', '3.0.0']],
    ['1.2.3 - 2.3.4', ['1.2.3', '2.3.4'], ['2.3.5']],
    ['>=1.1, <2, !=1.2.3 || >= 3', ['3.0.0', '1.1.0', '1.2.4'], ['1.2.3', '2.0.0']],
    ['>=1.1 <2 !=1.2.3 || > 3', ['1.5.0', '4.0.0'], ['3.0.0', '3.1.2', '1.2.3']],
    ['>=1.2.3,<2.3.4', ['1.2.3', '2.3.3'], ['2.3.4']],
    ['<1.2.3||>2.3.4', ['1.2.2', '2.3.5'], ['2.0.0']],
    ['>1.0.0,<1.2.3 || >2.1.0', ['1.1.0', '2.2.0'], ['1.0.0', '2.0.0']],
  ]);
});

describe('pre-release gate', () => {
  table([
    ['>=1.0.0', ['2.0.0'], ['2.0.0-rc.1', '1.1.0-alpha']],
    ['>=1.0.0-0', ['2.0.0-rc.1', '1.0.0-alpha', '1.0.0'], ['0.9.0-rc.1']],
    ['~1.2.3-beta.2', ['1.2.3-beta.2', '1.2.4-beta.2', '1.2.4'], ['1.2.3-beta.1', '1.3.0-beta.2']],
    // The gate is per OR group: pre-releases pass only through the group that mentions one.
    ['>=1.0.0-0 <2.0.0 || >=3.0.0', ['1.5.0-rc.1', '3.1.0'], ['3.1.0-rc.1']],
    ['>=3.0.0 || >=1.0.0-0', ['3.1.0-rc.1'], ['0.1.0-rc.1']],
    ['1.1-3', ['1.1.0-3', '1.1.0', '1.1.3'], ['1.2.0']],
  ]);
});

describe('quirks of the version character class', () => {
  // `|` is a version character, so `0||x` is the first version of the hyphen range and the
  // range becomes `>= 0||x, <= x` = `>=0` OR (`x` AND `<=x`).
  table([['0||x - x', ['1.0.0', '0.5.0'], ['1.0.0-rc.1']]]);
});

describe('build metadata is ignored', () => {
  table([
    ['1.0.0+1', ['1.0.0', '1.0.0+1', '1.0.0+2'], ['1.0.1']],
    ['1.0.0', ['1.0.0+1'], []],
  ]);
});

describe('grammar', () => {
  it.each([
    // Every version expression admission accepts is a valid constraint, except `|`, which the
    // CRD's regex lets through and Masterminds refuses (test/support/version-expressions.ts).
    ...ADMITTED_VERSION_EXPRESSIONS.filter((v) => v !== '|'),
    // Accepted by Masterminds although admission rejects them.
    '01.2.3',
    '1.2.3 - 2.3.4',
    '>=1.0.0 , <2.0.0',
    '>=1.0.0\t<2.0.0',
    ' 1.0.0 ',
    'x.1x',
  ])('accepts %j', (range) => {
    expect(parseVersionRange(range).ok).toBe(true);
  });

  it.each([
    ['foobar', 'improper constraint: "foobar"'],
    ['>=1.0.0 || foo', 'improper constraint: " foo"'],
    ['|| 1.0.0', 'improper constraint: ""'],
    ['', 'improper constraint: ""'],
    ['==1.0.0', 'improper constraint: "==1.0.0"'],
    ['!1.2.3', 'improper constraint: "!1.2.3"'],
    ['12.3.4.1234', 'improper constraint: "12.3.4.1234"'],
    ['1.2.3-beta!', 'improper constraint: "1.2.3-beta!"'],
    ['1.Y', 'improper constraint: "1.Y"'],
    ['>=1.0.0,,<2', 'improper constraint: ">=1.0.0,,<2"'],
    ['>=1.0.0<2', 'improper constraint: ">=1.0.0<2"'],
    // A hyphen range swallows the separator before it.
    ['<3 1 - 2', 'improper constraint: "<3>= 1, <= 2 "'],
    ['v1.2.3-beta.01', CONSTRAINT_PARSER_ERROR],
    ['1.2.3 | 2.0.0', CONSTRAINT_PARSER_ERROR],
    ['1x', CONSTRAINT_PARSER_ERROR],
    ['18446744073709551616', CONSTRAINT_PARSER_ERROR],
    // The first bad group wins, whichever kind of error it has.
    ['1x || foo', CONSTRAINT_PARSER_ERROR],
    ['foo || 1x', 'improper constraint: "foo "'],
  ])('rejects %j', (range, message) => {
    expect(parseVersionRange(range)).toEqual({ ok: false, error: message });
  });

  it('quotes control characters like Go', () => {
    expect(parseVersionRange('1.0.0\u000b')).toEqual({ ok: false, error: 'improper constraint: "1.0.0\\v"' });
  });

  // How long the scan takes is measured by the resolution benchmark (bench/benchmarks/resolution.ts).
  it('rejects long hostile input', () => {
    const hostile = `${'1   '.repeat(5000)}!`;
    expect(parseVersionRange(hostile).ok).toBe(false);
  });
});
