// The static CEL cost bound (decision 0110): hostile rules are refused from their parsed form
// without running, ordinary ones are accepted, each evaluation is estimated on the candidate's
// own sizes and paid for from the resolution's budget, and whatever the estimate accepts runs to
// a verdict within it. The CPU time a unit of estimate takes is measured by `npm run bench --
// --only cel-cost`, not here: a timed unit test fails on a busy machine.
import fc from 'fast-check';
import { parse } from '@bufbuild/cel';
import { describe, expect, it, vi } from 'vitest';
import type { Bundle, Property } from '../../shared/fbc/types.ts';
import { CostBudget } from './budget.ts';
import { compileRule, type CelRule } from './cel.ts';
import { dependencyChecker } from './check.ts';
import { estimateRule, measureProperties } from './cost.ts';
import { checkRequirements } from './evaluate.ts';
import { DEFAULT_LIMITS } from './limits.ts';
import { RequirementCache, bundleRequirements } from './requirements.ts';
import { RuleCache } from './rule-cache.ts';
import { ALL_ATTACK, HOSTILE_SHAPES, MAP_ATTACK, SHAPE_PROPERTIES, zeros } from '../../../test/fixtures/cel-shapes.ts';

/** What `f` returns and how many evaluations it paid for (each rule run on a candidate pays once). */
function evaluationsDuring<T>(f: () => T): { value: T; evaluations: number } {
  const spend = vi.spyOn(CostBudget.prototype, 'spend');
  try {
    const value = f();
    return { value, evaluations: spend.mock.calls.length };
  } finally {
    spend.mockRestore();
  }
}

