import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type JsonBounds, JsonBoundsScanner } from './bounds-scanner.ts';

/** What a listener does with a whole body: the scan, then JSON.parse only when it passed. */
function parseBoundedJson(body: Uint8Array, bounds: JsonBounds): { ok: true; value: unknown } | { ok: false; error: string } {
  const scanner = new JsonBoundsScanner(bounds);
  if (!scanner.push(body)) return { ok: false, error: scanner.failure ?? 'no failure recorded' };
  try {
    return { ok: true, value: JSON.parse(Buffer.from(body).toString('utf8')) };
  } catch {
    return { ok: false, error: 'not-json' };
  }
}

/** The model: the nesting depth of a parsed value (an array or object counts 1 plus its deepest member). */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const members = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...members.map(depthOf));
}

/** The model: how many arrays and objects a parsed value holds, itself included. */
function containersOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const members = Array.isArray(value) ? value : Object.values(value);
  return 1 + members.reduce<number>((n, m) => n + containersOf(m), 0);
}

const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');

describe('JsonBoundsScanner', () => {
  it('parses within the bounds and refuses past them, brackets inside strings and escapes not counted', () => {
    const cases: Array<[string, number, number | undefined, 'ok' | 'too-deep' | 'too-many-containers' | 'not-json']> = [
      ['1', 1, undefined, 'ok'],
      ['[]', 1, 1, 'ok'],
      ['[[]]', 1, undefined, 'too-deep'],
      ['[[]]', 2, 1, 'too-many-containers'],
      ['[[],{}]', 2, 3, 'ok'],
      ['[[],{}]', 2, 2, 'too-many-containers'],
      ['{"a":{"b":[1]}}', 3, undefined, 'ok'],
      ['{"a":{"b":[1]}}', 2, undefined, 'too-deep'],
      ['["[[[[", "{{{{"]', 1, 1, 'ok'],
      ['["\\"[[[[", "\\\\", []]', 2, undefined, 'ok'],
      ['["\\"[[[[", "\\\\", []]', 1, undefined, 'too-deep'],
      ['[][][]', 1, undefined, 'not-json'],
      ['{"a":', 5, undefined, 'not-json'],
      ['[', 5, undefined, 'not-json'],
      ['"é[ü{"', 1, undefined, 'ok'],
    ];
    for (const [text, maxDepth, maxContainers, want] of cases) {
      const r = parseBoundedJson(bytes(text), maxContainers === undefined ? { maxDepth } : { maxDepth, maxContainers });
      expect(r.ok ? 'ok' : r.error, `${text} within ${maxDepth}/${maxContainers}`).toBe(want);
      if (r.ok) expect(r.value).toEqual(JSON.parse(text));
    }
  });

  it('agrees with the depth and container count of the parsed value for any JSON, whole or fed in pieces', () => {
    fc.assert(
      fc.property(
        fc.json({ depthSize: 'medium' }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 7 }),
        (text, maxDepth, maxContainers, piece) => {
          const value: unknown = JSON.parse(text);
          const within = depthOf(value) <= maxDepth && containersOf(value) <= maxContainers;
          expect(parseBoundedJson(bytes(text), { maxDepth, maxContainers }).ok).toBe(within);
          const scanner = new JsonBoundsScanner({ maxDepth, maxContainers });
          const all = bytes(text);
          let accepted = true;
          for (let at = 0; at < all.length; at += piece) accepted = scanner.push(all.subarray(at, at + piece));
          expect(accepted).toBe(within);
          expect(scanner.failure === undefined).toBe(within);
        },
      ),
    );
  });

  it('refuses 7 MiB of [ and of [], in milliseconds; a full scan of 7 MiB within the bounds is linear', () => {
    for (const hostile of [Buffer.alloc(7 << 20, '['), Buffer.from(`[${'[],'.repeat((7 << 20) / 3)}1]`)]) {
      const started = performance.now();
      expect(parseBoundedJson(hostile, { maxDepth: 64, maxContainers: 100_000 }).ok).toBe(false);
      expect(performance.now() - started).toBeLessThan(100);
    }
    const flat = Buffer.from(`[${'"abc[{\\"",'.repeat((7 << 20) / 11)}1]`);
    const scanner = new JsonBoundsScanner({ maxDepth: 64, maxContainers: 100_000 });
    const started = performance.now();
    expect(scanner.push(flat)).toBe(true);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('stays refused once past a bound, and rejects bounds that are not positive integers', () => {
    const s = new JsonBoundsScanner({ maxDepth: 2 });
    expect(s.push(bytes('[[['))).toBe(false);
    expect(s.push(bytes(']]]'))).toBe(false);
    expect(s.failure).toBe('too-deep');
    expect(() => new JsonBoundsScanner({ maxDepth: 0 })).toThrow(RangeError);
    expect(() => new JsonBoundsScanner({ maxDepth: 1.5 })).toThrow(RangeError);
    expect(() => new JsonBoundsScanner({ maxDepth: 3, maxContainers: 0 })).toThrow(RangeError);
  });
});
