import { describe, expect, it } from 'vitest';
import type { Bundle, JsonValue } from '../../shared/fbc/types.ts';
import { checkRequirements } from './evaluate.ts';
import { DEFAULT_LIMITS } from './limits.ts';
import { RequirementCache, bundleRequirements } from './requirements.ts';

function bundleWith(type: string, value: JsonValue): Bundle {
  return {
    schema: 'olm.bundle',
    name: 'app.v1.0.0',
    package: 'app',
    image: 'registry.example/app:v1',
    properties: [
      { type: 'olm.package', value: { packageName: 'app', version: '1.0.0' } },
      { type, value },
    ],
  };
}

function nested(depth: number): JsonValue {
  let v: JsonValue = { gvk: { group: 'g', version: 'v1', kind: 'K' } };
  for (let i = 0; i < depth; i++) v = { all: { constraints: [v] } };
  return v;
}

const WHERE = 'bundle "app.v1.0.0": property olm.constraint #1: ';

describe('bundleRequirements: malformed and oversized input', () => {
  it.each([
    [
      'olm.package.required',
      'not an object',
      'bundle "app.v1.0.0": property olm.package.required #1: Invalid input: expected object, received string',
    ],
    [
      'olm.package.required',
      { versionRange: '>1.0.0' },
      'property olm.package.required #1: packageName: Invalid input: expected string, received undefined',
    ],
    [
      'olm.package.required',
      { packageName: 'etcd', versionRange: 'not a range' },
      'property olm.package.required #1: versionRange "not a range" is invalid',
    ],
    ['olm.gvk.required', { group: 'g', kind: 'K' }, 'property olm.gvk.required #1: version: Invalid input'],
    ['olm.constraint', {}, `${WHERE}value: a constraint has exactly one of package, gvk, cel, all, any, not; found none`],
    [
      'olm.constraint',
      { gvk: { group: 'g', version: 'v1', kind: 'K' }, cel: { rule: 'true' } },
      `${WHERE}value: a constraint has exactly one of package, gvk, cel, all, any, not; found gvk, cel`,
    ],
    ['olm.constraint', { gvk: { group: 'g', version: 'v1', kind: 'K', extra: 1 } }, `${WHERE}value: gvk: Unrecognized key: "extra"`],
    ['olm.constraint', { colour: 'blue' }, `${WHERE}value: Unrecognized key: "colour"`],
    ['olm.constraint', { all: { constraints: [] } }, `${WHERE}value.all: constraints is empty`],
    [
      'olm.constraint',
      { all: { constraints: [{ package: { packageName: 'x' } }] } },
      `${WHERE}value.all.constraints[0]: package.versionRange: Invalid input`,
    ],
    ['olm.constraint', { cel: { rule: 'properties.exists(p, p.type ==' } }, `${WHERE}value.cel: cel rule does not compile: `],
    [
      'olm.constraint',
      { cel: { rule: 'doesnt_exist(properties, 1) == 0' } },
      `${WHERE}value.cel: cel rule does not compile: undeclared reference to doesnt_exist`,
    ],
    ['olm.constraint', { cel: { rule: '1' } }, `${WHERE}value.cel: cel expressions must have type Bool`],
    ['olm.constraint', { cel: { rule: '' } }, `${WHERE}value.cel: cel rule is empty`],
    ['olm.constraint', { cel: { rule: `true${' && true'.repeat(1000)}` } }, `${WHERE}value.cel: cel rule is longer than 4096 characters`],
    [
      'olm.constraint',
      { cel: { rule: 'properties.all(a, properties.all(b, properties.all(c, properties.all(d, true))))' } },
      `${WHERE}value.cel: cel rule nests 4 comprehensions, more than 3`,
    ],
    ['olm.constraint', nested(17), `compound constraints nested deeper than 16`],
    [
      'olm.constraint',
      { any: { constraints: Array.from({ length: 600 }, () => ({ gvk: { group: 'g', version: 'v1', kind: 'K' } })) } },
      `${WHERE}more than 512 constraints`,
    ],
    [
      'olm.constraint',
      { failureMessage: 'x'.repeat(140_000), gvk: { group: 'g', version: 'v1', kind: 'K' } },
      `${WHERE}olm.constraint value is greater than max constraint size 131072 bytes`,
    ],
  ] as const)('%s #%#', (type, value, message) => {
    const r = bundleRequirements(bundleWith(type, value as JsonValue), DEFAULT_LIMITS);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain(message);
  });

  it('accepts nesting up to the limit and `none` as the old spelling of `not`', () => {
    expect(bundleRequirements(bundleWith('olm.constraint', nested(16)), DEFAULT_LIMITS).ok).toBe(true);
    const none = bundleRequirements(
      bundleWith('olm.constraint', { none: { constraints: [{ gvk: { group: 'g', version: 'v1', kind: 'K' } }] } }),
      DEFAULT_LIMITS,
    );
    expect(none.ok && none.value[0]?.constraint.predicate.kind).toBe('not');
  });

  it('refuses more requirement properties than the limit', () => {
    const b = bundleWith('olm.gvk.required', { group: 'g', version: 'v1', kind: 'K' });
    const many: Bundle = { ...b, properties: [...b.properties, ...Array.from({ length: 64 }, () => b.properties[1] ?? b.properties[0]!)] };
    const r = bundleRequirements(many, DEFAULT_LIMITS);
    expect(r).toEqual({ ok: false, error: 'bundle "app.v1.0.0": property olm.gvk.required #65: more than 64 requirement properties' });
  });

  it('checks a wide compound tree against many candidates in bounded time', () => {
    const wide = {
      any: {
        constraints: Array.from({ length: 250 }, (_, i) => ({
          all: { constraints: [{ package: { packageName: `p${i}`, versionRange: '>=1.0.0' } }] },
        })),
      },
    };
    const r = bundleRequirements(bundleWith('olm.constraint', wide), DEFAULT_LIMITS);
    if (!r.ok) throw new Error(r.error);
    const candidates = Array.from({ length: 500 }, (_, i) => ({
      source: `c${i}`,
      properties: [{ type: 'olm.package', value: { packageName: `q${i}`, version: '1.0.0' } }],
    }));
    const started = performance.now();
    expect(checkRequirements(r.value, candidates).satisfied).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('CEL rules', () => {
  function celVerdict(rule: string, properties: { type: string; value: JsonValue }[]): boolean {
    const r = bundleRequirements(bundleWith('olm.constraint', { cel: { rule } }), DEFAULT_LIMITS);
    if (!r.ok) throw new Error(r.error);
    return checkRequirements(r.value, [{ source: 'c', properties }]).satisfied;
  }

  it.each([
    // operator-framework/api's own cases for semver_compare, plus the tolerant reading.
    ["properties.exists(p, p.type == 'olm.test' && (semver_compare(p.value, '1.0.0') == 0))", '1.0.0', true],
    ["properties.exists(p, p.type == 'olm.test' && (semver_compare(p.value, '1.0.1') == 0))", '1.0.0', false],
    ["properties.exists(p, p.type == 'olm.test' && (semver_compare(p.value, '1.0.0') < 0))", '1.0.0', false],
    ["properties.exists(p, p.type == 'olm.test' && (semver_compare(p.value, '1.0.0') > 0))", '1.0.0', false],
    ["properties.exists(p, p.type == 'olm.test' && semver_compare(p.value, '1.9.0') > 0)", 'v1.10', true],
    ["properties.exists(p, p.type == 'olm.test' && semverCompare(p.value, '1.0.0') == 0)", ' v1 ', true],
    ["properties.exists(p, p.type == 'olm.test' && semver_compare(p.value, '1.0.0') > 0)", '1.0.0-rc.1', false],
    // An evaluation error (an unreadable version, a missing key) does not satisfy the rule.
    ["properties.exists(p, p.type == 'olm.test' && semver_compare(p.value, '1.0.0') >= 0)", 'banana', false],
    ["properties.exists(p, p.type == 'olm.test' && p.value.missing == 1)", '1.0.0', false],
  ] as const)('%s on %j: %s', (rule, value, met) => {
    expect(celVerdict(rule, [{ type: 'olm.test', value }])).toBe(met);
  });

  it('gives up on a rule whose cost on a candidate is over the limit', () => {
    const rule = 'properties.exists(a, properties.exists(b, properties.exists(c, a.value == b.value && b.value == c.value && c.value == -1)))';
    const few = Array.from({ length: 10 }, (_, i) => ({ type: 't', value: i }));
    expect(celVerdict(rule, [...few, { type: 't', value: -1 }])).toBe(true);
    const many = Array.from({ length: 1000 }, (_, i) => ({ type: 't', value: i }));
    const started = performance.now();
    expect(celVerdict(rule, [...many, { type: 't', value: -1 }])).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('RequirementCache', () => {
  it('reads a bundle object once and a changed bundle again', () => {
    const cache = new RequirementCache();
    const b = bundleWith('olm.gvk.required', { group: 'g', version: 'v1', kind: 'K' });
    const first = cache.requirements(b, DEFAULT_LIMITS);
    expect(cache.requirements(b, DEFAULT_LIMITS)).toBe(first);
    const other = bundleWith('olm.gvk.required', { group: 'g', version: 'v2', kind: 'K' });
    const second = cache.requirements(other, DEFAULT_LIMITS);
    expect(second.ok && second.value[0]?.constraint.predicate).toMatchObject({ kind: 'gvk', gvk: { version: 'v2' } });
  });
});
