import { describe, expect, it } from 'vitest';
import { checkQuery } from './limits.ts';

const refusal = (query: string): string | undefined => {
  const checked = checkQuery(query);
  return checked.ok ? undefined : checked.message;
};

const aliased = (n: number, field: string, prefix = 'a'): string => Array.from({ length: n }, (_, i) => `${prefix}${i}: ${field}`).join(' ');

describe('checkQuery: complexity with fragments counted where they are spread', () => {
  it('refuses the introspection amplification of issue 60 (25 x 25 aliases through one fragment)', () => {
    const attack = `{ ${aliased(25, '__schema { ...T }', 's')} } fragment T on __Schema { ${aliased(25, 'types { fields { name } }', 't')} }`;
    expect(refusal(attack)).toBe('query exceeds maximum alias count of 50');
  });

  it('counts the fields of a fragment once per spread', () => {
    // 30 fields in F, spread 17 times: 510 fields (the fragment alone is far under the limit).
    const fields = Array.from({ length: 30 }, (_, i) => `f${i}`).join(' ');
    const spreads = Array.from({ length: 17 }, (_, i) => `x${i}: summary { ...F }`).join(' ');
    expect(refusal(`{ ${spreads} } fragment F on CatalogSummary { ${fields} }`)).toBe('query exceeds maximum field count of 500');
    const fewer = Array.from({ length: 15 }, (_, i) => `x${i}: summary { ...F }`).join(' ');
    expect(refusal(`{ ${fewer} } fragment F on CatalogSummary { ${fields} }`)).toBeUndefined();
  });

  it('counts aliases inside a fragment once per spread', () => {
    const query = `{ a: summary { ...F } b: summary { ...F } c: summary { ...F } } fragment F on CatalogSummary { ${aliased(16, 'totalSchemas')} }`;
    // 3 + 3 x 16 = 51 aliases.
    expect(refusal(query)).toBe('query exceeds maximum alias count of 50');
  });

  it('measures depth through spreads, also of a fragment spread a second time deeper down', () => {
    const deep = '{ olmbundles { ...A } } fragment A on OlmBundle { properties { ...B } } fragment B on X { a { b { c { d { e { f { g } } } } } } }';
    expect(refusal(deep)).toBe('query exceeds maximum depth of 10');
    // The same fragment used shallow first and deep second: upstream's single visit saw only the shallow use.
    const reused = `{ a: summary { ...S } b: x { y { z { w { v { u { t { q { ...S } } } } } } } } } fragment S on T { s { r } }`;
    expect(refusal(reused)).toBe('query exceeds maximum depth of 10');
  });

  it('refuses a fragment bomb without exponential work', () => {
    // F0 spreads F1 ten times, F1 spreads F2 ten times, ...: 10^9 expansions of F9's field.
    const levels = 9;
    const defs = Array.from({ length: levels }, (_, i) => `fragment F${i} on Query { ${`...F${i + 1} `.repeat(10)}}`).join(' ');
    const started = performance.now();
    expect(refusal(`{ ...F0 } ${defs} fragment F${levels} on Query { summary { totalSchemas } }`)).toMatch(
      /^query exceeds maximum (field count of 500|depth of 10)$/,
    );
    // Spreads of fragments that do not exist (no field at all) are bounded the same way.
    const hollow = Array.from({ length: 8 }, (_, i) => `fragment H${i} on Query { ${`...H${i + 1} `.repeat(12)}}`).join(' ');
    expect(refusal(`{ ...H0 } ${hollow}`)).toBe('query exceeds maximum field count of 500');
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('leaves cycles and unknown fragments to validation', () => {
    const checked = checkQuery('{ ...A ...Nope } fragment A on Query { summary { totalSchemas } ...B } fragment B on Query { ...A }');
    expect(checked.ok).toBe(true);
  });

  it('accepts ordinary queries, with fragments and introspection', () => {
    for (const q of [
      '{ olmbundles(limit: 5) { name package image properties { type value } } }',
      '{ summary { totalSchemas schemas { name totalObjects totalFields } } }',
      '{ __schema { queryType { fields { name description args { name type { name kind ofType { name } } } } } } }',
      'query Q { a: olmbundles { ...B } b: olmbundles(offset: 100) { ...B } } fragment B on OlmBundle { name package image }',
      `{ ${aliased(50, 'olmbundles { name }')} }`,
      `{ olmbundles { ${Array.from({ length: 499 }, (_, i) => `f${i}`).join(' ')} } }`,
    ]) {
      expect(refusal(q), q.slice(0, 60)).toBeUndefined();
    }
  });

  it('keeps the parse error', () => {
    expect(refusal('{ olmbundles { name }')).toMatch(/^query parse error: Syntax Error/);
  });
});
