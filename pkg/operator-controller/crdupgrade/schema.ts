/**
 * OpenAPI v3 schemas of CustomResourceDefinition versions as upstream's crdify sees them: Go's
 * `apiextensions/v1.JSONSchemaProps`, whose decoding drops unknown keys, and whose semantic
 * equality (`equality.Semantic.DeepEqual`) treats a zero value like an absent one for plain
 * fields (`""`, `false`, empty lists and maps) but not for pointer fields (`maximum: 0` is not
 * an absent maximum). `normalizeSchema` makes that equality plain JSON equality by dropping
 * every zero value that Go would not tell apart from absence.
 */
import { goJsonMarshal } from '../bundle/index.ts';
import { compareUtf8 } from '../../gocompat/gotext/index.ts';

/** A decoded JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A normalized schema: known keys only, no values Go treats as absent. */
export type Schema = { [key: string]: Json };

/**
 * How Go holds a field: `string`/`bool` (zero means absent), pointers (`ptr*`: present even
 * when zero), raw JSON, lists and the nested-schema shapes.
 */
export type FieldKind =
  | 'string'
  | 'ptrString'
  | 'bool'
  | 'ptrBool'
  | 'ptrNumber'
  | 'json'
  | 'jsonList'
  | 'stringList'
  | 'schema'
  | 'schemaList'
  | 'schemaMap'
  | 'schemaOrBool'
  | 'schemaOrArray'
  | 'dependencies'
  | 'externalDocs'
  | 'rules';

/** One field of JSONSchemaProps: its JSON key, its Go name (used in messages) and kind. */
interface SchemaField {
  key: string;
  goName: string;
  kind: FieldKind;
}

/** JSONSchemaProps' fields in Go's declaration order, which is the order messages list them in. */
export const SCHEMA_FIELDS: readonly SchemaField[] = [
  { key: 'id', goName: 'ID', kind: 'string' },
  { key: '$schema', goName: 'Schema', kind: 'string' },
  { key: '$ref', goName: 'Ref', kind: 'ptrString' },
  { key: 'description', goName: 'Description', kind: 'string' },
  { key: 'type', goName: 'Type', kind: 'string' },
  { key: 'format', goName: 'Format', kind: 'string' },
  { key: 'title', goName: 'Title', kind: 'string' },
  { key: 'default', goName: 'Default', kind: 'json' },
  { key: 'maximum', goName: 'Maximum', kind: 'ptrNumber' },
  { key: 'exclusiveMaximum', goName: 'ExclusiveMaximum', kind: 'bool' },
  { key: 'minimum', goName: 'Minimum', kind: 'ptrNumber' },
  { key: 'exclusiveMinimum', goName: 'ExclusiveMinimum', kind: 'bool' },
  { key: 'maxLength', goName: 'MaxLength', kind: 'ptrNumber' },
  { key: 'minLength', goName: 'MinLength', kind: 'ptrNumber' },
  { key: 'pattern', goName: 'Pattern', kind: 'string' },
  { key: 'maxItems', goName: 'MaxItems', kind: 'ptrNumber' },
  { key: 'minItems', goName: 'MinItems', kind: 'ptrNumber' },
  { key: 'uniqueItems', goName: 'UniqueItems', kind: 'bool' },
  { key: 'multipleOf', goName: 'MultipleOf', kind: 'ptrNumber' },
  { key: 'enum', goName: 'Enum', kind: 'jsonList' },
  { key: 'maxProperties', goName: 'MaxProperties', kind: 'ptrNumber' },
  { key: 'minProperties', goName: 'MinProperties', kind: 'ptrNumber' },
  { key: 'required', goName: 'Required', kind: 'stringList' },
  { key: 'items', goName: 'Items', kind: 'schemaOrArray' },
  { key: 'allOf', goName: 'AllOf', kind: 'schemaList' },
  { key: 'oneOf', goName: 'OneOf', kind: 'schemaList' },
  { key: 'anyOf', goName: 'AnyOf', kind: 'schemaList' },
  { key: 'not', goName: 'Not', kind: 'schema' },
  { key: 'properties', goName: 'Properties', kind: 'schemaMap' },
  { key: 'additionalProperties', goName: 'AdditionalProperties', kind: 'schemaOrBool' },
  { key: 'patternProperties', goName: 'PatternProperties', kind: 'schemaMap' },
  { key: 'dependencies', goName: 'Dependencies', kind: 'dependencies' },
  { key: 'additionalItems', goName: 'AdditionalItems', kind: 'schemaOrBool' },
  { key: 'definitions', goName: 'Definitions', kind: 'schemaMap' },
  { key: 'externalDocs', goName: 'ExternalDocs', kind: 'externalDocs' },
  { key: 'example', goName: 'Example', kind: 'json' },
  { key: 'nullable', goName: 'Nullable', kind: 'bool' },
  { key: 'x-kubernetes-preserve-unknown-fields', goName: 'XPreserveUnknownFields', kind: 'ptrBool' },
  { key: 'x-kubernetes-embedded-resource', goName: 'XEmbeddedResource', kind: 'bool' },
  { key: 'x-kubernetes-int-or-string', goName: 'XIntOrString', kind: 'bool' },
  { key: 'x-kubernetes-list-map-keys', goName: 'XListMapKeys', kind: 'stringList' },
  { key: 'x-kubernetes-list-type', goName: 'XListType', kind: 'ptrString' },
  { key: 'x-kubernetes-map-type', goName: 'XMapType', kind: 'ptrString' },
  { key: 'x-kubernetes-validations', goName: 'XValidations', kind: 'rules' },
];

