/**
 * Formatting of `spec.config` schema violations into upstream's messages
 * (`config.UnmarshalConfig`): each unit of the validator's flattened output becomes one
 * line such as `required field "watchNamespace" is missing`, `unknown field "x"`,
 * `invalid type for field "a.b": got number, want string`; several lines are combined as
 * `multiple errors found:\n  - a\n  - b`.
 */
import { goQuote } from '../../gocompat/gotext/index.ts';
import { basicOutput, type ErrorKind, type OutputUnit, type ValidationError } from './json-schema.ts';

/** The message for a failed validation (without the `invalid configuration: ` prefix). */
export function formatSchemaError(root: ValidationError): string {
  const messages = basicOutput(root)
    .map(formatUnit)
    .filter((m) => m !== '');
  if (messages.length === 0) return `invalid configuration: ${kindString(root.kind)}`;
  if (messages.length === 1) return messages[0] as string;
  return `multiple errors found:\n  - ${messages.join('\n  - ')}`;
}

function formatUnit(unit: OutputUnit): string {
  const k = unit.kind;
  const path = fieldPath(unit.location);
  const text = kindString(k);
  switch (k.k) {
    case 'required': {
      const field = firstQuoted(text);
      return field === undefined ? 'required field is missing' : `required field ${goQuote(field)} is missing`;
    }
    case 'additionalProperties': {
      const field = firstQuoted(text);
      return field === undefined ? 'unknown field' : `unknown field ${goQuote(field)}`;
    }
    case 'type':
      if (path === '') return `invalid type: ${text}`;
      if (text.includes('got null')) return `required field ${goQuote(path)} is missing`;
      return `invalid type for field ${goQuote(path)}: ${text}`;
    case 'format':
      return path === '' ? `invalid format: ${text}` : `invalid format for field ${goQuote(path)}: ${text}`;
    case 'anyOf':
      return path === '' ? 'invalid value' : `invalid value for field ${goQuote(path)}`;
    case 'maxLength':
      return path === '' ? text : `field ${goQuote(path)} must have maximum length of ${k.want} (len=${k.got})`;
    case 'minLength':
      return path === '' ? text : `field ${goQuote(path)} must have minimum length of ${k.want} (len=${k.got})`;
    case 'pattern':
      return path === '' ? text : `field ${goQuote(path)} must match pattern ${goQuote(k.want)}`;
    default:
      return text;
  }
}

/** The library's own text for an error kind. */
function kindString(k: ErrorKind): string {
  switch (k.k) {
    case 'schema':
      return `jsonschema validation failed with ${libQuote('config-schema.json#')}`;
    case 'group':
    case 'reference':
      return 'validation failed';
    case 'allOf':
      return 'allOf failed';
    case 'anyOf':
      return 'anyOf failed';
    case 'oneOf':
      return k.matched === undefined ? 'oneOf failed, none matched' : `oneOf failed, subschemas ${k.matched[0]}, ${k.matched[1]} matched`;
    case 'type':
      return `got ${k.got}, want ${k.want.join(' or ')}`;
    case 'format':
      return `${display(k.got)} is not valid ${k.want}: ${k.err}`;
    case 'required':
      return k.missing.length === 1
        ? `missing property ${libQuote(k.missing[0] as string)}`
        : `missing properties ${k.missing.map(libQuote).join(', ')}`;
    case 'additionalProperties':
      return `additional properties ${k.properties.map(libQuote).join(', ')} not allowed`;
    case 'minLength':
      return `minLength: got ${k.got}, want ${k.want}`;
    case 'maxLength':
      return `maxLength: got ${k.got}, want ${k.want}`;
    case 'pattern':
      return `${libQuote(k.got)} does not match pattern ${libQuote(k.want)}`;
  }
}

// The library quotes with single quotes: Go %q, then `\"` -> `"` and `'` -> `\'`.
function libQuote(s: string): string {
  const q = goQuote(s).slice(1, -1).replaceAll('\\"', '"').replaceAll("'", "\\'");
  return `'${q}'`;
}

function display(v: unknown): string {
  if (typeof v === 'string') return libQuote(v);
  if (typeof v === 'object' && v !== null) return 'value';
  return String(v);
}

// Upstream takes the text between the first two single quotes of the library message.
function firstQuoted(text: string): string | undefined {
  const start = text.indexOf("'");
  if (start === -1) return undefined;
  const end = text.indexOf("'", start + 1);
  return end === -1 ? undefined : text.slice(start + 1, end);
}

// JSON pointer tokens (escaped `~` -> `~0`, `/` -> `~1`) joined with ".".
function fieldPath(location: readonly string[]): string {
  return location.map((t) => t.replaceAll('~', '~0').replaceAll('/', '~1')).join('.');
}
