/**
 * JSON encoding exactly as Go's `encoding/json` writes a `map[string]interface{}`: keys sorted
 * by UTF-8 bytes at every level, compact, shortest float64 numbers (`-0` kept), `\u2028`/`\u2029`
 * escaped, strings made well-formed (as Go's decoder replaces invalid sequences with U+FFFD).
 * The hot path of catalog normalisation: native `JSON.stringify` does the escaping, a character
 * loop only the rare strings that need Go-specific treatment.
 */
import { compareUtf8 } from '../../gocompat/gotext/index.ts';
import type { JsonValue } from './types.ts';

/** Thrown when a number cannot be represented (JSON.parse turned an out-of-range literal into ±Infinity). */
export class NonFiniteNumberError extends Error {
  constructor() {
    super('non-finite number');
    this.name = 'NonFiniteNumberError';
  }
}

interface GoJsonOptions {
  /** Escape `<`, `>` and `&` as `\u003c` etc., as Go's default (non-`SetEscapeHTML(false)`) encoder does. */
  escapeHtml?: boolean;
  /** False skips the native fast path (tests compare the two paths). Default true. */
  native?: boolean;
}

/** The outcome of {@link encodeGoJson}. */
interface GoJsonResult {
  text: string;
  /** True when some string contained a lone surrogate that was replaced by U+FFFD. */
  replacedSurrogates: boolean;
}

// What JSON.stringify's output may need fixing for: \u2028/\u2029 (and <>& in HTML mode),
// and the \udXXX escapes it writes for lone surrogates. One scan finds either.
const PLAIN_SPECIAL = /[\u2028\u2029]|\\ud[89a-f]/;
const HTML_SPECIAL = /[\u2028\u2029<>&]|\\ud[89a-f]/;

/**
 * Encodes a JSON value (as produced by JSON.parse) the way Go's encoder writes the decoded
 * generic value. Throws {@link NonFiniteNumberError} for ±Infinity/NaN.
 */
export function encodeGoJson(value: JsonValue, opts: GoJsonOptions = {}): GoJsonResult {
  const html = opts.escapeHtml === true;
  const fast = html || opts.native === false ? undefined : nativeEncoding(value);
  if (fast !== undefined) return { text: fast, replacedSurrogates: false };
  const enc = new Encoder(html);
  const text = enc.value(value);
  return { text, replacedSurrogates: enc.replacedSurrogates };
}

/** Shorthand for `encodeGoJson(value).text`. */
export function canonicalJson(value: JsonValue): string {
  return nativeEncoding(value) ?? new Encoder(false).value(value);
}

/**
 * The fast path: one native `JSON.stringify` with every object's keys in Go's order (out-of-order
 * objects copied with sorted keys). Its output equals Go's unless a number is `-0` or
 * non-finite, a key could be an array index (V8 enumerates those first) or sorts differently in
 * UTF-16 and UTF-8 (at or above U+D800), or the text holds a \u2028/\u2029 or lone-surrogate
 * escape: then undefined, and the encoder does it. One flat native string instead of a rope of
 * small pieces is what makes normalisation cheap in time and garbage.
 */
function nativeEncoding(value: JsonValue): string | undefined {
  const ordered = inGoOrder(value);
  if (ordered === NOT_NATIVE) return undefined;
  const text = JSON.stringify(ordered);
  return PLAIN_SPECIAL.test(text) ? undefined : text;
}

const NOT_NATIVE: unique symbol = Symbol('not native');

// False for keys V8 may enumerate out of insertion order (array indices) or whose UTF-16 and UTF-8
// orders may differ (units >= U+D800). A plain loop: it runs for every key of every document.
function nativeOrderKey(k: string): boolean {
  const first = k.charCodeAt(0);
  if (first >= 0x30 && first <= 0x39) return false;
  for (let i = 0; i < k.length; i++) if (k.charCodeAt(i) >= 0xd800) return false;
  return true;
}

