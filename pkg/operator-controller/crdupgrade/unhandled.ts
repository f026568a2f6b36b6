/**
 * The `unhandled` rule: any difference the property rules did not consume (a `format`, CEL
 * `x-kubernetes-validations`, `x-kubernetes-*` markers, `additionalProperties`, ...) blocks
 * the upgrade (OLM fails closed). The text is OLM's concise form,
 * `unhandled changes found (<Field> <before> -> <after>; ...)`, one entry per changed Go field
 * in declaration order, values rendered as Go prints them, nested schemas as `<complex value>`
 * and ` (changed)` added when both sides render alike.
 */
import { goFormatFloatG, goQuote } from '../../gocompat/gotext/index.ts';
import { RULE_FIELDS, SCHEMA_FIELDS, sameJson, type FieldKind, type Json, type Schema } from './schema.ts';

/** The concise unhandled text for the remaining differences of `a` and `b`, if any. */
export function unhandledChanges(a: Schema, b: Schema): string | undefined {
  const details: string[] = [];
  for (const f of SCHEMA_FIELDS) {
    const before = a[f.key];
    const after = b[f.key];
    if (sameJson(before, after)) continue;
    const x = renderField(f.kind, before);
    let y = renderField(f.kind, after);
    if (x === y) y += ' (changed)';
    details.push(`${f.goName} ${x} -> ${y}`);
  }
  return details.length === 0 ? undefined : `unhandled changes found (${details.join('; ')})`;
}

const COMPLEX = '<complex value>';

/** A field's value as go-cmp prints it (`v1.` dropped, as OLM does), `nil` for absent pointers and lists. */
function renderField(kind: FieldKind, v: Json | undefined): string {
  switch (kind) {
    case 'string':
      return goQuote(typeof v === 'string' ? v : '');
    case 'bool':
      return v === true ? 'true' : 'false';
  }
  if (v === undefined) return 'nil';
  switch (kind) {
    case 'ptrString':
      return `&${goQuote(String(v))}`;
    case 'ptrBool':
      return `&${String(v)}`;
    case 'ptrNumber':
      return `&${typeof v === 'number' ? goFormatFloatG(v) : String(v)}`;
    case 'stringList':
      return `[]string{${(v as string[]).map(goQuote).join(', ')}}`;
    case 'rules':
      return `ValidationRules{${(v as { [key: string]: Json }[]).map(renderRule).join(', ')}}`;
    default:
      return COMPLEX;
  }
}

// A ValidationRule as go-cmp prints a struct on one line: non-zero fields in declaration order.
function renderRule(rule: { [key: string]: Json }): string {
  const parts: string[] = [];
  for (const [key, goName, pointer] of RULE_FIELDS) {
    const v = rule[key];
    if (v === undefined) continue;
    const text = typeof v === 'string' ? goQuote(v) : String(v);
    parts.push(`${goName}: ${pointer ? '&' : ''}${text}`);
  }
  return `{${parts.join(', ')}}`;
}
