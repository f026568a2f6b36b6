/**
 * One decoded document into a Meta, with each decoding path's error wording: JSON values reach
 * `Meta.UnmarshalJSON` directly; YAML goes through sigs.k8s.io/yaml, which prefixes `error
 * converting YAML to JSON: ` or `error unmarshaling JSON: while decoding JSON: `.
 */
import { encodeGoJson } from './canonical-json.ts';
import { type DecodedMeta, MetaError, metaFromValue, ZERO_META } from './meta.ts';
import type { JsonValue } from './types.ts';
import { DecodeLimitError, YamlConvertError, yamlToJsonValue } from '../../gocompat/goyaml/index.ts';

/** The result of decoding one document: a Meta, or upstream's error text. */
export type DocumentResult = { ok: true; decoded: DecodedMeta } | { ok: false; detail: string };

/** Meta of a value read from a JSON stream; `raw` is the value's bytes (for pretty type errors). */
export function decodeJsonDocument(value: JsonValue, raw: () => Uint8Array): DocumentResult {
  try {
    return { ok: true, decoded: metaFromValue(value, raw) };
  } catch (err) {
    if (err instanceof MetaError) return { ok: false, detail: err.message };
    throw err;
  }
}

/**
 * Meta of one YAML document's text. A document of only blank lines and comments yields the
 * zero Meta (upstream leaves `Meta` untouched when the document converts to JSON null).
 * A scalar longer than `maxStringBytes` fails with our limit message.
 */
export function decodeYamlDocument(text: string, maxStringBytes?: number): DocumentResult {
  let value: JsonValue;
  try {
    value = yamlToJsonValue(text, maxStringBytes === undefined ? {} : { maxStringBytes });
  } catch (err) {
    if (err instanceof YamlConvertError) return { ok: false, detail: `error converting YAML to JSON: ${err.message}` };
    if (err instanceof DecodeLimitError) return { ok: false, detail: err.message };
    throw err;
  }
  if (value === null) return { ok: true, decoded: { meta: { ...ZERO_META }, value: undefined } };
  try {
    // sigs.k8s.io/yaml hands Meta the output of Go's json.Marshal: HTML-escaped, keys sorted.
    const raw = (): Uint8Array => Buffer.from(encodeGoJson(value, { escapeHtml: true }).text);
    return { ok: true, decoded: metaFromValue(value, raw) };
  } catch (err) {
    if (err instanceof MetaError) return { ok: false, detail: `error unmarshaling JSON: while decoding JSON: ${err.message}` };
    throw err;
  }
}
