/**
 * A static cost and memory estimate of a CEL rule, computed from its parsed form before it is
 * ever run (decision 0110), after cel-go's checker/cost.go: every expression gets upper bounds
 * on its value's size (a list literal's element count, a concatenation's sum, a `map`/`filter`
 * result's range size, a string's length), and a comprehension costs its range's size times
 * its body's cost, nested multiplicatively. The variable `properties` is sized by what a
 * candidate's properties hold (`CandidateSize`). Units are interpreter steps; a character of a
 * string operation is a tenth of one (cel-go's traversal factor). `heap` counts every value the
 * rule allocates while it runs (garbage included), so it bounds peak memory too.
 *
 * Modelled on @bufbuild/cel 0.6.1's evaluator: macro accumulators grow by `accu + [x]`, which
 * builds a lazy concatenation one level deeper per step (iterating it costs its depth per
 * element); plain objects of the input are converted to maps on each access (their entry count).
 */
import type { parse } from '@bufbuild/cel';
import { err, ok, type Result } from '../../shared/errors/index.ts';

type Expr = ReturnType<typeof parse>['expr'];

/** Upper bounds on one candidate's `properties`. */
export interface CandidateSize {
  /** Entries of the list itself. */
  readonly items: number;
  /** The longest list or map anywhere inside (not the list itself). */
  readonly width: number;
  /** The longest string anywhere inside. */
  readonly chars: number;
  /** Values (containers, entries, strings) in all. */
  readonly total: number;
  /** Characters of all strings inside. */
  readonly text: number;
}

/** The rule's estimated work and allocation on one evaluation. */
export interface RuleEstimate {
  readonly cost: number;
  readonly heap: number;
}

type Kind = 'bool' | 'number' | 'string' | 'list' | 'map' | 'dyn';

// Bounds on one expression's value and on the work to compute it.
interface Est {
  readonly kind: Kind;
  readonly cost: number;
  readonly heap: number;
  /** Own length when a list or map. */
  readonly size: number;
  /** Longest list or map nested inside (not itself). */
  readonly width: number;
  /** Length when a string or bytes, and the longest string nested inside. */
  readonly chars: number;
  /** Values inside. */
  readonly total: number;
  /** Characters of the strings inside. */
  readonly text: number;
  /** Depth of lazy concatenations inside. */
  readonly chain: number;
  /** The text when a string literal (for `matches`). */
  readonly literal?: string;
  /** 'list' for the candidate's `properties`, 'item' for one of them (which has `type` and `value`). */
  readonly properties?: 'list' | 'item';
}

const CHAR = 0.1;
// Allocation is paid in time too (the collector): each unit allocated costs this many steps.
const ALLOC = 4;
// Strings allocate about one unit per 16 characters.
const CHARS_PER_UNIT = 16;
// An evaluation error (a field a value does not have, a conversion a value does not allow):
// the evaluator builds an error value each time, measured at 3-8 microseconds, some 400 steps.
// Paid wherever a value of unknown kind is selected from or converted.
const FAIL = 400;

const SCALAR: Omit<Est, 'cost' | 'heap'> = { kind: 'dyn', size: 1, width: 0, chars: 0, total: 1, text: 0, chain: 0 };

function scalar(kind: Kind, cost: number, heap: number): Est {
  return { ...SCALAR, kind, cost, heap };
}

/** What an element of `e` (or a field, a key) may be. */
function element(e: Omit<Est, 'cost' | 'heap'>): Omit<Est, 'cost' | 'heap'> {
  return {
    ...(e.properties === 'list' ? { properties: 'item' as const } : {}),
    kind: e.kind === 'string' ? 'string' : 'dyn',
    size: e.width,
    width: e.width,
    chars: e.chars,
    total: e.total,
    text: e.text,
    chain: e.chain,
  };
}

function join(a: Est, b: Est): Omit<Est, 'cost' | 'heap' | 'kind'> {
  return {
    size: Math.max(a.size, b.size),
    width: Math.max(a.width, b.width),
    chars: Math.max(a.chars, b.chars),
    total: Math.max(a.total, b.total),
    text: Math.max(a.text, b.text),
    chain: Math.max(a.chain, b.chain),
  };
}

const sum = (xs: readonly Est[], f: (e: Est) => number): number => xs.reduce((n, e) => n + f(e), 0);

