/**
 * The few Go renderings that YAML conversion errors embed: `%#v` of decoded YAML values
 * (`[]interface {}{1, "a"}`, `map[interface {}]interface {}{"a":1}`), Go's float32 `'g'`
 * key format, and Go's handling of invalid UTF-8 when a string is marshalled to JSON.
 */
import { goFormatFloatG, goQuote } from '../gotext/index.ts';
import type { JsonValue } from './types.ts';

/** Go's `%#v` of a value decoded by go-yaml into interface{} (maps print with sorted keys). */
export function goSharpV(v: JsonValue): string {
  if (v === null) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : goFormatFloatG(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSharpV).join(', ')}}`;
  const keys = Object.keys(v).sort();
  return `map[interface {}]interface {}{${keys.map((k) => `${goQuote(k)}:${goSharpV(v[k] as JsonValue)}`).join(', ')}}`;
}

/** sigs.k8s.io/yaml's key text of a float key: float32 `'g'`, with YAML's spellings of Inf/NaN. */
export function floatKey(f: number): string {
  const s = goFormatFloatG(f, 32);
  return s === '+Inf' ? '.inf' : s === '-Inf' ? '-.inf' : s === 'NaN' ? '.nan' : s;
}

/**
 * `string(bytes)` as Go's json.Marshal writes it: each byte that does not start a valid UTF-8
 * sequence becomes U+FFFD on its own (TextDecoder would merge a truncated sequence into one).
 */
export function goBytesToString(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const size = validSequenceLength(bytes, i);
    if (size === 0) {
      out += '\uFFFD';
      i++;
      continue;
    }
    out += Buffer.from(bytes.subarray(i, i + size)).toString('utf8');
    i += size;
  }
  return out;
}

/** Length of the valid UTF-8 sequence at `i` (Go's utf8.DecodeRune rules), 0 when invalid. */
export function validSequenceLength(b: Uint8Array, i: number): number {
  const c = b[i] as number;
  if (c < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean => {
    const x = b[i + k];
    return x !== undefined && x >= lo && x <= hi;
  };
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if (c === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (c >= 0xe1 && c <= 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (c === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/** Go's `%+#v` of a decoded value as sigs.k8s.io/yaml prints it in key errors (strings quoted). */
export function goPlusSharpV(v: JsonValue): string {
  return v === null ? '<nil>' : goSharpV(v);
}
