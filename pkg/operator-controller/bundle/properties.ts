/**
 * The `olm.properties` merge of registry+v1 bundles: properties declared in the CSV's
 * `olm.properties` annotation (a JSON array of `{type, value}`) come first, then those of
 * `metadata/properties.yaml`; the result replaces the annotation as compact JSON. The bytes
 * are what upstream writes (Go `json.Marshal` of `[]property.Property`): annotation values
 * are kept verbatim (compacted, HTML-escaped), properties.yaml values go through YAML-to-JSON
 * conversion (keys sorted, so an unquoted `4.10` becomes `4.1`).
 */
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { GoJsonUnsupportedValueError, goJsonMarshal, goJsonString } from './go-json.ts';
import { compactRaw, decodeSingleDocument, decodeUtf8, goJsonKindName, scanJson, type RawJson } from '../../gocompat/goyaml/index.ts';

/** The annotation key holding a bundle's properties. */
export const OLM_PROPERTIES_ANNOTATION = 'olm.properties';

/** One property as the JSON text of its `type` and `value`. */
interface EncodedProperty {
  type: string;
  value: string;
}

/**
 * Returns the CSV annotations with `olm.properties` merged as described above, or the input
 * unchanged when `propertiesYaml` is absent or empty.
 *
 * Errors (verbatim upstream prefixes):
 * `failed to unmarshal csv.metadata.annotations['olm.properties']: <json error>` and
 * `failed to unmarshal metadata/properties.yaml: <error>`.
 */
export function mergeOlmProperties(
  annotations: Readonly<Record<string, string>> | undefined,
  propertiesYaml: Uint8Array | undefined,
): Result<Readonly<Record<string, string>> | undefined, string> {
  let fromCsv: EncodedProperty[] = [];
  const annotation = annotations?.[OLM_PROPERTIES_ANNOTATION];
  if (annotation !== undefined) {
    const parsed = parseAnnotation(annotation);
    if (!parsed.ok) return err(`failed to unmarshal csv.metadata.annotations['olm.properties']: ${parsed.error}`);
    fromCsv = parsed.value;
  }
  if (propertiesYaml === undefined || propertiesYaml.length === 0) return ok(annotations);

  const fromFile = parsePropertiesYaml(propertiesYaml);
  if (!fromFile.ok) return err(`failed to unmarshal metadata/properties.yaml: ${fromFile.error}`);

  const all = [...fromCsv, ...fromFile.value];
  // Go marshals a nil slice (no properties at all) as `null`.
  const merged = all.length === 0 ? 'null' : `[${all.map((p) => `{"type":${p.type},"value":${p.value}}`).join(',')}]`;
  return ok({ ...annotations, [OLM_PROPERTIES_ANNOTATION]: merged });
}

function parseAnnotation(text: string): Result<EncodedProperty[], string> {
  const scanned = scanJson(text);
  if (!scanned.ok) return scanned;
  const root = scanned.value;
  if (root.kind === 'null') return ok([]);
  if (root.kind !== 'array') {
    return err(`json: cannot unmarshal ${goJsonKindName(root)} into Go value of type []property.Property`);
  }
  const out: EncodedProperty[] = [];
  for (const item of root.items) {
    if (item.kind === 'null') {
      out.push({ type: '""', value: 'null' });
      continue;
    }
    if (item.kind !== 'object') {
      return err(`json: cannot unmarshal ${goJsonKindName(item)} into Go value of type property.Property`);
    }
    let type = '""';
    let value = 'null';
    // Go matches struct fields exactly first, then case-insensitively; later keys win.
    for (const { key, value: member } of item.members) {
      const field = key === 'type' || key === 'value' ? key : key.toLowerCase();
      if (field === 'type') {
        if (member.kind === 'null') continue;
        if (member.kind !== 'string') {
          return err(`json: cannot unmarshal ${goJsonKindName(member)} into Go struct field Property.type of type string`);
        }
        type = goJsonString(JSON.parse(text.slice(member.start, member.end)) as string);
      } else if (field === 'value') {
        value = compactRaw(text, member satisfies RawJson);
      }
    }
    out.push({ type, value });
  }
  return ok(out);
}

function parsePropertiesYaml(bytes: Uint8Array): Result<EncodedProperty[], string> {
  const text = decodeUtf8(bytes);
  if (!text.ok) return text;
  const doc = decodeSingleDocument(text.value);
  if (!doc.ok) return err(`error converting YAML to JSON: ${doc.error}`);
  const root = doc.value;
  if (root === null) return ok([]);
  if (typeof root !== 'object' || Array.isArray(root)) {
    return err(
      `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsKind(root)} into Go value of type source.RegistryV1Properties`,
    );
  }
  const list = (root as Record<string, unknown>)['properties'];
  if (list === undefined || list === null) return ok([]);
  if (!Array.isArray(list)) {
    return err(
      `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsKind(list)} into Go struct field RegistryV1Properties.properties of type []property.Property`,
    );
  }
  const out: EncodedProperty[] = [];
  for (const item of list) {
    if (item === null) {
      out.push({ type: '""', value: 'null' });
      continue;
    }
    if (typeof item !== 'object' || Array.isArray(item)) {
      return err(
        `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsKind(item)} into Go struct field RegistryV1Properties.properties of type property.Property`,
      );
    }
    const record = item as Record<string, unknown>;
    const type = record['type'] ?? '';
    if (typeof type !== 'string') {
      return err(
        `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsKind(type)} into Go struct field Property.properties.type of type string`,
      );
    }
    try {
      out.push({ type: goJsonString(type), value: goJsonMarshal(record['value'] ?? null, true) });
    } catch (e) {
      if (e instanceof GoJsonUnsupportedValueError) return err(`error converting YAML to JSON: ${e.message}`);
      throw e;
    }
  }
  return ok(out);
}

function jsKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'object' && v !== null) return 'object';
  return typeof v;
}
