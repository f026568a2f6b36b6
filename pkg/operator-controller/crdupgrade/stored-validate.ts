/**
 * Validates a custom resource against a CRD version's structural schema the way the API server
 * does on a write (decision 0120): types (integer vs number, int-or-string, nullable,
 * preserve-unknown-fields, embedded resources), enum, pattern (RE2, stored-regex.ts), bounds, lengths
 * (in code points, as Go counts runes), item and property counts, uniqueItems, required,
 * formats, list-type set/map uniqueness and CEL rules (stored-cel-rules.ts). With `old`, ratcheting
 * as since Kubernetes 1.30 (KEP-4008): a value equal to the stored one is not re-validated,
 * except by transition rules. Field paths and texts follow the API server's field errors.
 * Pure; never throws.
 */
import type { Json, Schema } from './schema.ts';
import { compileValidationRule, estimateSteps, toCel, type CompiledRule } from './stored-cel-rules.ts';
import { checkFormat } from './stored-formats.ts';
import { re2ToJs } from './stored-regex.ts';

/** One refusal, as the API server words it. */
export interface FieldError {
  /** `spec.replicas`, `spec.items[0]`. */
  readonly field: string;
  /** The schema keyword that refused: `maximum`, `enum`, `x-kubernetes-validations`, ... */
  readonly rule: string;
  /** `spec.replicas: Invalid value: 10: spec.replicas in body should be less than or equal to 5`. */
  readonly text: string;
}

/** A constraint that could not be checked exactly (so the object's verdict is unknown). */
interface Unchecked {
  readonly field: string;
  readonly rule: string;
  readonly reason: string;
}

interface Verdict {
  readonly errors: FieldError[];
  readonly unchecked: Unchecked[];
}

/** Bounds of the CEL evaluations (decision 0110's spirit). */
export interface ValidationLimits {
  readonly maxRuleSteps: number;
  readonly maxRuleLength: number;
}

const DEFAULT_VALIDATION_LIMITS: ValidationLimits = { maxRuleSteps: 1_000_000, maxRuleLength: 10_000 };

const ABSENT = Symbol('absent');
type Old = Json | typeof ABSENT;

function isObj(v: unknown): v is { [k: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function child(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

/** Go's rendering of a value in `Invalid value: ...`. */
function shown(v: Json): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null) return 'null';
  if (Array.isArray(v)) return '"array"';
  if (typeof v === 'object') return '"object"';
  return String(v);
}

function typeName(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Deep equality of JSON values (key order ignored). */
function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i] as Json));
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && jsonEqual(a[k] as Json, b[k] as Json));
  }
  return false;
}

function widest(v: Json): number {
  if (Array.isArray(v)) return v.reduce<number>((m, x) => Math.max(m, widest(x)), v.length);
  if (isObj(v)) return Object.values(v).reduce<number>((m, x) => Math.max(m, widest(x)), Object.keys(v).length);
  return typeof v === 'string' ? 0 : 0;
}

/** Go's `field.TooMany` wording: `1 item`, `2 items`. */
function itemCount(n: number): string {
  return n === 1 ? '1 item' : `${n} items`;
}

class Validator {
  readonly errors: FieldError[] = [];
  readonly unchecked: Unchecked[] = [];
  readonly #limits: ValidationLimits;
  readonly #rules = new Map<string, ReturnType<typeof compileValidationRule>>();
  readonly #patterns = new Map<string, RegExp | string>();

  constructor(limits: ValidationLimits) {
    this.#limits = limits;
  }