// Counted repetitions multiply a regular expression's program (`(a{100}){100}` is 10,000 steps).
function regexProgram(pattern: string): number {
  let size = pattern.length + 1;
  for (const m of pattern.matchAll(/\{(\d+)(?:,(\d*))?\}/g)) size *= Math.max(Number(m[1] ?? 1), Number(m[2] || 1), 1);
  return size;
}

const COMPARE = new Set(['_==_', '_!=_', '_<_', '_<=_', '_>_', '_>=_']);
const ARITH = new Set(['_-_', '_*_', '_/_', '_%_', '-_']);
const CONVERT = new Set(['int', 'uint', 'double', 'bool', 'bytes', 'string', 'dyn', 'type', 'duration', 'timestamp']);
const TIME = /^get(FullYear|Month|Date|DayOfMonth|DayOfWeek|DayOfYear|Hours|Minutes|Seconds|Milliseconds)$/;
const STRING_TESTS = new Set(['contains', 'startsWith', 'endsWith']);
const SEMVER = new Set(['semver_compare', 'semverCompare']);

class Estimator {
  readonly #scope: Map<string, Omit<Est, 'cost' | 'heap'>>[] = [];

  constructor(properties: CandidateSize) {
    this.#scope.push(
      new Map([
        [
          'properties',
          {
            kind: 'list',
            size: properties.items,
            width: properties.width,
            chars: properties.chars,
            total: properties.total,
            text: properties.text,
            chain: 0,
            properties: 'list',
          },
        ],
      ]),
    );
  }

  #lookup(name: string): Omit<Est, 'cost' | 'heap'> | undefined {
    for (let i = this.#scope.length - 1; i >= 0; i--) {
      const v = this.#scope[i]?.get(name);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  estimate(e: Expr | undefined): Result<Est, string> {
    if (e === undefined) return ok(scalar('dyn', 1, 0));
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr': {
        const c = k.value.constantKind;
        if (c.case === 'stringValue')
          return ok({ ...SCALAR, kind: 'string', cost: 1, heap: 0, size: 0, chars: c.value.length, text: c.value.length, literal: c.value });
        if (c.case === 'bytesValue') return ok({ ...SCALAR, kind: 'string', cost: 1, heap: 0, size: 0, chars: c.value.length, text: c.value.length });
        return ok(scalar(c.case === 'boolValue' ? 'bool' : c.case === 'nullValue' ? 'dyn' : 'number', 1, 0));
      }
      case 'identExpr': {
        const v = this.#lookup(k.value.name);
        return ok(v === undefined ? scalar('dyn', 1, 0) : { ...v, cost: 1, heap: 0 });
      }
      case 'selectExpr': {
        const operand = this.estimate(k.value.operand);
        if (!operand.ok) return operand;
        const o = operand.value;
        // A field of an input object: the object becomes a map of its entries, the field is converted in turn.
        const el = { ...element(o), properties: undefined };
        // Every property has a type and a value; any other field of a value of unknown kind may fail.
        const always = o.properties === 'item' && (k.value.field === 'type' || k.value.field === 'value');
        const conv = o.size + el.width + (o.kind === 'dyn' && !k.value.testOnly && !always ? FAIL : 0);
        if (k.value.testOnly) return ok(scalar('bool', o.cost + 1 + conv, o.heap + conv));
        return ok({ ...el, cost: o.cost + 1 + conv, heap: o.heap + conv });
      }
      case 'listExpr':
      case 'structExpr': {
        const parts: (Expr | undefined)[] =
          k.case === 'listExpr'
            ? k.value.elements
            : k.value.entries.flatMap((x) => [x.keyKind.case === 'mapKey' ? x.keyKind.value : undefined, x.value]);
        const ests: Est[] = [];
        for (const p of parts) {
          const r = this.estimate(p);
          if (!r.ok) return r;
          ests.push(r.value);
        }
        const n = k.case === 'listExpr' ? ests.length : Math.ceil(ests.length / 2);
        return ok({
          kind: k.case === 'listExpr' ? 'list' : 'map',
          cost: 1 + n + sum(ests, (x) => x.cost),
          heap: 1 + n + sum(ests, (x) => x.heap),
          size: n,
          width: Math.max(0, ...ests.map((x) => Math.max(x.width, x.size))),
          chars: Math.max(0, ...ests.map((x) => x.chars)),
          total: 1 + n + sum(ests, (x) => x.total),
          text: sum(ests, (x) => x.text),
          chain: Math.max(0, ...ests.map((x) => x.chain)),
        });
      }
      case 'callExpr':
        return this.#call(k.value.function, k.value.target, k.value.args);
      case 'comprehensionExpr':
        return this.#comprehension(k.value);
      default:
        return err(`no cost model for ${String(k.case)}`);
    }
  }

  #call(fn: string, target: Expr | undefined, rawArgs: readonly Expr[]): Result<Est, string> {
    const args: Est[] = [];
    for (const a of target === undefined ? rawArgs : [target, ...rawArgs]) {
      const r = this.estimate(a);
      if (!r.ok) return r;
      args.push(r.value);
    }
    const cost = 1 + sum(args, (x) => x.cost);
    const heap = sum(args, (x) => x.heap);
    const [a, b, c] = args;
    if (a === undefined) return ok(scalar('dyn', cost, heap));
    if (fn === '_&&_' || fn === '_||_' || fn === '!_' || fn === '@not_strictly_false') return ok(scalar('bool', cost, heap));
    if (fn === '_?_:_' && b !== undefined && c !== undefined) {
      const kind = b.kind === c.kind ? b.kind : 'dyn';
      return ok({ kind, cost: 1 + a.cost + Math.max(b.cost, c.cost), heap: a.heap + Math.max(b.heap, c.heap), ...join(b, c) });
    }
    if (COMPARE.has(fn) && b !== undefined) {
      // Deep equality walks the smaller side; list elements are reached through their concatenations.
      const walk = Math.min(a.total, b.total) * (1 + Math.max(a.chain, b.chain)) + Math.min(a.text, b.text) * CHAR;
      return ok(scalar('bool', cost + walk, heap));
    }
    if (fn === '_+_' && b !== undefined) {
      const kind: Kind = a.kind === 'list' || b.kind === 'list' ? 'list' : a.kind === 'string' || b.kind === 'string' ? 'string' : 'dyn';
      const size = kind === 'string' ? 0 : a.size + b.size;
      // A string result is at most both sides' lengths; a list one holds strings of either side.
      const chars = kind === 'list' ? Math.max(a.chars, b.chars) : a.chars + b.chars;
      const text = kind === 'list' ? 0 : chars;
      return ok({
        kind,
        cost: cost + 1 + text * CHAR,
        heap: heap + 1 + text / CHARS_PER_UNIT,
        size,
        width: Math.max(a.width, b.width),
        chars,
        total: a.total + b.total,
        text: a.text + b.text,
        chain: Math.max(a.chain, b.chain) + 1,
      });
    }
    if (ARITH.has(fn)) return ok(scalar('number', cost, heap));
    if ((fn === '_[_]' || fn === '@in') && b !== undefined) {
      if (fn === '@in') return ok(scalar('bool', cost + b.size * (1 + b.chain) + b.total + Math.min(b.text, a.text * b.size) * CHAR, heap + b.size));
      const el = element(a);
      return ok({ ...el, cost: cost + 1 + a.chain + a.size + el.width, heap: heap + a.size + el.width });
    }
    if (fn === 'size') return ok(scalar('number', cost + a.chars * CHAR, heap + a.chars / CHARS_PER_UNIT));
    if (STRING_TESTS.has(fn) && b !== undefined) return ok(scalar('bool', cost + (a.chars + b.chars) * CHAR, heap));
    if (fn === 'matches' && b !== undefined) {
      // RE2 compiles the pattern on every call and runs in time linear in text x program.
      if (b.literal === undefined) return err('matches needs a string literal pattern');
      const program = regexProgram(b.literal);
      return ok(scalar('bool', cost + program + a.chars * program * CHAR, heap + program));
    }
    if (SEMVER.has(fn)) {
      // Each side is rendered as JSON, then read as a version.
      const rendered = sum(args, (x) => x.total + x.text);
      return ok(scalar('number', cost + 20 + rendered * CHAR + sum(args, (x) => x.total), heap + rendered / CHARS_PER_UNIT));
    }
    if (CONVERT.has(fn) || TIME.test(fn)) {
      const out = Math.max(a.chars, 32);
      const fails = a.kind === 'dyn' || a.kind === 'map' || a.kind === 'list' ? FAIL : 0;
      const kind: Kind = fn === 'string' || fn === 'bytes' ? 'string' : fn === 'bool' ? 'bool' : fn === 'dyn' ? a.kind : 'dyn';
      return ok({ ...SCALAR, kind, cost: cost + fails + out * CHAR, heap: heap + out / CHARS_PER_UNIT, size: 0, chars: out, text: out });
    }
    return err(`no cost model for function ${fn}`);
  }

  #comprehension(c: Extract<Expr['exprKind'], { case: 'comprehensionExpr' }>['value']): Result<Est, string> {
    const range = this.estimate(c.iterRange);
    if (!range.ok) return range;
    const init = this.estimate(c.accuInit);
    if (!init.ok) return init;
    const r = range.value;
    const n = r.size;
    const item = element(r);
    // One item: read through the range's concatenations, converted from the input.
    const perItem = 1 + r.chain + item.width;
    const body = (accu: Omit<Est, 'cost' | 'heap'>): Result<{ cond: Est; step: Est }, string> => {
      this.#scope.push(
        new Map([
          [c.accuVar, accu],
          [c.iterVar, item],
        ]),
      );
      try {
        const cond = this.estimate(c.loopCondition);
        if (!cond.ok) return cond;
        const step = this.estimate(c.loopStep);
        return step.ok ? ok({ cond: cond.value, step: step.value }) : step;
      } finally {
        this.#scope.pop();
      }
    };
    // Macro accumulators grow by at most the same amount each step (`accu + [x]`, `accu + 1`):
    // the growth of one step from the initial value, times the range, bounds the last one.
    const first = body(init.value);
    if (!first.ok) return first;
    const grow = (f: (e: Omit<Est, 'cost' | 'heap'>) => number): number => f(init.value) + n * Math.max(0, f(first.value.step) - f(init.value));
    const last: Omit<Est, 'cost' | 'heap'> = {
      kind: init.value.kind === first.value.step.kind ? init.value.kind : 'dyn',
      size: grow((x) => x.size),
      width: Math.max(first.value.step.width, init.value.width),
      chars: Math.max(init.value.chars, first.value.step.chars),
      total: grow((x) => x.total),
      text: grow((x) => x.text),
      chain: grow((x) => x.chain),
    };
    const worst = body(last);
    if (!worst.ok) return worst;
    this.#scope.push(new Map([[c.accuVar, last]]));
    const result = this.estimate(c.result);
    this.#scope.pop();
    if (!result.ok) return result;
    const { cond, step } = worst.value;
    return ok({
      ...result.value,
      cost: r.cost + init.value.cost + result.value.cost + n * (perItem + cond.cost + step.cost),
      heap: r.heap + init.value.heap + result.value.heap + n * (1 + item.width + cond.heap + step.heap),
    });
  }
}

