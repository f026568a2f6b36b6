/**
 * Typed decoding with Go `encoding/json` semantics over an already-parsed value, driven by type
 * descriptors: field names matched exactly, then case-insensitively; unknown fields ignored;
 * `null` leaves values untouched; a type mismatch skips the value and the first error is
 * reported in Go's words (`json: cannot unmarshal object into Go struct field ...`). Keys are
 * visited in Go's order (sorted, as in the canonical blob).
 */
import { goBase64Error } from './base64.ts';
import { goJsonNumber, sortedKeys } from './canonical-json.ts';
import type { JsonValue } from './types.ts';

/** A Go type, as far as JSON decoding needs to know it. `name` is Go's `%v` of the type. */
export type GoType =
  | { kind: 'string'; name: string }
  | { kind: 'bool' }
  | { kind: 'int32' }
  | { kind: 'bytes' }
  | { kind: 'raw' }
  | { kind: 'slice'; elem: GoType; name: string }
  | { kind: 'map'; elem: GoType; name: string }
  | { kind: 'ptr'; elem: GoType }
  | GoStruct;

/** A Go struct type: its qualified name (`declcfg.Bundle`) and JSON-named fields. */
export interface GoStruct {
  kind: 'struct';
  name: string;
  fields: readonly { json: string; type: GoType }[];
  /** Lookup indexes built by {@link goStruct}. */
  exact: ReadonlyMap<string, { json: string; type: GoType }>;
  folded: ReadonlyMap<string, { json: string; type: GoType }>;
}

/** Builds a struct descriptor with its field lookup indexes. */
export function goStruct(name: string, fields: Record<string, GoType>): GoStruct {
  const list = Object.entries(fields).map(([json, type]) => ({ json, type }));
  const exact = new Map(list.map((f) => [f.json, f]));
  const folded = new Map<string, { json: string; type: GoType }>();
  for (const f of list) if (!folded.has(foldName(f.json))) folded.set(foldName(f.json), f);
  return { kind: 'struct', name, fields: list, exact, folded };
}

/** Go `string`. */
export const GO_STRING: GoType = { kind: 'string', name: 'string' };
/** Go `bool`. */
export const GO_BOOL: GoType = { kind: 'bool' };
/** Go `int32`. */
export const GO_INT32: GoType = { kind: 'int32' };
/** Go `[]byte`: a base64 JSON string (or an array of bytes). */
export const GO_BYTES: GoType = { kind: 'bytes' };
/** Go `json.RawMessage`: any JSON value, kept as decoded. */
export const GO_RAW: GoType = { kind: 'raw' };
/** Go `[]string`. */
export const GO_STRINGS: GoType = { kind: 'slice', elem: GO_STRING, name: '[]string' };
/** Go `map[string]string`. */
export const GO_STRING_MAP: GoType = { kind: 'map', elem: GO_STRING, name: 'map[string]string' };

/** `[]<elem>` with Go's type name. */
export function goSlice(elem: GoType, name: string): GoType {
  return { kind: 'slice', elem, name };
}

/** A decoded Go struct: JSON field name -> decoded value (zero values for absent fields). */
export type GoObject = { [field: string]: unknown };

/** Marks a decoded JSON value that was absent (Go's empty json.RawMessage). */
export const MISSING = Symbol('missing');

/** Result of {@link goDecode}: the decoded value and Go's first error, if any. */
interface GoDecodeResult {
  value: unknown;
  error: string | undefined;
}

// encoding/json's foldName: each rune lower- then upper-cased (ASCII: upper-cased).
function foldName(s: string): string {
  if (/^[\x00-\x7f]*$/.test(s)) return s.toUpperCase();
  let out = '';
  for (const ch of s) {
    const f = ch.toLowerCase().toUpperCase();
    out += [...f].length === 1 ? f : ch;
  }
  return out;
}

interface Ctx {
  struct: string;
  stack: string[];
  error: string | undefined;
}

/**
 * Decodes `value` (or {@link MISSING}: Go's `json.Unmarshal` of empty input) into `type`.
 * Never throws for bad data; the first problem is returned in `error`, as Go reports it.
 */
export function goDecode(value: JsonValue | typeof MISSING, type: GoType): GoDecodeResult {
  if (value === MISSING) return { value: zero(type), error: 'unexpected end of JSON input' };
  const ctx: Ctx = { struct: '', stack: [], error: undefined };
  const out = decode(type, value, ctx, zero(type));
  return { value: out, error: ctx.error };
}

