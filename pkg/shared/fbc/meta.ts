/**
 * Meta extraction (upstream `declcfg.Meta.UnmarshalJSON`): every document becomes `{schema,
 * package, name, blob}`, the three fields looked up case-insensitively (keys differing only by
 * case rejected), the blob the document in Go's canonical form plus "\n".
 */
import { encodeGoJson, NonFiniteNumberError } from './canonical-json.ts';
import { compareUtf8, goBoolVerb, goList, goQuote, goValueV } from '../../gocompat/gotext/index.ts';
import { findOverflowingNumber } from '../../gocompat/goyaml/index.ts';
import { prettyJsonError } from './json-pretty.ts';
import type { JsonValue, Meta } from './types.ts';

/** A document turned into a Meta, plus the decoded value typed decoding starts from. */
export interface DecodedMeta {
  meta: Meta;
  /**
   * The value the blob denotes (re-parsed from the blob when normalisation changed it, e.g. a
   * lone surrogate became U+FFFD), or undefined for the zero Meta of a blank YAML document.
   */
  value: JsonValue | undefined;
}

/** A document that cannot become a Meta; `message` is upstream's error text. */
export class MetaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MetaError';
  }
}

/** The Meta of a YAML document holding only blank lines and comments: every field empty. */
export const ZERO_META: Readonly<Meta> = Object.freeze({ schema: '', package: '', name: '', blob: '' });

/** True for the zero Meta (a blank/comment-only YAML document): catalogd skips these. */
export function isZeroMeta(meta: Meta): boolean {
  return meta.blob === '' && meta.schema === '' && meta.package === '' && meta.name === '';
}

const MAP_TYPE = 'map[string]interface {}';

/**
 * Builds the Meta of one decoded document (`rawData`: the JSON text Go would have handed to
 * `Meta.UnmarshalJSON`, for the pretty type error). Throws {@link MetaError} with upstream's message.
 */
export function metaFromValue(value: JsonValue, rawData: () => Uint8Array): DecodedMeta {
  if (value === null) {
    // json.Unmarshal of `null` into a map leaves it nil; Go then encodes the nil map as null.
    return { meta: { schema: '', package: '', name: '', blob: 'null\n' }, value: null };
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    const data = rawData();
    const kind = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
    // Go reports arrays right after the opening bracket and scalars after the literal.
    const offset = Array.isArray(value) ? 1 : data.length;
    throw new MetaError(prettyJsonError(`json: cannot unmarshal ${kind} into Go value of type ${MAP_TYPE}`, data, offset));
  }
  // Go fails on out-of-range numbers while decoding, before it looks at the keys.
  let encoded;
  try {
    encoded = encodeGoJson(value);
  } catch (err) {
    if (!(err instanceof NonFiniteNumberError)) throw err;
    throw new MetaError(overflowMessage(rawData()));
  }
  const fields = extractMetaFields(value);
  const blob = `${encoded.text}\n`;
  return {
    meta: { ...fields, blob },
    value: encoded.replacedSurrogates ? (JSON.parse(encoded.text) as JsonValue) : value,
  };
}

function overflowMessage(data: Uint8Array): string {
  const text = Buffer.from(data).toString('utf8');
  const found = findOverflowingNumber(text);
  if (found === undefined) return 'json: cannot unmarshal number into Go value of type float64';
  return prettyJsonError(`json: cannot unmarshal number ${found.literal} into Go value of type float64`, data, found.offset);
}

/** Unicode case folding as `golang.org/x/text/cases.Fold` applies it to JSON keys (approximation: upper then lower). */
function foldKey(key: string): string {
  return /^[\x00-\x7f]*$/.test(key) ? key.toLowerCase() : key.toUpperCase().toLowerCase();
}

const META_KEYS = ['schema', 'package', 'name'] as const;

/** Finds schema/package/name case-insensitively; throws on case-folded duplicate keys or non-strings. */
function extractMetaFields(obj: { [key: string]: JsonValue }): Omit<Meta, 'blob'> {
  const byFold = new Map<string, string[]>();
  for (const key of Object.keys(obj)) {
    const folded = foldKey(key);
    const group = byFold.get(folded);
    if (group === undefined) byFold.set(folded, [key]);
    else group.push(key);
  }
  const dupErrors: string[] = [];
  for (const [folded, keys] of [...byFold].sort((a, b) => compareUtf8(a[0], b[0]))) {
    if (keys.length > 1) dupErrors.push(`duplicate keys for key ${goQuote(folded)}: ${goList(keys.sort(compareUtf8))}`);
  }
  if (dupErrors.length === 1) throw new MetaError(dupErrors[0] as string);
  // k8s aggregate errors print as "[e1, e2]" when there is more than one.
  if (dupErrors.length > 1) throw new MetaError(`[${dupErrors.join(', ')}]`);

  const out = { schema: '', package: '', name: '' };
  for (const field of META_KEYS) {
    const key = byFold.get(field)?.[0];
    if (key === undefined) continue;
    const v = obj[key];
    if (typeof v !== 'string') {
      throw new MetaError(`expected value for key ${goQuote(key)} to be a string, got ${goBoolVerb(v)}: ${goValueV(v)}`);
    }
    out[field] = v;
  }
  return out;
}