/**
 * The estimate of `expr` on a candidate of at most `properties`' sizes, or why there is none
 * (a construct without a cost model is refused, never run).
 */
export function estimateRule(expr: Expr, properties: CandidateSize): Result<RuleEstimate, string> {
  const r = new Estimator(properties).estimate(expr);
  return r.ok ? ok({ cost: Math.ceil(r.value.cost + ALLOC * r.value.heap), heap: Math.ceil(r.value.heap) }) : r;
}

/** Whether the rule's value can only be something other than a boolean (a literal, a list, a number, ...). */
export function resultIsNotBool(expr: Expr): boolean {
  const r = new Estimator({ items: 0, width: 0, chars: 0, total: 0, text: 0 }).estimate(expr);
  return r.ok && r.value.kind !== 'bool' && r.value.kind !== 'dyn';
}

/** The sizes of a candidate's properties, or undefined when they hold more than `budget` values. */
export function measureProperties(properties: readonly unknown[], budget: number): CandidateSize | undefined {
  let width = 0;
  let chars = 0;
  let total = 0;
  let text = 0;
  const stack: unknown[] = [...properties];
  while (stack.length > 0) {
    const v = stack.pop();
    if (++total > budget) return undefined;
    if (typeof v === 'string') {
      chars = Math.max(chars, v.length);
      text += v.length;
    } else if (Array.isArray(v)) {
      width = Math.max(width, v.length);
      for (const x of v as unknown[]) stack.push(x);
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      width = Math.max(width, entries.length);
      for (const [key, x] of entries) stack.push(key, x);
    }
  }
  return { items: properties.length, width, chars, total, text };
}
