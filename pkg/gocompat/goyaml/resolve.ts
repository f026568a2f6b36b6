/**
 * go-yaml v2's resolution of plain (untagged, unquoted) scalars, as go.yaml.in/yaml/v2
 * v2.4.4 (the version upstream OLM links through sigs.k8s.io/yaml v1.6.0) performs it:
 * YAML 1.1 booleans (`y`/`yes`/`on`/... in three casings), `~`/`null`, `.inf`/`.nan`, integers
 * through Go's `strconv.ParseInt(s, 0, 64)` then `ParseUint` (so `0x1F`, `0o17`, `0b101`,
 * `017` and `_` separators), floats only when they fit float64 (`1e400` stays a string).
 * Sexagesimal numbers (`1:30`) and timestamps stay strings.
 */
import { YamlConvertError } from './errors.ts';
import { goBytesToString } from './go-format.ts';

/** The prefix of the YAML core tags: `!!int` is `tag:yaml.org,2002:int`. */
export const TAG_PREFIX = 'tag:yaml.org,2002:';

/** A resolved scalar. Integers beyond 2^53 are bigints, as Go keeps them exact until JSON. */
export type Resolved =
  | { tag: 'null'; value: null }
  | { tag: 'bool'; value: boolean }
  | { tag: 'int'; value: number | bigint }
  | { tag: 'float'; value: number }
  | { tag: 'str'; value: string };

const KNOWN = new Map<string, Resolved>();
for (const s of ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']) KNOWN.set(s, { tag: 'bool', value: true });
for (const s of ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']) KNOWN.set(s, { tag: 'bool', value: false });
for (const s of ['', '~', 'null', 'Null', 'NULL']) KNOWN.set(s, { tag: 'null', value: null });
for (const s of ['.nan', '.NaN', '.NAN']) KNOWN.set(s, { tag: 'float', value: NaN });
for (const s of ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF']) KNOWN.set(s, { tag: 'float', value: Infinity });
for (const s of ['-.inf', '-.Inf', '-.INF']) KNOWN.set(s, { tag: 'float', value: -Infinity });

// The literal forms strconv.ParseInt/ParseUint accept with base 0 (after `_` removal).
const GO_INT = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;
// go-yaml's yamlStyleFloat: only these shapes reach strconv.ParseFloat.
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const SAFE_MIN = BigInt(Number.MIN_SAFE_INTEGER);
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** Go's strconv.ParseInt(s, 0, 64), then ParseUint(s, 0, 64); undefined when both fail. */
function parseGoInt(plain: string): number | bigint | undefined {
  const m = GO_INT.exec(plain);
  if (m === null) return undefined;
  const sign = m[1] ?? '';
  const body = m[2] ?? '';
  if (sign === '' && body.length < 16 && body[0] !== '0') return Number(body);
  const digits = body.length > 1 && body[0] === '0' && body[1] !== undefined && body[1] >= '0' && body[1] <= '7' ? `0o${body.slice(1)}` : body;
  let n = BigInt(digits);
  if (sign === '-') n = -n;
  const fits = (n >= INT64_MIN && n <= INT64_MAX) || (sign === '' && n <= UINT64_MAX);
  if (!fits) return undefined;
  return n >= SAFE_MIN && n <= SAFE_MAX ? Number(n) : n;
}

/** Go's strconv.ParseFloat(s, 64) for yamlStyleFloat shapes; undefined on overflow. */
function parseGoFloat(plain: string): number | undefined {
  if (!YAML_STYLE_FLOAT.test(plain)) return undefined;
  const f = Number(plain);
  // ParseFloat fails with ErrRange on overflow; go-yaml then keeps the string.
  return Number.isFinite(f) ? f : undefined;
}

/** go-yaml v2's `resolve` of an untagged plain scalar. */
export function resolvePlain(text: string): Resolved {
  const c = text.charCodeAt(0);
  const isDigit = c >= 0x30 && c <= 0x39;
  // go-yaml's resolve table: only these first characters can start a non-string.
  if (!(text === '' || isDigit || c === 0x2b || c === 0x2d || c === 0x2e || 'yYnNtTfFoO~'.includes(text[0] as string))) {
    return { tag: 'str', value: text };
  }
  const known = KNOWN.get(text);
  if (known !== undefined) return known;
  if (c === 0x2e) {
    const f = parseGoFloat(text);
    return f === undefined ? { tag: 'str', value: text } : { tag: 'float', value: f };
  }
  if (isDigit || c === 0x2b || c === 0x2d) {
    const plain = text.includes('_') ? text.replaceAll('_', '') : text;
    const i = parseGoInt(plain);
    if (i !== undefined) return { tag: 'int', value: i };
    const f = parseGoFloat(plain);
    if (f !== undefined) return { tag: 'float', value: f };
  }
  return { tag: 'str', value: text };
}

const SHORT: Record<Resolved['tag'], string> = { null: '!!null', bool: '!!bool', int: '!!int', float: '!!float', str: '!!str' };

/**
 * go-yaml's resolve() of a scalar with an explicit tag (already expanded: `!!int` is
 * `tag:yaml.org,2002:int`). Unknown tags keep the text, `!!binary` is base64-decoded.
 * @throws YamlConvertError with go-yaml's `cannot decode ...` or `!!binary ...` text.
 */
export function resolveTagged(tag: string, raw: string): Resolved {
  if (!tag.startsWith(TAG_PREFIX)) return { tag: 'str', value: raw };
  const name = tag.slice(TAG_PREFIX.length);
  switch (name) {
    case 'str':
    case 'merge':
      return { tag: 'str', value: raw };
    case 'binary':
      return { tag: 'str', value: decodeBinary(raw) };
    case 'timestamp':
    case 'null':
    case 'bool':
    case 'int':
    case 'float': {
      const r = resolvePlain(raw);
      if (r.tag === name) return r;
      if (name === 'float' && r.tag === 'int') return { tag: 'float', value: Number(r.value) };
      if (name === 'timestamp' && TIMESTAMP.test(raw)) return { tag: 'str', value: raw };
      throw new YamlConvertError(`yaml: cannot decode ${name === 'timestamp' && r.tag === 'str' ? '!!str' : SHORT[r.tag]} \`${raw}\` as a !!${name}`);
    }
    default:
      // Tags go-yaml does not resolve keep the text.
      return { tag: 'str', value: raw };
  }
}

// The shapes go-yaml's parseTimestamp accepts (it keeps the text for interface{} targets).
const TIMESTAMP =
  /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?$/;

// base64.StdEncoding.DecodeString: CR and LF ignored, padding required.
function decodeBinary(raw: string): string {
  const s = raw.replace(/[\r\n]/g, '');
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s)) {
    throw new YamlConvertError('yaml: !!binary value contains invalid base64 data');
  }
  return goBytesToString(Buffer.from(s, 'base64'));
}
