/**
 * The property rules (crdify's property validations as upstream OLM configures them,
 * decision 0047). Each rule compares one property's old and new schema (children
 * excluded) and then deletes the fields it understands from both, so that whatever differs
 * afterwards is an unhandled change (unhandled.ts). Texts are crdify's, `%q` and `%v`
 * rendered as Go renders them.
 */
import { goFormatFloatG, goList, goQuote, goSorted } from '../../gocompat/gotext/index.ts';
import { canonicalJson, schemaJson, type Json, type Schema } from './schema.ts';

/** A property rule: `compare` returns the violation text, if any, and consumes its fields. */
interface PropertyRule {
  name: string;
  /** False for rules computed but never reported (description). */
  enforced: boolean;
  compare(a: Schema, b: Schema): string | undefined;
}

function take(a: Schema, b: Schema, key: string): [Json | undefined, Json | undefined] {
  const pair: [Json | undefined, Json | undefined] = [a[key], b[key]];
  delete a[key];
  delete b[key];
  return pair;
}

/** An enforced rule over the field of the same name. */
function fieldRule(name: string, compare: (older: Json | undefined, newer: Json | undefined) => string | undefined): PropertyRule {
  return { name, enforced: true, compare: (a, b) => compare(...take(a, b, name)) };
}

function str(v: Json | undefined): string {
  return typeof v === 'string' ? v : '';
}

function strings(v: Json | undefined): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** A bound that may only grow (`max*`) or only shrink (`min*`); `float` prints as Go's %v of a float64. */
function boundRule(name: string, direction: 'maximum' | 'minimum', float: boolean): PropertyRule {
  const fmt = (n: number): string => (float ? goFormatFloatG(n) : String(n));
  return fieldRule(name, (older, newer) => {
    if (typeof newer !== 'number') return undefined;
    if (typeof older !== 'number') return `${direction} constraint added when there was none previously : ${fmt(newer)}`;
    if (direction === 'maximum' && newer < older) return `maximum decreased : ${fmt(older)} -> ${fmt(newer)}`;
    if (direction === 'minimum' && newer > older) return `minimum increased : ${fmt(older)} -> ${fmt(newer)}`;
    return undefined;
  });
}

const typeRule = fieldRule('type', (older, newer) =>
  str(older) === str(newer) ? undefined : `type changed : ${goQuote(str(older))} -> ${goQuote(str(newer))}`,
);

const requiredRule = fieldRule('required', (older, newer) => {
  const old = new Set(strings(older));
  const added = new Set(strings(newer).filter((f) => !old.has(f)));
  // Upstream prints the set in Go's random map order; sorted here.
  return added.size === 0 ? undefined : `new required fields: ${goList(goSorted(added))}`;
});

const defaultRule = fieldRule('default', (older, newer) => {
  const o = canonicalJson(older);
  const n = canonicalJson(newer);
  if (older === undefined && newer !== undefined) return `default added when there was none previously : ${goQuote(n)}`;
  if (older !== undefined && newer === undefined) return `default value removed : ${goQuote(o)}`;
  if (o !== n) return `default value changed : ${goQuote(o)} -> ${goQuote(n)}`;
  return undefined;
});

/** Enum values are compared as JSON texts; adding values is allowed (OLM's `additionPolicy: Allow`). */
const enumRule = fieldRule('enum', (older, newer) => {
  const old = new Set((Array.isArray(older) ? older : []).map((v) => canonicalJson(v)));
  const now = new Set((Array.isArray(newer) ? newer : []).map((v) => canonicalJson(v)));
  if (old.size === 0 && now.size > 0) return `enum constraint added when there was none previously : ${goList(goSorted(now))}`;
  const removed = [...old].filter((v) => !now.has(v));
  if (removed.length > 0) return `allowed enum values removed : ${goList(goSorted(removed))}`;
  return undefined;
});

const patternRule = fieldRule('pattern', (older, newer) => {
  const o = str(older);
  const n = str(newer);
  if (o === n) return undefined;
  const change = o === '' ? 'pattern added' : n === '' ? 'pattern removed' : 'pattern changed';
  return `${change} : ${goQuote(o)} -> ${goQuote(n)}`;
});

const nullableRule = fieldRule('nullable', (older, newer) => {
  const o = older === true;
  const n = newer === true;
  if (o === n) return undefined;
  return n ? 'nullable added : false -> true' : 'nullable removed : true -> false';
});

// Documentation fields: they change neither validation nor defaulting of stored objects.
const DOCUMENTATION_FIELDS = ['description', 'title', 'example', 'externalDocs'];

/** A oneOf entry as compared: documentation dropped at every depth, printed as Go's JSON. */
function oneOfEntry(s: Json): string {
  return schemaJson(withoutDocumentation(s as Schema));
}

function withoutDocumentation(s: Schema): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    if (DOCUMENTATION_FIELDS.includes(k)) continue;
    out[k] = stripNested(k, v);
  }
  return out;
}

function stripNested(key: string, v: Json): Json {
  if (v === null || typeof v !== 'object') return v;
  switch (key) {
    case 'not':
      return withoutDocumentation(v as Schema);
    case 'items':
    case 'allOf':
    case 'anyOf':
    case 'oneOf':
      return Array.isArray(v) ? v.map((x) => withoutDocumentation(x as Schema)) : withoutDocumentation(v as Schema);
    case 'additionalProperties':
    case 'additionalItems':
      return withoutDocumentation(v as Schema);
    case 'properties':
    case 'patternProperties':
    case 'definitions':
    case 'dependencies':
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, Array.isArray(x) ? x : withoutDocumentation(x as Schema)]));
    default:
      return v;
  }
}

/** oneOf entries compared as a set: a new constraint, a removed entry and an added entry all break. */
const oneOfRule = fieldRule('oneOf', (older, newer) => {
  const old = new Set((Array.isArray(older) ? older : []).map(oneOfEntry));
  const now = new Set((Array.isArray(newer) ? newer : []).map(oneOfEntry));
  if (old.size === 0 && now.size > 0) return `oneOf constraint added when there was none previously: ${goList(goSorted(now))}`;
  const removed = [...old].filter((s) => !now.has(s));
  if (removed.length > 0) return `allowed oneOf schemas removed: ${goList(goSorted(removed))}`;
  const added = [...now].filter((s) => !old.has(s));
  if (added.length > 0) return `allowed oneOf schemas added: ${goList(goSorted(added))}`;
  return undefined;
});

/**
 * Description changes never block (OLM sets the rule's enforcement to None). Title, example
 * and externalDocs are documentation too and are consumed here rather than reported as
 * unhandled (decision 0047).
 */
const descriptionRule: PropertyRule = {
  name: 'description',
  enforced: false,
  compare(a, b) {
    for (const key of DOCUMENTATION_FIELDS) take(a, b, key);
    return undefined;
  },
};

/** Every property rule OLM runs, by name. */
export const PROPERTY_RULES: readonly PropertyRule[] = [
  defaultRule,
  descriptionRule,
  enumRule,
  boundRule('maximum', 'maximum', true),
  boundRule('maxItems', 'maximum', false),
  boundRule('maxLength', 'maximum', false),
  boundRule('maxProperties', 'maximum', false),
  boundRule('minimum', 'minimum', true),
  boundRule('minItems', 'minimum', false),
  boundRule('minLength', 'minimum', false),
  boundRule('minProperties', 'minimum', false),
  nullableRule,
  oneOfRule,
  patternRule,
  requiredRule,
  typeRule,
];
