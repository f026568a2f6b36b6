/**
 * A minimal draft-07 JSON-schema validator reproducing the error tree of the library upstream
 * uses for `spec.config` (santhosh-tekuri/jsonschema v6), so that the messages derived from it
 * (config-errors.ts) are the same. Only the keywords the configuration schema uses are
 * supported, evaluated in the library's order; several errors at one location become a `group`.
 */

/** JSON value kinds as the library names them. */
type JsonKind = 'null' | 'boolean' | 'number' | 'integer' | 'string' | 'array' | 'object';

/** A custom `format`: returns an error text, or undefined when the value is valid. */
export interface FormatCheck {
  name: string;
  validate: (value: unknown) => string | undefined;
}

/** A compiled schema node. `ref` is a thunk so that definitions can refer to each other. */
export interface SchemaNode {
  types?: readonly JsonKind[];
  format?: FormatCheck;
  ref?: () => SchemaNode;
  required?: readonly string[];
  properties?: Readonly<Record<string, SchemaNode>>;
  additionalProperties?: false | SchemaNode;
  items?: SchemaNode;
  minLength?: number;
  maxLength?: number;
  pattern?: RegExp;
  allOf?: readonly SchemaNode[];
  anyOf?: readonly SchemaNode[];
  oneOf?: readonly SchemaNode[];
}

/** The kind of one validation error, with the data its message needs. */
export type ErrorKind =
  | { k: 'schema' }
  | { k: 'group' }
  | { k: 'reference' }
  | { k: 'allOf' }
  | { k: 'anyOf' }
  | { k: 'oneOf'; matched?: readonly [number, number] }
  | { k: 'type'; got: string; want: readonly string[] }
  | { k: 'format'; got: unknown; want: string; err: string }
  | { k: 'required'; missing: readonly string[] }
  | { k: 'additionalProperties'; properties: readonly string[] }
  | { k: 'minLength' | 'maxLength'; got: number; want: number }
  | { k: 'pattern'; got: string; want: string };

/** One node of the error tree: where (JSON pointer tokens), what, and why (causes). */
export interface ValidationError {
  kind: ErrorKind;
  location: readonly string[];
  causes: ValidationError[];
}

/**
 * Validates `value` against `schema`. Returns undefined when valid, otherwise the root
 * `schema` error whose causes are the errors found (a root `group` is unwrapped).
 */
export function validateSchema(schema: SchemaNode, value: unknown): ValidationError | undefined {
  const e = validate(schema, value, []);
  if (e === undefined) return undefined;
  const causes = e.kind.k === 'group' ? e.causes : [e];
  return { kind: { k: 'schema' }, location: [], causes };
}

function kindOf(v: unknown): JsonKind | undefined {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'boolean':
      return 'boolean';
    case 'number':
      return Number.isFinite(v) ? 'number' : undefined;
    case 'string':
      return 'string';
    case 'object':
      return 'object';
    default:
      return undefined;
  }
}

function validate(s: SchemaNode, v: unknown, loc: readonly string[]): ValidationError | undefined {
  const leaf = (kind: ErrorKind): ValidationError => ({ kind, location: loc, causes: [] });
  const t = kindOf(v) ?? 'null';
  if (s.types !== undefined && s.types.length > 0) {
    const matched = s.types.includes(t) || (s.types.includes('integer') && t === 'number' && Number.isInteger(v));
    if (!matched) return leaf({ k: 'type', got: t, want: s.types });
  }
  if (s.format !== undefined) {
    const e = s.format.validate(v);
    if (e !== undefined) return leaf({ k: 'format', got: v, want: s.format.name, err: e });
  }
  if (s.ref !== undefined) {
    const e = validate(s.ref(), v, loc);
    if (e === undefined) return undefined;
    return { kind: { k: 'reference' }, location: loc, causes: e.kind.k === 'group' ? e.causes : [e] };
  }

  const errors: ValidationError[] = [];
  if (t === 'object') validateObject(s, v as Record<string, unknown>, loc, errors);
  else if (t === 'array' && s.items !== undefined) {
    const items = s.items;
    (v as unknown[]).forEach((item, i) => push(errors, validate(items, item, [...loc, String(i)])));
  } else if (t === 'string') validateString(s, v as string, loc, errors);

  if (s.allOf !== undefined) {
    const causes = collect(s.allOf, v, loc);
    if (causes.length > 0) errors.push({ kind: { k: 'allOf' }, location: loc, causes });
  }
  if (s.anyOf !== undefined) {
    const causes = collect(s.anyOf, v, loc);
    if (causes.length === s.anyOf.length) errors.push({ kind: { k: 'anyOf' }, location: loc, causes });
  }
  if (s.oneOf !== undefined) validateOneOf(s.oneOf, v, loc, errors);

  if (errors.length === 0) return undefined;
  if (errors.length === 1) return errors[0];
  return { kind: { k: 'group' }, location: loc, causes: errors };
}

