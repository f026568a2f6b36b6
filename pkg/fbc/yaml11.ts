/**
 * YAML -> JSON conversion as upstream performs it (`sigs.k8s.io/yaml` over go-yaml v2): YAML 1.1
 * plain-scalar typing (`yes`/`no`/`on`/`off`/`y`/`n` are booleans, `0x1F` and `017` are
 * integers, `1_000` is 1000, `1e400` stays a string because it overflows), non-string map keys
 * stringified the way Go prints them, duplicate keys resolved last-wins. js-yaml does the
 * parsing; this file supplies the go-yaml resolver as a js-yaml schema and the conversion.
 */
import {
  binaryTag,
  defineScalarTag,
  loadAll,
  mergeTag,
  NOT_RESOLVED,
  realMapTag,
  Schema,
  seqTag,
  strTag,
  YAMLException,
} from 'js-yaml';
import { goFormatFloatG } from '../gotext/index.ts';
import type { JsonValue } from './types.ts';

/** A YAML float; boxed so that float map keys can be printed like Go's float32 `'g'` format. */
class YamlFloat {
  readonly value: number;
  constructor(value: number) {
    this.value = value;
  }
}

type Resolved =
  | { tag: 'null'; value: null }
  | { tag: 'bool'; value: boolean }
  | { tag: 'int'; value: number | bigint }
  | { tag: 'float'; value: number }
  | { tag: 'str'; value: string };

