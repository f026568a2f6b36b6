/**
 * Schema discovery as upstream catalogd infers it: the first blob carrying a field fixes its
 * type; arrays of objects get a nested type, the union of the first elements' fields. Blobs come
 * in one at a time (`addBlob`); only the shape, a few kilobytes, is kept.
 */
import { fieldName } from './names.ts';

/** The GraphQL scalar a JSON value maps to (objects and mixed arrays are JSON text in a String). */
export type ScalarType = 'String' | 'Int' | 'Float' | 'Boolean';

/** One field of a schema's objects (or of the elements of an array-of-objects field). */
export interface FieldShape {
  /** The GraphQL field name (names.ts fieldName of the key). */
  name: string;
  /** The JSON key it was first seen as. */
  key: string;
  type: ScalarType;
  isArray: boolean;
  /** For arrays of objects: the fields of the elements. */
  nested?: Map<string, FieldShape>;
}

/** What discovery knows of one schema. */
interface SchemaShape {
  fields: Map<string, FieldShape>;
  /** Blobs of this schema. */
  totalObjects: number;
}

/** Schema name → shape. */
export type CatalogShape = Map<string, SchemaShape>;

// Elements of an array looked at to infer its element type, bounding the work on long arrays.
const SAMPLED_ELEMENTS = 10;

type Kind = 'string' | 'bool' | 'number' | 'object' | 'array';

function kindOf(value: unknown): Kind | undefined {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return 'number';
    default:
      return 'object';
  }
}

/** A number a Go int64 holds exactly. */
function isIntegral(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < 2 ** 63;
}

function scalarOf(kind: Kind | undefined, sample: unknown): ScalarType {
  if (kind === 'bool') return 'Boolean';
  if (kind === 'number') return isIntegral(sample) ? 'Int' : 'Float';
  return 'String';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return kindOf(value) === 'object';
}

/** A top-level value: its type, and for arrays the element type and the union of the sampled objects' fields. */
function analyzeValue(value: unknown): Pick<FieldShape, 'type' | 'isArray' | 'nested'> {
  const kind = kindOf(value);
  if (kind !== 'array') return { type: scalarOf(kind, value), isArray: false };
  const elements = value as unknown[];
  let first: { kind: Kind; value: unknown } | undefined;
  let mixed = false;
  let nested: Map<string, FieldShape> | undefined;
  for (const element of elements.slice(0, SAMPLED_ELEMENTS)) {
    const k = kindOf(element);
    if (k === undefined) continue;
    if (first === undefined) first = { kind: k, value: element };
    else if (k !== first.kind) mixed = true;
    if (isObject(element)) {
      const fields = analyzeNested(element);
      if (nested === undefined) nested = fields;
      else mergeNew(nested, fields);
    }
  }
  if (first === undefined || (mixed && nested === undefined)) return { type: 'String', isArray: true };
  return { type: scalarOf(first.kind, first.value), isArray: true, ...(nested === undefined ? {} : { nested }) };
}

/** The fields of one element of an array of objects; arrays inside are typed by their first element. */
function analyzeNested(obj: Record<string, unknown>): Map<string, FieldShape> {
  const fields = new Map<string, FieldShape>();
  for (const [key, value] of Object.entries(obj)) {
    const name = fieldName(key);
    const isArray = Array.isArray(value);
    const sample = isArray ? (value as unknown[])[0] : value;
    const kind = isArray ? ((value as unknown[]).length === 0 ? undefined : kindOf(sample)) : kindOf(value);
    fields.set(name, { name, key, type: scalarOf(kind, sample), isArray });
  }
  return fields;
}

function mergeNew(into: Map<string, FieldShape>, from: Map<string, FieldShape>): void {
  for (const [name, field] of from) if (!into.has(name)) into.set(name, field);
}

/** Adds one parsed blob of `schema` to `shape`. */
export function addBlob(shape: CatalogShape, schema: string, blob: Record<string, unknown>): void {
  let info = shape.get(schema);
  if (info === undefined) {
    info = { fields: new Map(), totalObjects: 0 };
    shape.set(schema, info);
  }
  info.totalObjects++;
  for (const [key, value] of Object.entries(blob)) {
    const name = fieldName(key);
    const analyzed = analyzeValue(value);
    const existing = info.fields.get(name);
    if (existing === undefined) {
      info.fields.set(name, { name, key, ...analyzed });
      continue;
    }
    if (analyzed.nested === undefined) continue;
    if (existing.nested === undefined) existing.nested = analyzed.nested;
    else mergeNew(existing.nested, analyzed.nested);
  }
}