function validateObject(s: SchemaNode, obj: Record<string, unknown>, loc: readonly string[], errors: ValidationError[]): void {
  const missing = (s.required ?? []).filter((name) => !Object.hasOwn(obj, name));
  if (missing.length > 0) errors.push({ kind: { k: 'required', missing }, location: loc, causes: [] });
  const additional: string[] = [];
  for (const [name, value] of Object.entries(obj)) {
    const prop = s.properties?.[name];
    if (prop !== undefined) push(errors, validate(prop, value, [...loc, name]));
    else if (s.additionalProperties === false) additional.push(name);
    else if (s.additionalProperties !== undefined) push(errors, validate(s.additionalProperties, value, [...loc, name]));
  }
  if (additional.length > 0) errors.push({ kind: { k: 'additionalProperties', properties: additional }, location: loc, causes: [] });
}

function validateString(s: SchemaNode, str: string, loc: readonly string[], errors: ValidationError[]): void {
  const length = [...str].length;
  if (s.minLength !== undefined && length < s.minLength) {
    errors.push({ kind: { k: 'minLength', got: length, want: s.minLength }, location: loc, causes: [] });
  }
  if (s.maxLength !== undefined && length > s.maxLength) {
    errors.push({ kind: { k: 'maxLength', got: length, want: s.maxLength }, location: loc, causes: [] });
  }
  if (s.pattern !== undefined && !s.pattern.test(str)) {
    errors.push({ kind: { k: 'pattern', got: str, want: s.pattern.source }, location: loc, causes: [] });
  }
}

function validateOneOf(subs: readonly SchemaNode[], v: unknown, loc: readonly string[], errors: ValidationError[]): void {
  let matched = -1;
  const causes: ValidationError[] = [];
  for (let i = 0; i < subs.length; i++) {
    const e = validate(subs[i] as SchemaNode, v, loc);
    if (e !== undefined) {
      if (matched === -1) causes.push(e);
    } else if (matched === -1) {
      matched = i;
    } else {
      errors.push({ kind: { k: 'oneOf', matched: [matched, i] }, location: loc, causes: [] });
      return;
    }
  }
  if (matched === -1) errors.push({ kind: { k: 'oneOf' }, location: loc, causes });
}

function collect(subs: readonly SchemaNode[], v: unknown, loc: readonly string[]): ValidationError[] {
  const out: ValidationError[] = [];
  for (const sub of subs) push(out, validate(sub, v, loc));
  return out;
}

function push(list: ValidationError[], e: ValidationError | undefined): void {
  if (e !== undefined) list.push(e);
}

/** One entry of the library's flattened ("basic") output. */
export interface OutputUnit {
  location: readonly string[];
  kind: ErrorKind;
}

/**
 * The library's `BasicOutput()` list for a root error: every cause in depth-first order,
 * each followed by its own flattened causes. A `reference` error with a single cause is
 * "skipped": it is replaced by the first unit of its cause's output, keeping the reference
 * kind and dropping the rest (a library quirk that upstream messages inherit).
 */
export function basicOutput(root: ValidationError): OutputUnit[] {
  return flatten(root);
}

// The units below `e` (Go's `OutputUnit.Errors` of `e` in flatten mode).
function flatten(e: ValidationError): OutputUnit[] {
  const out: OutputUnit[] = [];
  for (const cause of e.causes) {
    let units = flatten(cause);
    let location = cause.location;
    if (isSkipped(cause)) {
      location = units[0]?.location ?? cause.location;
      units = [];
    }
    out.push({ location, kind: cause.kind }, ...units);
  }
  return out;
}

function isSkipped(e: ValidationError): boolean {
  return e.kind.k === 'reference' && e.causes.length === 1;
}
