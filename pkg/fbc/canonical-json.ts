/**
 * JSON encoding exactly as Go's `encoding/json` writes a `map[string]interface{}`: object keys
 * sorted by their UTF-8 bytes at every level, compact, float64 numbers in shortest form (`-0`
 * kept), `\u2028`/`\u2029` escaped, and strings made well-formed (Go's decoder would have
 * replaced invalid sequences with U+FFFD). This is the hot path of catalog normalisation, so
 * it leans on the native `JSON.stringify` for string escaping and only falls back to a
 * character loop for the rare strings that need Go-specific treatment.
 */
import { compareUtf8 } from '../gotext/index.ts';
import type { JsonValue } from './types.ts';

/** Thrown when a number cannot be represented (JSON.parse turned an out-of-range literal into ±Infinity). */
export class NonFiniteNumberError extends Error {
  constructor() {
    super('non-finite number');
    this.name = 'NonFiniteNumberError';
  }
}

/** Options of {@link encodeGoJson}. */
export interface GoJsonOptions {
  /** Escape `<`, `>` and `&` as `\u003c` etc., as Go's default (non-`SetEscapeHTML(false)`) encoder does. */
  escapeHtml?: boolean;
}

/** The outcome of {@link encodeGoJson}. */
export interface GoJsonResult {
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
  const enc = new Encoder(opts.escapeHtml === true);
  const text = enc.value(value);
  return { text, replacedSurrogates: enc.replacedSurrogates };
}

/** Shorthand for `encodeGoJson(value).text`. */
export function canonicalJson(value: JsonValue): string {
  return new Encoder(false).value(value);
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
