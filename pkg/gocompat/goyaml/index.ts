/**
 * Go-compatible YAML and JSON decoding: what upstream OLM gets from sigs.k8s.io/yaml over
 * go-yaml v2, apimachinery's YAMLOrJSONDecoder and encoding/json's scanner. Pure: text or
 * bytes in, JSON values or Go's error texts out. See docs/decisions/0022.
 */
export { yamlToJsonValue } from './convert.ts';
export { DecodeLimitError, YamlConvertError } from './errors.ts';
export { inFileNumbering } from './file-lines.ts';
export { decodeDocuments, decodeSingleDocument, decodeUtf8, decodeYamlOrJson } from './stream.ts';
export { findOverflowingNumber, goUnmarshalSyntaxError, scanJsonValue, type RawJson } from './json-scan.ts';
export { compactRaw, goJsonKindName, scanJson } from './raw-json.ts';
export { type BoundaryScan, findValueEnd, NEEDS_MORE, STRING_TOO_LONG, TOO_DEEP } from './json-boundary.ts';
