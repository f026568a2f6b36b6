import { describe, expect, it } from 'vitest';
import { normalizeSchema, type Json } from './schema.ts';
import { validateObject } from './stored-validate.ts';

const obj = (spec: Json): Json => ({ apiVersion: 'x.example.com/v1', kind: 'X', metadata: { name: 'a', namespace: 'ns' }, spec });
const schemaOf = (spec: unknown) => normalizeSchema({ type: 'object', properties: { spec } });
const texts = (spec: unknown, value: Json, old?: Json): string[] =>
  validateObject(schemaOf(spec), obj(value), old === undefined ? {} : { old: obj(old) }).errors.map((e) => e.text);

describe('validateObject', () => {
  it('tells integers from numbers, and accepts integers as numbers', () => {
    const s = { type: 'object', properties: { n: { type: 'integer' }, f: { type: 'number' } } };
    expect(texts(s, { n: 1, f: 2 })).toEqual([]);
    expect(texts(s, { n: 1.5, f: 2.5 })).toEqual(['spec.n: Invalid value: "number": spec.n in body must be of type integer: "number"']);
  });

  it('int-or-string, nullable and preserve-unknown-fields', () => {
    const s = {
      type: 'object',
      properties: {
        port: { 'x-kubernetes-int-or-string': true },
        opt: { type: 'string', nullable: true },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    };
    expect(texts(s, { port: 'http', opt: null, free: { anything: [1, 'x'] } })).toEqual([]);
    expect(texts(s, { port: 8080 })).toEqual([]);
    expect(texts(s, { port: 1.5 })).toHaveLength(1);
    // A null of a non-nullable property is pruned before validation: absent, unless required.
    expect(texts({ type: 'object', properties: { s: { type: 'string' } } }, { s: null })).toEqual([]);
    expect(texts({ type: 'object', required: ['s'], properties: { s: { type: 'string' } } }, { s: null })).toEqual(['spec.s: Required value']);
  });

  it('counts lengths in code points as Go counts runes', () => {
    const s = { type: 'object', properties: { s: { type: 'string', maxLength: 2, minLength: 2 } } };
    expect(texts(s, { s: '😀😀' })).toEqual([]); // 4 UTF-16 units, 2 runes
    expect(texts(s, { s: 'abc' })).toEqual(['spec.s: Too long: may not be more than 2 bytes']);
    expect(texts(s, { s: 'a' })).toEqual(['spec.s: Invalid value: "a": spec.s in body should be at least 2 chars long']);
  });

  it('bounds, exclusive bounds and multipleOf', () => {
    const s = { type: 'object', properties: { n: { type: 'integer', maximum: 5, exclusiveMaximum: true, minimum: 1, multipleOf: 2 } } };
    expect(texts(s, { n: 4 })).toEqual([]);
    expect(texts(s, { n: 5 })).toEqual([
      'spec.n: Invalid value: 5: spec.n in body should be less than 5',
      'spec.n: Invalid value: 5: spec.n in body should be a multiple of 2',
    ]);
    expect(texts(s, { n: 0 })).toEqual(['spec.n: Invalid value: 0: spec.n in body should be greater than or equal to 1']);
  });

  it('enum, required, item and property counts', () => {
    const s = {
      type: 'object',
      required: ['mode'],
      maxProperties: 2,
      properties: {
        mode: { type: 'string', enum: ['a', 'b'] },
        l: { type: 'array', maxItems: 1, minItems: 1, items: { type: 'string' } },
        x: { type: 'string' },
      },
    };
    expect(texts(s, { mode: 'c', l: ['a', 'b'], x: 'y' })).toEqual([
      'spec: Too many: 3: must have at most 2 items',
      'spec.mode: Unsupported value: "c": supported values: "a", "b"',
      'spec.l: Too many: 2: must have at most 1 item',
    ]);
    expect(texts(s, { l: [] })).toEqual(['spec.mode: Required value', 'spec.l: Invalid value: 0: spec.l in body should have at least 1 items']);
  });

  it('list-type set and map uniqueness, uniqueItems', () => {
    const s = {
      type: 'object',
      properties: {
        set: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        map: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' }, v: { type: 'integer' } } },
        },
      },
    };
    expect(
      texts(s, {
        set: ['a', 'b'],
        map: [
          { name: 'a', v: 1 },
          { name: 'b', v: 1 },
        ],
      }),
    ).toEqual([]);
    expect(
      texts(s, {
        set: ['a', 'a'],
        map: [
          { name: 'a', v: 1 },
          { name: 'a', v: 2 },
        ],
      }),
    ).toEqual(['spec.set[1]: Duplicate value: "a"', 'spec.map[1]: Duplicate value: {"name":"a"}']);
  });

  it('map values by additionalProperties, keys as path children', () => {
    const s = { type: 'object', properties: { labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 3 } } } };
    expect(texts(s, { labels: { ok: 'abc', bad: 'abcd' } })).toEqual(['spec.labels.bad: Too long: may not be more than 3 bytes']);
  });

  it('embedded resources need apiVersion and kind', () => {
    const s = {
      type: 'object',
      properties: { t: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } },
    };
    expect(texts(s, { t: { apiVersion: 'v1', kind: 'Pod' } })).toEqual([]);
    expect(texts(s, { t: { kind: 'Pod' } })).toEqual(['spec.t.apiVersion: Required value: must not be empty']);
  });

  it('patterns run with RE2 semantics: `.` does not match a newline', () => {
    const s = { type: 'object', properties: { s: { type: 'string', pattern: '^a.c$' } } };
    expect(texts(s, { s: 'abc' })).toEqual([]);
    expect(texts(s, { s: 'a\nc' })).toEqual(['spec.s: Invalid value: "a\\nc": spec.s in body should match \'^a.c$\'']);
  });

  it('reports a pattern JavaScript cannot run exactly as not checkable', () => {
    const s = schemaOf({ type: 'object', properties: { s: { type: 'string', pattern: '^[[:alpha:]]+$' } } });
    const v = validateObject(s, obj({ s: 'abc' }));
    expect(v.errors).toEqual([]);
    expect(v.unchecked).toEqual([expect.objectContaining({ field: 'spec.s', rule: 'pattern' })]);
  });

  it('formats the API server checks', () => {
    const s = { type: 'object', properties: { u: { type: 'string', format: 'uuid' }, d: { type: 'string', format: 'date' } } };
    expect(texts(s, { u: '123e4567-e89b-12d3-a456-426614174000', d: '2024-02-29' })).toEqual([]);
    expect(texts(s, { u: 'nope', d: '2023-02-29' })).toEqual([
      'spec.u: Invalid value: "nope": spec.u in body must be of type uuid: "nope"',
      'spec.d: Invalid value: "2023-02-29": spec.d in body must be of type date: "2023-02-29"',
    ]);
  });

  it('CEL rules with messages, field paths, integers as ints', () => {
    const s = {
      type: 'object',
      properties: { replicas: { type: 'integer' }, max: { type: 'integer' } },
      'x-kubernetes-validations': [
        { rule: 'self.replicas <= self.max', message: 'replicas above max', fieldPath: '.replicas' },
        { rule: 'self.replicas % 2 == 1' },
      ],
    };
    expect(texts(s, { replicas: 3, max: 5 })).toEqual([]);
    expect(texts(s, { replicas: 6, max: 5 })).toEqual([
      'spec.replicas: Invalid value: replicas above max',
      'spec: Invalid value: failed rule: self.replicas % 2 == 1',
    ]);
  });

  it('ratchets unchanged values on update, but not transition rules', () => {
    const s = {
      type: 'object',
      properties: {
        n: { type: 'integer', maximum: 5 },
        touch: { type: 'integer' },
        frozen: { type: 'string', 'x-kubernetes-validations': [{ rule: 'oldSelf == "x"' }] },
      },
      required: ['must'],
    };
    // Create: everything checked; the transition rule is skipped without an old value.
    expect(texts(s, { n: 9, frozen: 'y' })).toEqual([
      'spec.must: Required value',
      'spec.n: Invalid value: 9: spec.n in body should be less than or equal to 5',
    ]);
    // An update changing only `touch`: `n` is unchanged (ratcheted), `spec` changed (required re-checked), the transition rule runs.
    expect(texts(s, { n: 9, frozen: 'y', touch: 1 }, { n: 9, frozen: 'y' })).toEqual([
      'spec.must: Required value',
      'spec.frozen: Invalid value: failed rule: oldSelf == "x"',
    ]);
    // A no-op update passes everything but the transition rule.
    expect(texts(s, { n: 9, frozen: 'y' }, { n: 9, frozen: 'y' })).toEqual(['spec.frozen: Invalid value: failed rule: oldSelf == "x"']);
  });

  it('does not guess: Kubernetes CEL libraries and costly rules are not checkable', () => {
    const s = schemaOf({
      type: 'object',
      properties: { l: { type: 'array', items: { type: 'integer' } } },
      'x-kubernetes-validations': [{ rule: 'self.l.isSorted()' }, { rule: 'self.l.all(a, self.l.all(b, self.l.all(c, a + b + c >= 0)))' }],
    });
    const v = validateObject(s, obj({ l: Array.from({ length: 200 }, (_, i) => i) }));
    expect(v.errors).toEqual([]);
    expect(v.unchecked.map((u) => u.reason)).toEqual([expect.stringContaining('isSorted'), expect.stringContaining('exceeds the limit of 1000000')]);
  });
});