/** ValidationRule's fields in Go's order: [JSON key, Go name, pointer field]. */
export const RULE_FIELDS: readonly (readonly [string, string, boolean])[] = [
  ['rule', 'Rule', false],
  ['message', 'Message', false],
  ['messageExpression', 'MessageExpression', false],
  ['reason', 'Reason', true],
  ['fieldPath', 'FieldPath', false],
  ['optionalOldSelf', 'OptionalOldSelf', true],
];

function isObject(v: unknown): v is { [key: string]: unknown } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The schema Go would decode from `raw`, without the values it treats as absent. */
export function normalizeSchema(raw: unknown): Schema {
  const out: Schema = {};
  if (!isObject(raw)) return out;
  for (const f of SCHEMA_FIELDS) {
    const v = normalizeField(f.kind, raw[f.key]);
    if (v !== undefined) out[f.key] = v;
  }
  return out;
}

function normalizeField(kind: FieldKind, v: unknown): Json | undefined {
  if (v === undefined || v === null) return undefined;
  switch (kind) {
    case 'string':
      return typeof v === 'string' && v !== '' ? v : undefined;
    case 'ptrString':
      return typeof v === 'string' ? v : undefined;
    case 'bool':
      return v === true ? true : undefined;
    case 'ptrBool':
      return typeof v === 'boolean' ? v : undefined;
    case 'ptrNumber':
      return typeof v === 'number' ? v : undefined;
    case 'json':
      return v as Json;
    case 'jsonList':
      return Array.isArray(v) && v.length > 0 ? (v as Json[]) : undefined;
    case 'stringList':
      return Array.isArray(v) && v.length > 0 ? v.filter((s): s is string => typeof s === 'string') : undefined;
    case 'schema':
      return normalizeSchema(v);
    case 'schemaList':
      return Array.isArray(v) && v.length > 0 ? v.map(normalizeSchema) : undefined;
    case 'schemaMap':
      return mapValues(v, normalizeSchema);
    case 'schemaOrBool':
      return typeof v === 'boolean' ? v : normalizeSchema(v);
    case 'schemaOrArray':
      return Array.isArray(v) ? v.map(normalizeSchema) : normalizeSchema(v);
    case 'dependencies':
      return mapValues(v, (d) => (Array.isArray(d) ? d.filter((s): s is string => typeof s === 'string') : normalizeSchema(d)));
    case 'externalDocs':
      return normalizeRecord(v, [
        ['description', false],
        ['url', false],
      ]);
    case 'rules':
      return Array.isArray(v) && v.length > 0
        ? v.map((r) =>
            normalizeRecord(
              r,
              RULE_FIELDS.map(([k, , ptr]) => [k, ptr]),
            ),
          )
        : undefined;
  }
}

function mapValues(v: unknown, f: (x: unknown) => Json): Json | undefined {
  if (!isObject(v)) return undefined;
  const keys = Object.keys(v);
  if (keys.length === 0) return undefined;
  const out: { [key: string]: Json } = {};
  for (const k of keys) out[k] = f(v[k]);
  return out;
}

// A small Go struct of strings and pointers: zero strings dropped, pointers kept.
function normalizeRecord(v: unknown, fields: readonly (readonly [string, boolean])[]): Json {
  const out: { [key: string]: Json } = {};
  if (!isObject(v)) return out;
  for (const [key, pointer] of fields) {
    const x = v[key];
    if (typeof x === 'string' && (pointer || x !== '')) out[key] = x;
    else if (typeof x === 'boolean' && pointer) out[key] = x;
  }
  return out;
}

/** Canonical JSON text (map keys sorted, Go's escaping): equal texts mean equal values. */
export function canonicalJson(v: Json | undefined): string {
  return v === undefined ? '' : goJsonMarshal(v, true);
}

/** Semantic equality of two normalized values. */
export function sameJson(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return canonicalJson(a) === canonicalJson(b);
}

/** `s` without the child schemas that are compared at their own paths (`properties`, `items`). */
export function withoutChildren(s: Schema): Schema {
  const { properties: _p, items: _i, ...rest } = s;
  return rest;
}

/**
 * Go's `json.Marshal` of a normalized schema: keys in declaration order, map keys sorted.
 * Used where upstream prints a schema (oneOf entries).
 */
export function schemaJson(s: Schema): string {
  const parts: string[] = [];
  for (const f of SCHEMA_FIELDS) {
    const v = s[f.key];
    if (v === undefined) continue;
    parts.push(`${goJsonMarshal(f.key, false)}:${fieldJson(f.kind, v)}`);
  }
  return `{${parts.join(',')}}`;
}

function fieldJson(kind: FieldKind, v: Json): string {
  switch (kind) {
    case 'schema':
      return schemaJson(v as Schema);
    case 'schemaList':
      return `[${(v as Schema[]).map(schemaJson).join(',')}]`;
    case 'schemaMap':
      return objectJson(v, (x) => schemaJson(x as Schema));
    case 'schemaOrBool':
      return typeof v === 'boolean' ? String(v) : schemaJson(v as Schema);
    case 'schemaOrArray':
      return Array.isArray(v) ? `[${(v as Schema[]).map(schemaJson).join(',')}]` : schemaJson(v as Schema);
    case 'dependencies':
      return objectJson(v, (x) => (Array.isArray(x) ? goJsonMarshal(x, true) : schemaJson(x as Schema)));
    default:
      return goJsonMarshal(v, true);
  }
}

function objectJson(v: Json, f: (x: Json) => string): string {
  const obj = v as { [key: string]: Json };
  const keys = Object.keys(obj).sort(compareUtf8);
  return `{${keys.map((k) => `${goJsonMarshal(k, false)}:${f(obj[k] as Json)}`).join(',')}}`;
}
