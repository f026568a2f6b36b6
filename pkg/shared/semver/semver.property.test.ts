/**
 * Property tests of pkg/shared/semver against models written from the specification rather than
 * from the implementation: the semver.org grammar (plus blang's uint64 bounds) decides which
 * version and release strings parse; precedence is recomputed on plain strings; and blang
 * ranges are rebuilt as predicates from blang's documented operators and wildcards.
 * Error texts are pinned by the table tests next to this file.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareRelease, compareSemver, formatSemver, parseBlangRange, parseRelease, parseSemver } from './index.ts';

const UINT64_MAX = 2n ** 64n - 1n;

// ---- model versions -----------------------------------------------------------------

const NUM = '(?:0|[1-9][0-9]*)';
const PRE_ID = '(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)';
const BUILD_ID = '[0-9A-Za-z-]+';
const STRICT = new RegExp(`^(${NUM})\\.(${NUM})\\.(${NUM})(?:-(${PRE_ID}(?:\\.${PRE_ID})*))?(?:\\+(${BUILD_ID}(?:\\.${BUILD_ID})*))?$`);
const RELEASE = new RegExp(`^${PRE_ID}(?:\\.${PRE_ID})*$`);

const isNumeric = (id: string): boolean => /^[0-9]+$/.test(id);
const fitsUint64 = (id: string): boolean => !isNumeric(id) || BigInt(id) <= UINT64_MAX;

function modelValid(s: string): boolean {
  const m = STRICT.exec(s);
  if (m === null) return false;
  const pre = m[4] === undefined ? [] : m[4].split('.');
  return [m[1], m[2], m[3]].every((n) => BigInt(n ?? '') <= UINT64_MAX) && pre.every(fitsUint64);
}

function cmpIds(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] ?? '';
    const y = b[i] ?? '';
    if (x === y) continue;
    if (isNumeric(x) && isNumeric(y)) return BigInt(x) < BigInt(y) ? -1 : 1;
    if (isNumeric(x) !== isNumeric(y)) return isNumeric(x) ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return Math.sign(a.length - b.length);
}

// Precedence of two strings the model accepts, from their text alone.
function modelCompare(a: string, b: string): number {
  const pa = STRICT.exec(a);
  const pb = STRICT.exec(b);
  if (pa === null || pb === null) throw new Error('model compare on invalid input');
  for (let i = 1; i <= 3; i++) {
    const x = BigInt(pa[i] ?? '');
    const y = BigInt(pb[i] ?? '');
    if (x !== y) return x < y ? -1 : 1;
  }
  const preA = pa[4]?.split('.') ?? [];
  const preB = pb[4]?.split('.') ?? [];
  if (preA.length === 0 || preB.length === 0) return Math.sign(preB.length - preA.length);
  return cmpIds(preA, preB);
}

// ---- generators ---------------------------------------------------------------------

const numText = fc.oneof(
  { weight: 8, arbitrary: fc.nat(12).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('01', '00', '', 'x', 'v1', '18446744073709551615', '18446744073709551616') },
);
const idText = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('alpha', 'beta', 'rc', '0', '1', '2', '10', '0a', 'x-y', '-', 'B', 'el9') },
  { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom(...'019aBx-_é+'), maxLength: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom('01', '18446744073709551616', '18446744073709551615') },
);
const dotted = fc.array(idText, { minLength: 1, maxLength: 3 }).map((a) => a.join('.'));
const versionText = fc
  .tuple(
    fc.oneof({ weight: 9, arbitrary: fc.constant(3) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }) }),
    fc.array(numText, { minLength: 4, maxLength: 4 }),
    fc.option(dotted, { freq: 2 }),
    fc.option(dotted, { freq: 3 }),
  )
  .map(([n, nums, pre, build]) => nums.slice(0, n).join('.') + (pre === null ? '' : `-${pre}`) + (build === null ? '' : `+${build}`));

describe('versions against the semver.org grammar', () => {
  it('parse exactly what the grammar and the uint64 bounds accept, and format back', () => {
    fc.assert(
      fc.property(versionText, (s) => {
        const r = parseSemver(s);
        expect(r.ok, s).toBe(modelValid(s));
        if (r.ok) expect(formatSemver(r.value)).toBe(s);
      }),
      { numRuns: 5000 },
    );
  });

  it('order by precedence', () => {
    const valid = versionText.filter(modelValid);
    fc.assert(
      fc.property(valid, valid, (a, b) => {
        const pa = parseSemver(a);
        const pb = parseSemver(b);
        if (!pa.ok || !pb.ok) throw new Error('valid version did not parse');
        expect(compareSemver(pa.value, pb.value), `${a} vs ${b}`).toBe(modelCompare(a, b));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('releases against the identifier grammar', () => {
  const releaseText = fc.oneof(
    dotted,
    fc.array(fc.constantFrom('1', 'el9', '12345', 'abcdefghij', 'ééééé'), { maxLength: 5 }).map((a) => a.join('.')),
  );

  it('parse what is at most 20 bytes of valid identifiers; "" is no release', () => {
    fc.assert(
      fc.property(releaseText, (s) => {
        const r = parseRelease(s);
        const valid = s === '' || (Buffer.byteLength(s) <= 20 && RELEASE.test(s) && s.split('.').every(fitsUint64));
        expect(r.ok, s).toBe(valid);
        if (r.ok) expect((r.value ?? []).map((id) => id.str).join('.')).toBe(s);
        // The length limit is checked first, in bytes.
        else expect(r.error.endsWith('exceeds maximum length of 20 characters'), s).toBe(Buffer.byteLength(s) > 20);
      }),
      { numRuns: 3000 },
    );
  });

  it('order like pre-release lists, none below any', () => {
    const valid = releaseText.filter((s) => parseRelease(s).ok);
    fc.assert(
      fc.property(valid, valid, (a, b) => {
        const ra = parseRelease(a);
        const rb = parseRelease(b);
        if (!ra.ok || !rb.ok) throw new Error('valid release did not parse');
        const ia = a === '' ? [] : a.split('.');
        const ib = b === '' ? [] : b.split('.');
        const want = ia.length === 0 || ib.length === 0 ? Math.sign(ia.length - ib.length) : cmpIds(ia, ib);
        expect(compareRelease(ra.value, rb.value), `${a} vs ${b}`).toBe(want);
      }),
      { numRuns: 3000 },
    );
  });
});

// ---- blang ranges -------------------------------------------------------------------

const PRES = ['', '0', '1', 'alpha', 'alpha.1', 'beta'];
const UNIVERSE: string[] = [];
for (const M of [0, 1, 2, 3])
  for (const m of [0, 1, 2, 3]) for (const p of [0, 1, 3]) for (const pre of PRES) UNIVERSE.push(`${M}.${m}.${p}${pre === '' ? '' : `-${pre}`}`);

type Pred = (v: string) => boolean;
interface ModelTerm {
  text: string;
  pred: Pred;
}

const OPS: Record<string, (c: number) => boolean> = {
  '': (c) => c === 0,
  '=': (c) => c === 0,
  '==': (c) => c === 0,
  '!': (c) => c !== 0,
  '!=': (c) => c !== 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
};
const opName = fc.constantFrom(...Object.keys(OPS));
// A space may follow an operator ending in `>`, `<` or `=` without splitting the term.
const opText = (op: string): fc.Arbitrary<string> => (/[<>=]$/.test(op) ? fc.constantFrom(op, `${op} `, `${op}  `) : fc.constant(op));

// Exact terms: any strict version without an `x` (which would take the wildcard path).
const exactTerm: fc.Arbitrary<ModelTerm> = fc
  .tuple(opName, fc.constantFrom(...UNIVERSE, '1.0.0+build.7', '2.1.0-rc.1', '0.0.0-0'))
  .chain(([op, v]) => opText(op).map((o) => ({ text: o + v, pred: (x: string) => (OPS[op] as (c: number) => boolean)(modelCompare(x, v)) })));

// Wildcard terms as blang expands them; `M.x.x` is a patch wildcard of M.0.
const wildcardTerm: fc.Arbitrary<ModelTerm> = fc.tuple(opName, fc.nat(3), fc.option(fc.nat(3)), fc.boolean()).chain(([op, M, m, xx]) => {
  const minor = m === null && !xx;
  const lo = minor ? `${M}.0.0` : `${M}.${m ?? 0}.0`;
  const hi = minor ? `${M + 1}.0.0` : `${M}.${(m ?? 0) + 1}.0`;
  const ge = (x: string, v: string) => modelCompare(x, v) >= 0;
  const preds: Record<string, Pred> = {
    '>=': (x) => ge(x, lo),
    '>': (x) => ge(x, hi),
    '<': (x) => !ge(x, lo),
    '<=': (x) => !ge(x, hi),
    '': (x) => ge(x, lo) && !ge(x, hi),
    '!=': () => false, // `<lo` AND `>=hi`
  };
  const pred = preds[op] ?? (op === '!' ? preds['!='] : preds['']);
  const text = m === null ? (xx ? `${M}.x.x` : `${M}.x`) : `${M}.${m}.x`;
  return opText(op).map((o) => ({ text: o + text, pred: pred as Pred }));
});

const term = fc.oneof(exactTerm, wildcardTerm);
// Between terms: spaces, possibly with one-byte junk tokens that blang drops.
const andSep = fc.constantFrom(' ', '  ', ' , ', ' a ', ' x ');
const orSep = fc.constantFrom(' || ', '  ||  ', ' || a ');
const group = fc.tuple(term, fc.array(fc.tuple(andSep, term), { maxLength: 2 })).map(([t, rest]) => ({
  text: t.text + rest.map(([s, r]) => s + r.text).join(''),
  pred: (v: string) => t.pred(v) && rest.every(([, r]) => r.pred(v)),
}));
const modelRange = fc.tuple(group, fc.array(fc.tuple(orSep, group), { maxLength: 2 })).map(([g, rest]) => ({
  text: g.text + rest.map(([s, r]) => s + r.text).join(''),
  pred: (v: string) => g.pred(v) || rest.some(([, r]) => r.pred(v)),
}));

describe('blang ranges against the documented operator table', () => {
  it('accept exactly the versions the model accepts', () => {
    const versions = UNIVERSE.map((s) => {
      const r = parseSemver(s);
      if (!r.ok) throw new Error(r.error);
      return [s, r.value] as const;
    });
    fc.assert(
      fc.property(modelRange, (range) => {
        const r = parseBlangRange(range.text);
        if (!r.ok) throw new Error(`${range.text}: ${r.error}`);
        expect(r.value.hasEmptyGroup).toBe(false);
        for (const [s, v] of versions) expect(r.value.contains(v), `${range.text} on ${s}`).toBe(range.pred(s));
      }),
      { numRuns: 1500 },
    );
  });

  it('reject a leading or trailing `||` and flag an empty group', () => {
    fc.assert(
      fc.property(modelRange, (range) => {
        expect(parseBlangRange(`|| ${range.text}`)).toEqual({ ok: false, error: `First element in range is '||'` });
        expect(parseBlangRange(`${range.text} ||`)).toEqual({ ok: false, error: `Last element in range is '||'` });
        const empty = parseBlangRange(`${range.text} || || 9.9.9`);
        expect(empty.ok && empty.value.hasEmptyGroup).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