/** Go's zero value of a type in our representation. */
function zero(type: GoType): unknown {
  switch (type.kind) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'int32':
      return 0;
    case 'struct': {
      const o: GoObject = {};
      for (const f of type.fields) o[f.json] = zero(f.type);
      return o;
    }
    case 'raw':
      return MISSING;
    default:
      return null;
  }
}

function jsonKind(v: JsonValue): string {
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'object';
  }
}

function typeName(type: GoType): string {
  switch (type.kind) {
    case 'bool':
      return 'bool';
    case 'int32':
      return 'int32';
    case 'bytes':
      return '[]uint8';
    case 'raw':
      return 'json.RawMessage';
    case 'ptr':
      return typeName(type.elem);
    default:
      return type.name;
  }
}

function fail(ctx: Ctx, what: string, type: GoType): void {
  if (ctx.error !== undefined) return;
  const target = ctx.struct !== '' || ctx.stack.length > 0 ? `Go struct field ${ctx.struct}.${ctx.stack.join('.')}` : 'Go value';
  ctx.error = `json: cannot unmarshal ${what} into ${target} of type ${typeName(type)}`;
}

function decode(type: GoType, v: JsonValue, ctx: Ctx, current: unknown): unknown {
  if (v === null) {
    if (type.kind === 'ptr' || type.kind === 'slice' || type.kind === 'map' || type.kind === 'bytes') return null;
    return type.kind === 'raw' ? null : current;
  }
  switch (type.kind) {
    case 'string':
      if (typeof v === 'string') return v;
      break;
    case 'bool':
      if (typeof v === 'boolean') return v;
      break;
    case 'int32': {
      if (typeof v !== 'number') break;
      const text = goJsonNumber(v);
      if (/^-?[0-9]+$/.test(text) && v >= -(2 ** 31) && v < 2 ** 31) return v;
      fail(ctx, `number ${text}`, type);
      return current;
    }
    case 'raw':
      return v;
    case 'bytes':
      if (typeof v === 'string') {
        const err = goBase64Error(v);
        if (err !== undefined && ctx.error === undefined) ctx.error = err;
        return err === undefined ? v : current;
      }
      if (Array.isArray(v)) return decodeByteArray(v, ctx);
      break;
    case 'slice':
      if (Array.isArray(v)) return v.map((item) => decode(type.elem, item, ctx, zero(type.elem)));
      break;
    case 'map':
      if (typeof v === 'object' && !Array.isArray(v)) {
        const out: { [key: string]: unknown } = {};
        for (const k of sortedKeys(v)) out[k] = decode(type.elem, v[k] as JsonValue, ctx, zero(type.elem));
        return out;
      }
      break;
    case 'ptr':
      return decode(type.elem, v, ctx, current ?? zero(type.elem));
    case 'struct':
      if (typeof v === 'object' && !Array.isArray(v)) return decodeStruct(type, v, ctx, current as GoObject);
      break;
  }
  fail(ctx, jsonKind(v), type);
  return current;
}

function decodeStruct(type: GoStruct, v: { [key: string]: JsonValue }, ctx: Ctx, current: GoObject | null): GoObject {
  const obj = current ?? (zero(type) as GoObject);
  const savedStruct = ctx.struct;
  const depth = ctx.stack.length;
  for (const key of sortedKeys(v)) {
    const field = type.exact.get(key) ?? type.folded.get(foldName(key));
    if (field === undefined) continue;
    ctx.struct = type.name.slice(type.name.indexOf('.') + 1);
    ctx.stack.push(field.json);
    obj[field.json] = decode(field.type, v[key] as JsonValue, ctx, obj[field.json]);
    ctx.stack.length = depth;
    ctx.struct = savedStruct;
  }
  return obj;
}

// A JSON array into []byte decodes element-wise as uint8.
function decodeByteArray(v: JsonValue[], ctx: Ctx): number[] {
  const uint8: GoType = { kind: 'string', name: 'uint8' };
  return v.map((item) => {
    if (typeof item === 'number') {
      const text = goJsonNumber(item);
      if (/^[0-9]+$/.test(text) && item <= 255) return item;
      fail(ctx, `number ${text}`, uint8);
      return 0;
    }
    if (item !== null) fail(ctx, jsonKind(item), uint8);
    return 0;
  });
}