function compiled(rule: string): CelRule {
  const r = compileRule(rule, DEFAULT_LIMITS);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

function bundleWith(rule: string, name = 'hostile.v1.0.0'): Bundle {
  return { schema: 'olm.bundle', name, package: 'hostile', image: '', properties: [{ type: 'olm.constraint', value: { cel: { rule } } }] } as Bundle;
}

describe('the static estimate', () => {
  it.each([
    ['all', ALL_ATTACK],
    ['map', MAP_ATTACK],
  ])('refuses the %s attack of issue 60 before running it, naming the limit', (_, rule) => {
    expect(rule.length).toBeLessThanOrEqual(DEFAULT_LIMITS.maxRuleLength);
    expect(compileRule(rule, DEFAULT_LIMITS)).toEqual({
      ok: false,
      error: expect.stringMatching(/^cel rule's estimated cost \d+ exceeds the limit of 1000000$/) as unknown,
    });
  });

  it('refuses them as a bundle declaration naming the bundle, the property and the limit', () => {
    const r = bundleRequirements(bundleWith(ALL_ATTACK), DEFAULT_LIMITS);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(
      /^bundle "hostile\.v1\.0\.0": property olm\.constraint #0: value\.cel: cel rule's estimated cost \d+ exceeds the limit of 1000000$/,
    );
  });

  it.each([
    // OLM's documentation and operator-framework/api's tests.
    'properties.exists(p, p.type == "certified" && p.value == "true")',
    'properties.exists(p, p.type == "certified") && properties.exists(p, p.type == "stable")',
    "properties.exists(p, p.type == 'olm.test' && (semver_compare(p.value, '1.0.0') == 0))",
    'properties.exists(p, p.type == "olm.kubeversion" && semverCompare(p.value.version, "1.16.0") >= 0)',
    'properties.exists(p, p.type == "olm.package" && p.value.packageName == "etcd") || properties.size() == 0',
    'properties.filter(p, p.type == "olm.gvk").map(p, p.value.kind).exists(k, k in ["Blue", "Green"])',
    'properties.exists_one(p, p.type == "olm.package" && p.value.version.matches("^1\\\\.[0-9]+"))',
  ])('accepts %s', (rule) => {
    expect(compileRule(rule, DEFAULT_LIMITS).ok).toBe(true);
  });

  it.each([
    ['1', 'cel expressions must have type Bool'],
    ['[true]', 'cel expressions must have type Bool'],
    ['properties', 'cel expressions must have type Bool'],
    ['properties.exists(p, p.type.matches(p.value))', 'cel rule is refused: matches needs a string literal pattern'],
    ['"a".matches("(a{1000}){1000}")', "cel rule's estimated cost"],
  ])('refuses %s without running it', (rule, error) => {
    const r = compileRule(rule, DEFAULT_LIMITS);
    expect(!r.ok && r.error).toContain(error);
  });

  it('grows with literal lists, concatenations and nesting, multiplicatively', () => {
    const cost = (rule: string): number => {
      const e = estimateRule(parse(rule).expr ?? fail(), DEFAULT_LIMITS.ruleCandidate);
      return e.ok ? e.value.cost : Number.NaN;
    };
    expect(cost(`${zeros(20)}.all(a, ${zeros(20)}.all(b, b == 0))`)).toBeGreaterThan(20 * 20);
    expect(cost(`${zeros(40)}.all(a, ${zeros(20)}.all(b, b == 0))`)).toBeGreaterThan(1.9 * cost(`${zeros(20)}.all(a, ${zeros(20)}.all(b, b == 0))`));
    expect(cost(`(${zeros(20)} + ${zeros(20)}).all(a, a == 0)`)).toBeGreaterThan(cost(`${zeros(20)}.all(a, a == 0)`) * 1.9);
    expect(cost(`${zeros(20)}.map(a, a).all(x, x == 0)`)).toBeGreaterThan(cost(`${zeros(20)}.all(x, x == 0)`));
  });
});

function fail(): never {
  throw new Error('unreachable');
}

describe('evaluation', () => {
  it('is estimated on the candidate: a rule cheap on the reference candidate but over the limit on a large one is not run there, and says so', () => {
    const rule = 'properties.exists(a, properties.exists(b, properties.exists(c, a.value == b.value && b.value == c.value && c.value == -1)))';
    const reqs = bundleRequirements(bundleWith(rule, 'app.v1.0.0'), DEFAULT_LIMITS);
    if (!reqs.ok) throw new Error(reqs.error);
    const many: Property[] = Array.from({ length: 1000 }, (_, i) => ({ type: 't', value: i }));
    const v = checkRequirements(reqs.value, [{ source: 'c', properties: many }]);
    expect(v.satisfied).toBe(false);
    expect(!v.satisfied && v.unmet.description).toMatch(/\(CEL rule not evaluated: estimated cost \d+ exceeds the limit of 1000000\)$/);
  });

  it('does not count a rule it did not run inside `not` as not matching', () => {
    const bundle = {
      ...bundleWith(''),
      properties: [
        {
          type: 'olm.constraint',
          value: { not: { constraints: [{ cel: { rule: 'properties.all(a, properties.all(b, properties.all(c, a.value != c.value)))' } }] } },
        },
      ],
    } as Bundle;
    const reqs = bundleRequirements(bundle, DEFAULT_LIMITS);
    if (!reqs.ok) throw new Error(reqs.error);
    const few: Property[] = [{ type: 't', value: 1 }];
    expect(checkRequirements(reqs.value, [{ source: 'c', properties: few }]).satisfied).toBe(true);
    const many: Property[] = Array.from({ length: 500 }, (_, i) => ({ type: 't', value: i }));
    const v = checkRequirements(reqs.value, [{ source: 'c', properties: many }]);
    expect(v.satisfied).toBe(false);
    expect(!v.satisfied && v.unmet.description).toContain('(CEL rule not evaluated: estimated cost');
  });

  it('does not run a rule on a candidate whose properties hold more values than it measures', () => {
    const rule = compiled('properties.exists(p, p.type == "x")');
    const huge: Property[] = [{ type: 'x', value: Array.from({ length: DEFAULT_LIMITS.maxCandidateValues }, (_, i) => i) }];
    expect(rule.test(huge, new CostBudget(DEFAULT_LIMITS.maxResolutionCost))).toEqual({
      refused: `CEL rule not evaluated: its properties hold more than ${DEFAULT_LIMITS.maxCandidateValues} values`,
    });
  });

  it('pays each evaluation from the budget, keeps verdicts, and refuses once the budget is spent', () => {
    const text = 'properties.exists(p, p.type == "x")';
    const rule = compiled(text);
    const candidates: Property[][] = Array.from({ length: 30 }, () => [{ type: 'y', value: 'z' }]);
    const each = estimateRule(parse(text).expr ?? fail(), measureProperties(candidates[0] ?? [], 100) ?? fail());
    const budget = new CostBudget((each.ok ? each.value.cost : 0) * 10);
    const verdicts = candidates.map((p) => rule.test(p, budget));
    expect(verdicts.slice(0, 5)).toEqual([false, false, false, false, false]);
    expect(verdicts.at(-1)).toEqual({ refused: `CEL rule not evaluated: the resolution's estimated CEL cost exceeds the limit of ${budget.limit}` });
    // A known verdict costs nothing, in this budget or the next.
    const spent = budget.spent;
    expect(rule.test(candidates[0] ?? [], budget)).toBe(false);
    expect(budget.spent).toBe(spent);
    expect(rule.test(candidates[0] ?? [], new CostBudget(0))).toBe(false);
  });

  it('yields to the event loop between chunks while preparing a resolution, and check finds the verdicts', async () => {
    const rule = 'properties.all(a, properties.all(b, a.type == b.type || a.value != b.value))';
    const propertiesOf = (i: number): Property[] => Array.from({ length: 20 }, (_, j) => ({ type: `t${j}`, value: `v${i}` }));
    const each = estimateRule(parse(rule).expr ?? fail(), measureProperties(propertiesOf(0), 10_000) ?? fail());
    // About four rules' limits of work, within the half of the budget prepare may spend.
    const n = Math.ceil((4 * DEFAULT_LIMITS.maxRuleCost) / (each.ok ? each.value.cost : 1));
    expect(n * (each.ok ? each.value.cost : 0)).toBeLessThan(DEFAULT_LIMITS.maxResolutionCost / 2);
    const candidates = Array.from({ length: n }, (_, i) => ({ source: `c${i}`, properties: propertiesOf(i) }));
    const bundle = bundleWith(rule, 'app.v1.0.0');
    const checker = dependencyChecker(candidates, DEFAULT_LIMITS, new RequirementCache());
    let pauses = 0;
    await checker.prepare([bundle], async () => {
      pauses++;
      await Promise.resolve();
    });
    expect(pauses).toBeGreaterThanOrEqual(4);
    // check finds every verdict prepare reached: it evaluates nothing more.
    const calls = evaluationsDuring(() => checker.check(bundle));
    expect(calls.value).toMatch(/^bundle "app\.v1\.0\.0" has an unmet dependency: a bundle matching CEL rule .* \(olm\.constraint\), met by/);
    expect(calls.evaluations).toBe(0);
  });

  it('compiles each distinct rule text once, in a bounded cache', () => {
    const rules = new RuleCache(2);
    const a = rules.compile('properties.size() > 0', DEFAULT_LIMITS);
    expect(rules.compile('properties.size() > 0', DEFAULT_LIMITS)).toBe(a);
    rules.compile('properties.size() > 1', DEFAULT_LIMITS);
    rules.compile('properties.size() > 2', DEFAULT_LIMITS);
    expect(rules.size).toBe(2);
    expect(rules.compile('properties.size() > 0', DEFAULT_LIMITS)).not.toBe(a);
  });
});

// Hostile shapes, sized at random: whatever the estimate accepts runs to a verdict, paid for
// from a budget of exactly its estimate on that candidate.
describe('what the estimate accepts', () => {
  it('runs to a verdict within a budget of its estimate, for hostile shapes of random sizes', () => {
    const size = measureProperties(SHAPE_PROPERTIES, DEFAULT_LIMITS.maxCandidateValues) ?? fail();
    let ran = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: HOSTILE_SHAPES.length - 1 }),
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 1, max: 120 }),
        (shape, n, m) => {
          const rule = HOSTILE_SHAPES[shape]?.(n, m) ?? fail();
          const c = compileRule(rule, DEFAULT_LIMITS);
          if (!c.ok) {
            expect(c.error).toMatch(/estimated (cost|memory) \d+ exceeds the limit|more than/);
            return;
          }
          const estimate = estimateRule(parse(rule).expr ?? fail(), size);
          if (!estimate.ok) throw new Error(estimate.error);
          // The estimate on this candidate, and measuring it (a quarter step per value walked).
          const price = estimate.value.cost + Math.ceil(size.total / 4);
          const budget = new CostBudget(price);
          const verdict = c.value.test(SHAPE_PROPERTIES.slice(), budget);
          const over = estimate.value.cost > DEFAULT_LIMITS.maxRuleCost || estimate.value.heap > DEFAULT_LIMITS.maxRuleMemory;
          if (over) {
            // Accepted on the reference candidate, too costly on this one: refused unrun.
            expect(verdict).toEqual({
              refused: expect.stringMatching(/^CEL rule not evaluated: estimated (cost|memory) \d+ exceeds the limit/) as unknown,
            });
            expect(budget.spent).toBe(0);
            return;
          }
          expect(typeof verdict).toBe('boolean');
          expect(budget.spent).toBe(price);
          ran++;
        },
      ),
      { numRuns: 60, seed: 60 },
    );
    expect(ran).toBeGreaterThan(10);
  });
});
