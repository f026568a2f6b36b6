import { describe, expect, it } from 'vitest';
import { parseSemver } from '../../shared/semver/index.ts';
import { parseSkipRange } from './candidates.ts';

function contains(range: string, version: string): boolean {
  const r = parseSkipRange(range);
  if (r === null) throw new Error(`${range} did not parse`);
  const v = parseSemver(version);
  if (!v.ok) throw new Error(v.error);
  return r(v.value);
}

describe('parseSkipRange', () => {
  it.each<[string, string[], string[]]>([
    ['>=1.0.0 <2.0.0', ['1.0.0', '1.9.9'], ['2.0.0', '0.9.9']],
    ['>= 1.0.0 < 2.0.0', ['1.5.0'], ['2.0.0']],
    ['<2.0.0', ['2.0.0-rc.1', '1.5.0-alpha', '1.0.0'], ['2.0.0']],
    ['1.2.3', ['1.2.3', '1.2.3+build'], ['1.2.4']],
    ['=1.2.3', ['1.2.3'], ['1.2.4']],
    ['==1.2.3', ['1.2.3'], ['1.2.4']],
    ['!=1.2.3', ['1.2.4'], ['1.2.3']],
    ['!1.2.3', ['1.2.4'], ['1.2.3']],
    ['>1.2.3', ['1.2.4'], ['1.2.3']],
    ['<=1.2.3', ['1.2.3'], ['1.2.4']],
    ['<1.0.0 || >=2.0.0', ['0.5.0', '2.1.0'], ['1.0.0', '1.9.9']],
    ['>=1.2.x', ['1.2.0', '3.0.0'], ['1.1.9']],
    ['<=1.2.x', ['1.2.9'], ['1.3.0']],
    ['>1.2.x', ['1.3.0'], ['1.2.9']],
    ['<1.2.x', ['1.1.9'], ['1.2.0']],
    ['1.2.x', ['1.2.0', '1.2.9'], ['1.3.0', '1.1.9']],
    ['=1.2.x', ['1.2.5'], ['1.3.0']],
    // Expands to `<1.2.0 >=1.3.0`, an AND nothing satisfies (faithful to upstream).
    ['!=1.2.x', [], ['1.1.0', '1.2.0', '1.2.9', '1.3.0']],
    ['1.x', ['1.0.0', '1.9.0'], ['2.0.0']],
    ['<=1.x', ['1.9.9'], ['2.0.0']],
    ['>1.x', ['2.0.0'], ['1.9.9']],
    // `1.x.x` has the patch-wildcard shape but flattens to 1.0.0: only 1.0.z.
    ['1.x.x', ['1.0.0', '1.0.9'], ['1.1.0']],
    // An unknown operator before a wildcard reads as plain equality with the flattened version.
    ['~1.x', ['1.0.0'], ['1.0.1']],
    ['__proto__1.x', ['1.0.0'], ['1.0.1']],
    // A wildcard-looking pre-release keeps working for >= and <.
    ['>=1.0.0-xyz', ['1.0.0-xyz', '1.0.0'], ['1.0.0-abc']],
    // Single-character tokens are dropped.
    ['>=1.0.0 a', ['1.0.0', '5.0.0'], ['0.9.0']],
  ])('%s', (range, inside, outside) => {
    for (const v of inside) expect(contains(range, v), `${range} should contain ${v}`).toBe(true);
    for (const v of outside) expect(contains(range, v), `${range} should not contain ${v}`).toBe(false);
  });

  it.each([
    '',
    '>=1.0.0, <2.0.0',
    '|| >=1.0.0',
    '>=1.0.0 ||',
    // Upstream parses this but dereferences a nil function when evaluating it (decision 0030).
    '>=1.0.0 || || <0.5.0',
    '1.2.*',
    '1.2.X',
    '>=1.2',
    'v1.2.3',
    '=1.0.0-xyz',
    '~1.2.3',
    'foo',
    '>=1.0.0-01',
    'constructor1.0.0',
  ])('rejects %j (the entry is then not a successor via skipRange)', (range) => {
    expect(parseSkipRange(range)).toBeNull();
  });
});
