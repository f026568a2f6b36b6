/**
 * Deterministic YAML of rendered objects: one `---` document per object, keys sorted, no line
 * folding, no anchors, ambiguous strings quoted. Strings longer than LONG_STRING are written by
 * us, double-quoted on one line through a placeholder, since js-yaml's style detection
 * overflows V8's regexp stack at about 2 MB; shorter strings keep js-yaml's styles.
 */
import { randomBytes } from 'node:crypto';
import { dump } from 'js-yaml';
import type { KubeObject } from '../bundle/index.ts';

/** Strings longer than this (UTF-16 units) bypass js-yaml's style detection. */
export const LONG_STRING = 256 * 1024;

/** Options of {@link toYaml}. */
interface YamlOptions {
  /** Sort map keys (by UTF-16 code units, js-yaml's order); default true. */
  sortKeys?: boolean;
}

/**
 * `value` as one YAML document (without a `---` separator), ending in "\n": block style, no
 * line folding, no anchors, any string length.
 *
 * @throws Error for a map key longer than LONG_STRING (YAML's implicit keys are limited to
 *   1024 characters; no real manifest comes close).
 */
export function toYaml(value: unknown, options: YamlOptions = {}): string {
  const sortKeys = options.sortKeys ?? true;
  const long: string[] = [];
  const prefix = `olmv1-long-string-${randomBytes(8).toString('hex')}-`;
  const replaced = replaceLong(value, prefix, long);
  const text = dump(replaced, { sortKeys, lineWidth: -1, noRefs: true, skipInvalid: true });
  if (long.length === 0) return text;
  return text.replace(new RegExp(`${prefix}(\\d+)`, 'g'), (_, i: string) => doubleQuoted(long[Number(i)] as string));
}

/** All objects as a multi-document YAML stream, in the given order. */
export function objectsToYaml(objects: readonly KubeObject[]): string {
  return objects.map((o) => `---\n${toYaml(o)}`).join('');
}

// A copy of `v` with every string longer than LONG_STRING replaced by `prefix<n>` (its index in
// `long`); `v` itself when it has none. Only plain data is walked (what the decoders produce).
function replaceLong(v: unknown, prefix: string, long: string[]): unknown {
  if (typeof v === 'string') {
    if (v.length <= LONG_STRING) return v;
    long.push(v);
    return `${prefix}${long.length - 1}`;
  }
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const item = replaceLong(v[i], prefix, long);
      if (item !== v[i]) (copy ??= v.slice())[i] = item;
    }
    return copy ?? v;
  }
  if (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) return v;
  const obj = v as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(obj)) {
    if (key.length > LONG_STRING) throw new Error(`a map key of ${key.length} characters cannot be written as YAML (limit ${LONG_STRING})`);
    const item = replaceLong(obj[key], prefix, long);
    if (item === obj[key]) continue;
    copy ??= { ...obj };
    // A `__proto__` key is data here, not the prototype.
    Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
  }
  return copy ?? v;
}

// YAML's double-quoted style: JSON's escapes, plus escapes for what YAML does not allow raw
// (DEL, C1 controls, BOM, U+FFFE/U+FFFF) or reads as a line break (NEL, LS, PS).
function doubleQuoted(s: string): string {
  return JSON.stringify(s.toWellFormed()).replace(
    /[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