const MAP_VALUES = new Map<string, Resolved>();
for (const s of ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']) MAP_VALUES.set(s, { tag: 'bool', value: true });
for (const s of ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']) MAP_VALUES.set(s, { tag: 'bool', value: false });
for (const s of ['', '~', 'null', 'Null', 'NULL']) MAP_VALUES.set(s, { tag: 'null', value: null });
for (const s of ['.nan', '.NaN', '.NAN']) MAP_VALUES.set(s, { tag: 'float', value: NaN });
for (const s of ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF']) MAP_VALUES.set(s, { tag: 'float', value: Infinity });
for (const s of ['-.inf', '-.Inf', '-.INF']) MAP_VALUES.set(s, { tag: 'float', value: -Infinity });

const GO_INT = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const DOT_FLOAT = /^\.[0-9]+(?:[eE][-+]?[0-9]+)?$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

// strconv.ParseInt(s, 0, 64) then ParseUint(s, 0, 64), as go-yaml tries them.
function parseGoInt(plain: string): number | bigint | undefined {
  const m = GO_INT.exec(plain);
  if (m === null) return undefined;
  const sign = m[1] ?? '';
  const body = m[2] ?? '';
  const digits = body.length > 1 && body[0] === '0' && /[0-7]/.test(body[1] ?? '') ? `0o${body.slice(1)}` : body;
  let n = BigInt(digits);
  if (sign === '-') n = -n;
  const fits = (n >= INT64_MIN && n <= INT64_MAX) || (sign === '' && n <= UINT64_MAX);
  if (!fits) return undefined;
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}

/** go-yaml v2's `resolve` for an untagged plain scalar. */
export function goYamlResolve(text: string): Resolved {
  const c = text[0] ?? '';
  const isDigit = c >= '0' && c <= '9';
  const hinted = text === '' || isDigit || c === '+' || c === '-' || c === '.' || 'yYnNtTfFoO~'.includes(c);
  if (!hinted) return { tag: 'str', value: text };
  const known = MAP_VALUES.get(text);
  if (known !== undefined) return known;
  if (c === '.') {
    if (DOT_FLOAT.test(text)) {
      const f = Number(text);
      if (Number.isFinite(f)) return { tag: 'float', value: f };
    }
    return { tag: 'str', value: text };
  }
  if (isDigit || c === '+' || c === '-') {
    const plain = text.replaceAll('_', '');
    const i = parseGoInt(plain);
    if (i !== undefined) return { tag: 'int', value: i };
    if (YAML_STYLE_FLOAT.test(plain)) {
      const f = Number(plain);
      // strconv.ParseFloat fails with ErrRange on overflow; go-yaml then keeps the string.
      if (Number.isFinite(f)) return { tag: 'float', value: f };
    }
  }
  return { tag: 'str', value: text };
}

const DIGITS = '0123456789'.split('');

const never = (): boolean => false;

const goNullTag = defineScalarTag('tag:yaml.org,2002:null', {
  implicit: true,
  implicitFirstChars: ['', '~', 'n', 'N'],
  resolve: (s) => (goYamlResolve(s).tag === 'null' ? null : NOT_RESOLVED),
  identify: (v) => v === null,
});
const goBoolTag = defineScalarTag('tag:yaml.org,2002:bool', {
  implicit: true,
  implicitFirstChars: 'yYnNtTfFoO'.split(''),
  resolve: (s) => {
    const r = goYamlResolve(s);
    return r.tag === 'bool' ? r.value : NOT_RESOLVED;
  },
  identify: never,
});
const goIntTag = defineScalarTag('tag:yaml.org,2002:int', {
  implicit: true,
  implicitFirstChars: [...DIGITS, '+', '-'],
  resolve: (s) => {
    const r = goYamlResolve(s);
    return r.tag === 'int' ? r.value : NOT_RESOLVED;
  },
  identify: never,
});
const goFloatTag = defineScalarTag('tag:yaml.org,2002:float', {
  implicit: true,
  implicitFirstChars: [...DIGITS, '+', '-', '.'],
  resolve: (s, explicit) => {
    const r = goYamlResolve(s);
    if (r.tag === 'float') return new YamlFloat(r.value);
    // An explicit !!float accepts integers, as go-yaml converts them.
    if (explicit && r.tag === 'int') return new YamlFloat(Number(r.value));
    return NOT_RESOLVED;
  },
  identify: never,
});

/** The go-yaml v2 flavoured YAML 1.1 schema (no timestamps: go-yaml keeps them as strings). */
export const GO_YAML_SCHEMA = new Schema([strTag, seqTag, realMapTag, goNullTag, goBoolTag, goIntTag, goFloatTag, mergeTag, binaryTag]);

/** A YAML document that cannot be converted; `message` is upstream's text without the wrapper. */
export class YamlConvertError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'YamlConvertError';
  }
}

/**
 * Parses one YAML document (already split on `---` lines) and converts it to the JSON value
 * upstream would produce. Returns null for an empty/comment-only document. Throws
 * {@link YamlConvertError} with go-yaml-style `yaml: line N: ...` text (the reason is js-yaml's)
 * or sigs.k8s.io/yaml's conversion errors.
 */
export function yamlToJsonValue(text: string): JsonValue {
  let doc: unknown;
  try {
    // go-yaml decodes the first document of the text; an empty one is null.
    doc = loadAll(text, { schema: GO_YAML_SCHEMA, json: true, maxDepth: 10000 })[0];
  } catch (err) {
    if (err instanceof YAMLException) {
      const line = err.mark === undefined ? '' : `line ${err.mark.line + 1}: `;
      throw new YamlConvertError(`yaml: ${line}${err.reason}`);
    }
    throw err;
  }
  return convert(doc, 0);
}

function convert(v: unknown, depth: number): JsonValue {
  if (depth > 10000) throw new YamlConvertError('yaml: exceeded max depth of 10000');
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return v;
    case 'bigint':
      return Number(v);
  }
  if (v instanceof YamlFloat) {
    if (!Number.isFinite(v.value)) throw new YamlConvertError(`json: unsupported value: ${goFormatFloatG(v.value)}`);
    return v.value;
  }
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (Array.isArray(v)) return v.map((item) => convert(item, depth + 1));
  if (v instanceof Map) {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, item] of v) {
      const key = mapKey(k, item);
      const converted = convert(item, depth + 1);
      if (key === '__proto__') Object.defineProperty(out, key, { value: converted, enumerable: true, writable: true, configurable: true });
      else out[key] = converted;
    }
    return out;
  }
  return String(v);
}

// sigs.k8s.io/yaml's key conversion: ints as decimal, floats as float32 'g', bools as words.
function mapKey(k: unknown, value: unknown): string {
  if (typeof k === 'string') return k;
  if (typeof k === 'number' || typeof k === 'bigint') return k.toString();
  if (typeof k === 'boolean') return k ? 'true' : 'false';
  if (k instanceof YamlFloat) {
    const s = goFormatFloatG(k.value, 32);
    return s === '+Inf' ? '.inf' : s === '-Inf' ? '-.inf' : s === 'NaN' ? '.nan' : s;
  }
  const type = k === null || k === undefined ? '%!s(<nil>)' : Array.isArray(k) ? '[]interface {}' : 'map[interface {}]interface {}';
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value ?? '<nil>');
  throw new YamlConvertError(`unsupported map key of type: ${type}, key: ${k === null || k === undefined ? '<nil>' : String(k)}, value: ${shown}`);
}
