/**
 * Go-compatible YAML and JSON decoding: what upstream OLM gets from sigs.k8s.io/yaml over
 * go-yaml v2, apimachinery's YAMLOrJSONDecoder and encoding/json's scanner. Pure: text or
 * bytes in, JSON values or Go's error texts out. See docs/decisions/0022.
 */
export type { JsonValue } from './types.ts';
export { type ConvertOptions, yamlToJsonValue } from './convert.ts';
export { DecodeLimitError, YamlConvertError } from './errors.ts';
export { inFileNumbering, type DocumentPosition, type FileNumberedError } from './file-lines.ts';
export { MAX_NESTING_DEPTH } from './limits.ts';
export { resolvePlain, type Resolved } from './resolve.ts';
export { decodeDocuments, decodeSingleDocument, decodeUtf8, decodeYamlOrJson, type DecodedStream } from './stream.ts';
export {
  findOverflowingNumber,
  goQuoteChar,
  goUnmarshalSyntaxError,
  numberLiteralEnd,
  scanJsonValue,
  type RawJson,
  type ScanResult,
} from './json-scan.ts';
export { compactRaw, goJsonKindName, scanJson, splitJsonStream } from './raw-json.ts';
export { type BoundaryScan, findValueEnd, NEEDS_MORE, STRING_TOO_LONG, TOO_DEEP } from './json-boundary.ts';
export { PARITY_CASES, type ConvertAnswer, type ParityCase, type StreamAnswer } from './parity-cases.ts';