// Returns `v` itself when it needs no reordering, a reordered copy, or NOT_NATIVE.
function inGoOrder(v: JsonValue): JsonValue | typeof NOT_NATIVE {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0) ? v : NOT_NATIVE;
  if (Array.isArray(v)) {
    let copy: JsonValue[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const item = v[i] as JsonValue;
      const ordered = inGoOrder(item);
      if (ordered === NOT_NATIVE) return NOT_NATIVE;
      if (ordered !== item) (copy ??= v.slice())[i] = ordered;
    }
    return copy ?? v;
  }
  const keys = Object.keys(v);
  let sorted = true;
  let values: JsonValue[] | undefined; // allocated once a value had to be reordered
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    if (!nativeOrderKey(k)) return NOT_NATIVE;
    if (i > 0 && (keys[i - 1] as string) >= k) sorted = false;
    const item = v[k] as JsonValue;
    const ordered = inGoOrder(item);
    if (ordered === NOT_NATIVE) return NOT_NATIVE;
    if (ordered !== item && values === undefined) values = keys.slice(0, i).map((key) => v[key] as JsonValue);
    values?.push(ordered);
  }
  if (sorted && values === undefined) return v;
  const vals = values ?? keys.map((key) => v[key] as JsonValue);
  const order = keys.map((_, i) => i);
  if (!sorted) order.sort((a, b) => ((keys[a] as string) < (keys[b] as string) ? -1 : 1));
  return Object.fromEntries(order.map((i) => [keys[i] as string, vals[i] as JsonValue]));
}

/** Go's float64 JSON number text: shortest round-trip form, same exponent thresholds as JS, `-0` kept. */
export function goJsonNumber(n: number): string {
  if (!Number.isFinite(n)) throw new NonFiniteNumberError();
  if (n === 0 && Object.is(n, -0)) return '-0';
  return String(n);
}

class Encoder {
  replacedSurrogates = false;
  private readonly special: RegExp;
  private readonly html: boolean;

  constructor(html: boolean) {
    this.html = html;
    this.special = html ? HTML_SPECIAL : PLAIN_SPECIAL;
  }

  value(v: JsonValue): string {
    if (v === null) return 'null';
    switch (typeof v) {
      case 'string':
        return this.string(v);
      case 'number':
        return goJsonNumber(v);
      case 'boolean':
        return v ? 'true' : 'false';
    }
    if (Array.isArray(v)) {
      let s = '[';
      for (let i = 0; i < v.length; i++) {
        if (i > 0) s += ',';
        s += this.value(v[i] as JsonValue);
      }
      return `${s}]`;
    }
    const keys = sortedKeys(v);
    let s = '{';
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      if (i > 0) s += ',';
      s += this.string(k);
      s += ':';
      s += this.value(v[k] as JsonValue);
    }
    return `${s}}`;
  }

  string(raw: string): string {
    const quoted = JSON.stringify(raw);
    // A literal backslash before "ud8.." is a harmless false hit: it only takes the slow path.
    if (!this.special.test(quoted)) return quoted;
    let s = raw;
    if (!s.isWellFormed()) {
      s = s.toWellFormed();
      this.replacedSurrogates = true;
    }
    const requoted = JSON.stringify(s);
    return this.html ? requoted.replace(/[\u2028\u2029<>&]/g, escapeChar) : requoted.replace(/[\u2028\u2029]/g, escapeChar);
  }
}

function escapeChar(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** Object keys in Go's map-key order (UTF-8 byte order). */
export function sortedKeys(obj: object): string[] {
  const keys = Object.keys(obj);
  if (keys.length < 2) return keys;
  let astral = false;
  for (const k of keys) {
    if (/[\ud800-\uffff]/.test(k)) {
      astral = true;
      break;
    }
  }
  // UTF-16 order equals UTF-8 byte order unless a key holds characters at or above U+D800.
  return astral ? keys.sort(compareUtf8) : keys.sort();
}
