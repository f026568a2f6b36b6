import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/unstructured/index.ts';
import { checkCrdUpgrade } from './check.ts';
import { formatViolation } from './violation.ts';
import { testCrd, type Props } from '../../../test/support/crd-builders.ts';

/** A CRD whose one version v1 has `spec` with the property `foo` given (undefined: no foo). */
function crdWithFoo(foo: Props | undefined, specSchema: Props): KubeObject {
  return testCrd([{ name: 'v1', spec: foo === undefined ? {} : { foo }, specSchema }]);
}

function check(oldFoo: Props | undefined, newFoo: Props | undefined, oldSpec: Props = {}, newSpec: Props = {}): string[] {
  return checkCrdUpgrade(crdWithFoo(oldFoo, oldSpec), crdWithFoo(newFoo, newSpec)).map(formatViolation);
}

const foo = (line: string): string => `v1: ^.spec.foo: ${line}`;

describe('same-version property rules (crdify texts)', () => {
  const cases: { name: string; old: Props; new: Props; want: string[] }[] = [
    { name: 'type changed', old: { type: 'string' }, new: { type: 'integer' }, want: [foo('type: type changed : "string" -> "integer"')] },
    { name: 'type added', old: {}, new: { type: 'string' }, want: [foo('type: type changed : "" -> "string"')] },
    {
      name: 'default added',
      old: { type: 'string' },
      new: { type: 'string', default: 'a' },
      want: [foo('default: default added when there was none previously : "\\"a\\""')],
    },
    { name: 'default removed', old: { type: 'integer', default: 3 }, new: { type: 'integer' }, want: [foo('default: default value removed : "3"')] },
    {
      name: 'default changed',
      old: { type: 'object', default: { a: 1 } },
      new: { type: 'object', default: { a: 2 } },
      want: [foo('default: default value changed : "{\\"a\\":1}" -> "{\\"a\\":2}"')],
    },
    { name: 'default with keys reordered is the same default', old: { default: { a: 1, b: 2 } }, new: { default: { b: 2, a: 1 } }, want: [] },
    {
      name: 'enum constraint added',
      old: { type: 'string' },
      new: { type: 'string', enum: ['b', 'a'] },
      want: [foo('enum: enum constraint added when there was none previously : ["a" "b"]')],
    },
    {
      name: 'enum values removed',
      old: { enum: ['a', 'b', 'c'] },
      new: { enum: ['b'] },
      want: [foo('enum: allowed enum values removed : ["a" "c"]')],
    },
    { name: 'enum values added (allowed)', old: { enum: ['a'] }, new: { enum: ['a', 'b', 'c'] }, want: [] },
    {
      name: 'enum constraint dropped: crdify counts its values as removed',
      old: { enum: ['a'] },
      new: {},
      want: [foo('enum: allowed enum values removed : ["a"]')],
    },
    { name: 'enum reordered', old: { enum: [1, 2] }, new: { enum: [2, 1] }, want: [] },
    {
      name: 'maximum added',
      old: {},
      new: { maximum: 1000000 },
      want: [foo('maximum: maximum constraint added when there was none previously : 1e+06')],
    },
    { name: 'maximum decreased', old: { maximum: 10.5 }, new: { maximum: 3 }, want: [foo('maximum: maximum decreased : 10.5 -> 3')] },
    { name: 'maximum increased (allowed)', old: { maximum: 3 }, new: { maximum: 10 }, want: [] },
    { name: 'maximum removed (allowed)', old: { maximum: 3 }, new: {}, want: [] },
    {
      name: 'maxLength added',
      old: {},
      new: { maxLength: 1000000 },
      want: [foo('maxLength: maximum constraint added when there was none previously : 1000000')],
    },
    { name: 'maxItems decreased', old: { maxItems: 5 }, new: { maxItems: 4 }, want: [foo('maxItems: maximum decreased : 5 -> 4')] },
    {
      name: 'maxProperties decreased',
      old: { maxProperties: 5 },
      new: { maxProperties: 0 },
      want: [foo('maxProperties: maximum decreased : 5 -> 0')],
    },
    { name: 'minimum added', old: {}, new: { minimum: 0 }, want: [foo('minimum: minimum constraint added when there was none previously : 0')] },
    { name: 'minimum increased', old: { minimum: 1 }, new: { minimum: 2.5 }, want: [foo('minimum: minimum increased : 1 -> 2.5')] },
    { name: 'minimum decreased (allowed)', old: { minimum: 2 }, new: { minimum: 1 }, want: [] },
    { name: 'minLength increased', old: { minLength: 1 }, new: { minLength: 2 }, want: [foo('minLength: minimum increased : 1 -> 2')] },
    { name: 'minItems added', old: {}, new: { minItems: 1 }, want: [foo('minItems: minimum constraint added when there was none previously : 1')] },
    { name: 'minProperties removed (allowed)', old: { minProperties: 1 }, new: {}, want: [] },
    { name: 'pattern added', old: {}, new: { pattern: '^a$' }, want: [foo('pattern: pattern added : "" -> "^a$"')] },
    { name: 'pattern changed', old: { pattern: '^a$' }, new: { pattern: '^b$' }, want: [foo('pattern: pattern changed : "^a$" -> "^b$"')] },
    { name: 'pattern removed', old: { pattern: '^a$' }, new: {}, want: [foo('pattern: pattern removed : "^a$" -> ""')] },
    { name: 'nullable added', old: {}, new: { nullable: true }, want: [foo('nullable: nullable added : false -> true')] },
    { name: 'nullable removed', old: { nullable: true }, new: { nullable: false }, want: [foo('nullable: nullable removed : true -> false')] },
    {
      name: 'oneOf added',
      old: { type: 'object' },
      new: { type: 'object', oneOf: [{ required: ['b'] }, { required: ['a'] }] },
      want: [foo('oneOf: oneOf constraint added when there was none previously: [{"required":["a"]} {"required":["b"]}]')],
    },
    {
      name: 'oneOf entry removed',
      old: { oneOf: [{ required: ['a'] }, { required: ['b'] }] },
      new: { oneOf: [{ required: ['a'] }] },
      want: [foo('oneOf: allowed oneOf schemas removed: [{"required":["b"]}]')],
    },
    {
      name: 'oneOf entry added',
      old: { oneOf: [{ required: ['a'] }] },
      new: { oneOf: [{ required: ['a'] }, { type: 'string', maxLength: 3 }] },
      want: [foo('oneOf: allowed oneOf schemas added: [{"type":"string","maxLength":3}]')],
    },
    {
      name: 'oneOf reordered',
      old: { oneOf: [{ required: ['a'] }, { required: ['b'] }] },
      new: { oneOf: [{ required: ['b'] }, { required: ['a'] }] },
      want: [],
    },
    {
      name: 'oneOf entry description changed',
      old: { oneOf: [{ description: 'old', required: ['a'] }] },
      new: { oneOf: [{ description: 'new', required: ['a'] }] },
      want: [],
    },
    { name: 'description changed', old: { type: 'string', description: 'old' }, new: { type: 'string', description: 'new' }, want: [] },
    {
      name: 'title, example and externalDocs changed',
      old: { title: 'a', example: 1 },
      new: { title: 'b', example: 2, externalDocs: { url: 'u' } },
      want: [],
    },
    {
      name: 'format changed',
      old: { type: 'string' },
      new: { type: 'string', format: 'email' },
      want: [foo('unhandled: unhandled changes found (Format "" -> "email")')],
    },
    {
      name: 'several unhandled changes in declaration order',
      old: { 'x-kubernetes-list-type': 'atomic', format: 'date' },
      new: { 'x-kubernetes-list-type': 'set', format: 'date-time', 'x-kubernetes-preserve-unknown-fields': true },
      want: [
        foo('unhandled: unhandled changes found (Format "date" -> "date-time"; XPreserveUnknownFields nil -> &true; XListType &"atomic" -> &"set")'),
      ],
    },
    {
      name: 'CEL rule added',
      old: { type: 'integer' },
      new: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 0', message: 'must be positive' }] },
      want: [foo('unhandled: unhandled changes found (XValidations nil -> ValidationRules{{Rule: "self > 0", Message: "must be positive"}})')],
    },
    {
      name: 'nested schema changed',
      old: { type: 'object', additionalProperties: { type: 'string' } },
      new: { type: 'object', additionalProperties: { type: 'integer' } },
      want: [
        foo('unhandled: unhandled changes found (AdditionalProperties <complex value> -> <complex value> (changed))'),
        'v1: ^.spec.foo.additionalProperties: type: type changed : "string" -> "integer"',
      ],
    },
    { name: 'zero values equal absent ones', old: { required: [], nullable: false, format: '' }, new: {}, want: [] },
    {
      name: 'a pointer zero is not absent',
      old: {},
      new: { multipleOf: 0 },
      want: [foo('unhandled: unhandled changes found (MultipleOf nil -> &0)')],
    },
    {
      name: 'several rules on one property, in name order',
      old: { type: 'string', pattern: 'a' },
      new: { type: 'integer', minimum: 1, format: 'int32' },
      want: [
        foo('minimum: minimum constraint added when there was none previously : 1'),
        foo('pattern: pattern removed : "a" -> ""'),
        foo('type: type changed : "string" -> "integer"'),
        foo('unhandled: unhandled changes found (Format "" -> "int32")'),
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(check(c.old, c.new)).toEqual(c.want);
    });
  }

  it('required: new required fields on the parent, sorted; removing one is allowed', () => {
    expect(check({ type: 'string' }, { type: 'string' }, { required: ['x'] }, { required: ['z', 'x', 'y'] })).toEqual([
      'v1: ^.spec: required: new required fields: [y z]',
    ]);
    expect(check({ type: 'string' }, { type: 'string' }, { required: ['x', 'y'] }, { required: ['y'] })).toEqual([]);
  });

  it('array items are compared at <path>.items', () => {
    const old = { type: 'array', items: { type: 'string' } };
    expect(check(old, { type: 'array', items: { type: 'integer' } })).toEqual(['v1: ^.spec.foo.items: type: type changed : "string" -> "integer"']);
  });

  it('an added optional property is allowed', () => {
    expect(check(undefined, { type: 'string' })).toEqual([]);
  });

  it('a removed property is reported as removed and compared with an empty schema', () => {
    expect(check({ type: 'string', format: 'email' }, undefined)).toEqual([
      'existingFieldRemoval: removed field : v1.^.spec.foo',
      foo('type: type changed : "string" -> ""'),
      foo('unhandled: unhandled changes found (Format "email" -> "")'),
    ]);
  });
});