  #fail(ratcheted: boolean, field: string, rule: string, text: string): void {
    if (!ratcheted) this.errors.push({ field, rule, text });
  }

  #invalid(ratcheted: boolean, field: string, rule: string, v: Json, detail: string): void {
    this.#fail(ratcheted, field, rule, `${field}: Invalid value: ${shown(v)}: ${detail}`);
  }

  /** Validates `v` at `path` against `s`; `old` is the stored value at the same place. */
  node(s: Schema, v: Json, old: Old, path: string, root = false): void {
    const ratcheted = old !== ABSENT && jsonEqual(v, old);
    const p = path === '' ? '<root>' : path;
    if (v === null) {
      if (s['nullable'] !== true)
        this.#invalid(ratcheted, p, 'nullable', 'null', `${p} in body must be of type ${String(s['type'] ?? 'object')}: "null"`);
      return;
    }
    if (!this.#type(s, v, p, ratcheted)) return;
    this.#scalar(s, v, p, ratcheted);
    if (Array.isArray(v)) this.#array(s, v, old, path, ratcheted);
    else if (isObj(v)) this.#object(s, v, old, path, ratcheted, root);
    this.#cel(s, v, old, p, ratcheted);
  }

  #type(s: Schema, v: Json, p: string, ratcheted: boolean): boolean {
    if (s['x-kubernetes-int-or-string'] === true) {
      if (typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v))) return true;
      this.#invalid(
        ratcheted,
        p,
        'x-kubernetes-int-or-string',
        typeName(v),
        `${p} in body must be of type integer,string: ${JSON.stringify(typeName(v))}`,
      );
      return false;
    }
    const t = s['type'];
    if (typeof t !== 'string') return true;
    const actual = typeName(v);
    const okType = t === actual || (t === 'number' && actual === 'integer');
    if (!okType) this.#invalid(ratcheted, p, 'type', actual, `${p} in body must be of type ${t}: ${JSON.stringify(actual)}`);
    return okType;
  }

  #scalar(s: Schema, v: Json, p: string, ratcheted: boolean): void {
    const enumValues = s['enum'];
    if (Array.isArray(enumValues) && !enumValues.some((e) => jsonEqual(e, v))) {
      this.#fail(
        ratcheted,
        p,
        'enum',
        `${p}: Unsupported value: ${shown(v)}: supported values: ${enumValues.map((e) => JSON.stringify(typeof e === 'string' ? e : JSON.stringify(e))).join(', ')}`,
      );
    }
    if (typeof v === 'number') {
      const max = s['maximum'];
      if (typeof max === 'number') {
        if (s['exclusiveMaximum'] === true ? v >= max : v > max) {
          this.#invalid(ratcheted, p, 'maximum', v, `${p} in body should be less than ${s['exclusiveMaximum'] === true ? '' : 'or equal to '}${max}`);
        }
      }
      const min = s['minimum'];
      if (typeof min === 'number') {
        if (s['exclusiveMinimum'] === true ? v <= min : v < min) {
          this.#invalid(
            ratcheted,
            p,
            'minimum',
            v,
            `${p} in body should be greater than ${s['exclusiveMinimum'] === true ? '' : 'or equal to '}${min}`,
          );
        }
      }
      const mult = s['multipleOf'];
      if (typeof mult === 'number' && mult > 0 && !Number.isInteger(v / mult))
        this.#invalid(ratcheted, p, 'multipleOf', v, `${p} in body should be a multiple of ${mult}`);
    }
    if (typeof v === 'string') {
      const runes = [...v].length;
      const maxLength = s['maxLength'];
      if (typeof maxLength === 'number' && runes > maxLength)
        this.#fail(ratcheted, p, 'maxLength', `${p}: Too long: may not be more than ${maxLength} bytes`);
      const minLength = s['minLength'];
      if (typeof minLength === 'number' && runes < minLength)
        this.#invalid(ratcheted, p, 'minLength', v, `${p} in body should be at least ${minLength} chars long`);
      const pattern = s['pattern'];
      if (typeof pattern === 'string') {
        const re = this.#pattern(pattern);
        if (typeof re === 'string') this.unchecked.push({ field: p, rule: 'pattern', reason: `pattern ${JSON.stringify(pattern)}: ${re}` });
        else if (!re.test(v)) this.#invalid(ratcheted, p, 'pattern', v, `${p} in body should match '${pattern}'`);
      }
      const format = s['format'];
      if (typeof format === 'string') {
        const r = checkFormat(format, v);
        if (r === 'unknown') this.unchecked.push({ field: p, rule: 'format', reason: `format ${format} is not checked` });
        else if (!r) this.#invalid(ratcheted, p, 'format', v, `${p} in body must be of type ${format}: ${JSON.stringify(v)}`);
      }
    }
  }

  #pattern(pattern: string): RegExp | string {
    let re = this.#patterns.get(pattern);
    if (re === undefined) {
      const js = re2ToJs(pattern);
      re = js.ok ? new RegExp(js.value, 'u') : `not checkable: ${js.error}`;
      this.#patterns.set(pattern, re);
    }
    return re;
  }

  #array(s: Schema, v: Json[], old: Old, path: string, ratcheted: boolean): void {
    const p = path === '' ? '<root>' : path;
    const maxItems = s['maxItems'];
    if (typeof maxItems === 'number' && v.length > maxItems)
      this.#fail(ratcheted, p, 'maxItems', `${p}: Too many: ${v.length}: must have at most ${itemCount(maxItems)}`);
    const minItems = s['minItems'];
    if (typeof minItems === 'number' && v.length < minItems)
      this.#invalid(ratcheted, p, 'minItems', v.length, `${p} in body should have at least ${minItems} items`);
    const listType = s['x-kubernetes-list-type'];
    if (s['uniqueItems'] === true || listType === 'set') {
      v.forEach((x, i) => {
        if (v.slice(0, i).some((y) => jsonEqual(x, y)))
          this.#fail(
            ratcheted,
            `${p}[${i}]`,
            listType === 'set' ? 'x-kubernetes-list-type' : 'uniqueItems',
            `${p}[${i}]: Duplicate value: ${shown(x)}`,
          );
      });
    }
    const keys = s['x-kubernetes-list-map-keys'];
    const oldList = Array.isArray(old) ? old : [];
    const keyOf = (x: Json): string | undefined =>
      Array.isArray(keys) && isObj(x) ? JSON.stringify(keys.map((k) => (typeof k === 'string' ? (x[k] ?? null) : null))) : undefined;
    if (listType === 'map' && Array.isArray(keys)) {
      const seen = new Set<string>();
      v.forEach((x, i) => {
        const k = keyOf(x);
        if (k === undefined) return;
        if (seen.has(k))
          this.#fail(
            ratcheted,
            `${p}[${i}]`,
            'x-kubernetes-list-type',
            `${p}[${i}]: Duplicate value: ${JSON.stringify(Object.fromEntries(keys.map((n) => [String(n), isObj(x) ? (x[String(n)] ?? null) : null])))}`,
          );
        seen.add(k);
      });
    }
    const items = s['items'];
    if (!isObj(items)) return;
    v.forEach((x, i) => {
      // Ratcheting correlates list-map items by key and set items by value; atomic lists not at all.
      let o: Old = ABSENT;
      if (listType === 'map') {
        const k = keyOf(x);
        const found = oldList.find((y) => k !== undefined && keyOf(y) === k);
        if (found !== undefined) o = found;
      } else if (listType === 'set' && oldList.some((y) => jsonEqual(x, y))) o = x;
      this.node(items as Schema, x, ratcheted ? x : o, `${p}[${i}]`);
    });
  }

  #object(s: Schema, v: { [k: string]: Json }, old: Old, path: string, ratcheted: boolean, root: boolean): void {
    const p = path === '' ? '<root>' : path;
    // The server prunes nulls of non-nullable properties (without defaults) before validating.
    const declared = isObj(s['properties']) ? (s['properties'] as { [k: string]: Schema }) : {};
    const values = s['additionalProperties'];
    const pruned = (k: string): boolean => {
      if (v[k] !== null) return false;
      const ps = declared[k] ?? (isObj(values) ? (values as Schema) : undefined);
      return ps !== undefined && ps['nullable'] !== true && ps['default'] === undefined;
    };
    const count = Object.keys(v).filter((k) => !pruned(k)).length;
    const maxP = s['maxProperties'];
    if (typeof maxP === 'number' && count > maxP)
      this.#fail(ratcheted, p, 'maxProperties', `${p}: Too many: ${count}: must have at most ${itemCount(maxP)}`);
    const minP = s['minProperties'];
    if (typeof minP === 'number' && count < minP)
      this.#invalid(ratcheted, p, 'minProperties', count, `${p} in body should have at least ${minP} properties`);
    const required = s['required'];
    if (Array.isArray(required)) {
      for (const r of required)
        if (typeof r === 'string' && (!(r in v) || pruned(r))) this.#fail(ratcheted, child(path, r), 'required', `${child(path, r)}: Required value`);
    }
    const props = isObj(s['properties']) ? (s['properties'] as { [k: string]: Schema }) : {};
    const additional = s['additionalProperties'];
    const oldObj = isObj(old) ? old : undefined;
    for (const [k, x] of Object.entries(v)) {
      if (root && (k === 'metadata' || k === 'apiVersion' || k === 'kind')) continue; // validated by the server's own rules
      if (pruned(k)) continue;
      const o: Old = oldObj !== undefined && k in oldObj ? (oldObj[k] as Json) : ABSENT;
      const ps = props[k];
      if (ps !== undefined) this.node(ps, x, o, child(path, k));
      else if (isObj(additional)) this.node(additional as Schema, x, o, child(path, k));
    }
    if (s['x-kubernetes-embedded-resource'] === true) {
      for (const k of ['apiVersion', 'kind'])
        if (typeof v[k] !== 'string' || v[k] === '')
          this.#fail(ratcheted, child(path, k), 'x-kubernetes-embedded-resource', `${child(path, k)}: Required value: must not be empty`);
    }
  }

  #cel(s: Schema, v: Json, old: Old, p: string, ratcheted: boolean): void {
    const rules = s['x-kubernetes-validations'];
    if (!Array.isArray(rules)) return;
    for (const r of rules) {
      if (!isObj(r) || typeof r['rule'] !== 'string') continue;
      const text = r['rule'];
      let compiled = this.#rules.get(text);
      if (compiled === undefined) {
        compiled = compileValidationRule(text, this.#limits.maxRuleLength);
        this.#rules.set(text, compiled);
      }
      if (!compiled.ok) {
        this.unchecked.push({ field: p, rule: 'x-kubernetes-validations', reason: `${text}: ${compiled.error}` });
        continue;
      }
      const c: CompiledRule = compiled.value;
      // Transition rules run only on an update with a stored value; everything else ratchets.
      if (c.transition && old === ABSENT && r['optionalOldSelf'] !== true) continue;
      if (!c.transition && ratcheted) continue;
      const steps = estimateSteps(c, Math.max(widest(v), old === ABSENT ? 0 : widest(old)));
      if (steps > this.#limits.maxRuleSteps) {
        this.unchecked.push({
          field: p,
          rule: 'x-kubernetes-validations',
          reason: `${text}: estimated cost ${steps} exceeds the limit of ${this.#limits.maxRuleSteps}`,
        });
        continue;
      }
      const res = c.run(toCel(s, v), old === ABSENT ? null : toCel(s, old));
      if (res === true) continue;
      if (res !== false) {
        this.unchecked.push({ field: p, rule: 'x-kubernetes-validations', reason: `${text}: ${res.error}` });
        continue;
      }
      const field =
        typeof r['fieldPath'] === 'string' && r['fieldPath'] !== '' ? `${p === '<root>' ? '' : p}${r['fieldPath']}`.replace(/^\./, '') : p;
      const message = typeof r['message'] === 'string' && r['message'] !== '' ? r['message'] : `failed rule: ${text}`;
      this.errors.push({ field, rule: 'x-kubernetes-validations', text: `${field}: Invalid value: ${message}` });
    }
  }
}

/**
 * What the API server would refuse when `obj` is written under `schema`: with `old`, an update
 * from `old` (ratcheted: unchanged values are not re-validated); without, a create, which is
 * also what any change to a violating value meets.
 */
export function validateObject(schema: Schema, obj: Json, options: { old?: Json; limits?: ValidationLimits } = {}): Verdict {
  const v = new Validator(options.limits ?? DEFAULT_VALIDATION_LIMITS);
  v.node(schema, obj, options.old === undefined ? ABSENT : options.old, '', true);
  return { errors: v.errors, unchecked: v.unchecked };
}
