/**
 * Typed decoding of Metas into a `DeclarativeConfig` (upstream `fbcBuilder.addMeta`): the four
 * known schemas decoded with Go JSON semantics and upstream's error wording, unknown schemas kept
 * verbatim, a schema-less document rejected (`object '<blob>' is missing root schema field`).
 */
import { goDecode, type GoObject, type GoType, MISSING } from './go-json-decode.ts';
import { GO_BUNDLE, GO_BUNDLE_OBJECT, GO_CHANNEL, GO_DEPRECATION, GO_PACKAGE } from './go-types.ts';
import { goQuote } from '../../gocompat/gotext/index.ts';
import { goUnmarshalSyntaxError, YamlConvertError, yamlToJsonValue } from '../../gocompat/goyaml/index.ts';
import type { Bundle, Channel, ChannelEntry, DeclarativeConfig, Deprecation, JsonValue, Meta, Package, Property } from './types.ts';
import { looksLikeJson } from './utf8.ts';

const MISSING_VALUES = new WeakSet<Property>();

/**
 * True when the property had no `value` key at all. Upstream keeps the raw (empty) JSON and
 * fails to parse it (`unexpected end of JSON input`); our `Property.value` is then null.
 */
export function isPropertyValueMissing(p: Property): boolean {
  return MISSING_VALUES.has(p);
}

/** An empty DeclarativeConfig. */
export function emptyConfig(): DeclarativeConfig {
  return { packages: [], channels: [], bundles: [], deprecations: [], others: [] };
}

/** The known schemas: upstream's error prefix, Go type, and how a decoded document is added (an error text: rejected). */
const KNOWN_SCHEMAS = new Map<string, { what: string; type: GoType; add: (cfg: DeclarativeConfig, o: GoObject) => string | undefined }>([
  ['olm.package', { what: 'parse package', type: GO_PACKAGE, add: (cfg, o) => void cfg.packages.push(toPackage(o)) }],
  ['olm.channel', { what: 'parse channel', type: GO_CHANNEL, add: (cfg, o) => void cfg.channels.push(toChannel(o)) }],
  ['olm.bundle', { what: 'parse bundle', type: GO_BUNDLE, add: addBundle }],
  ['olm.deprecations', { what: 'parse deprecation', type: GO_DEPRECATION, add: (cfg, o) => void cfg.deprecations.push(toDeprecation(o)) }],
]);

/**
 * Adds one document to `cfg`. `value` is the document's decoded JSON (undefined to parse it
 * from the blob). Returns upstream's error text when the document is rejected.
 */
export function addDocument(cfg: DeclarativeConfig, meta: Meta, value?: JsonValue): string | undefined {
  const known = KNOWN_SCHEMAS.get(meta.schema);
  if (known === undefined) {
    if (meta.schema === '') return `object '${abbreviateBlob(meta.blob)}' is missing root schema field`;
    cfg.others.push(meta);
    return undefined;
  }
  if (value === undefined) {
    // A Meta built by hand may carry a blob that is not JSON; Go's Unmarshal reports why.
    const syntax = goUnmarshalSyntaxError(meta.blob);
    if (syntax !== undefined) return `${known.what}: ${syntax}`;
  }
  const r = goDecode(value === undefined ? (JSON.parse(meta.blob) as JsonValue) : value, known.type);
  if (r.error !== undefined) return `${known.what}: ${r.error}`;
  return known.add(cfg, r.value as GoObject);
}

function addBundle(cfg: DeclarativeConfig, o: GoObject): string | undefined {
  const bundle = toBundle(o);
  const objErr = checkBundleObjects(bundle);
  if (objErr !== undefined) return `read bundle objects: ${objErr}`;
  cfg.bundles.push(bundle);
  return undefined;
}

function str(o: GoObject, k: string): string {
  return o[k] as string;
}

function toProperties(list: unknown): Property[] | undefined {
  if (list === null) return undefined;
  return (list as GoObject[]).map((p) => {
    const raw = p['value'];
    const prop: Property = { type: str(p, 'type'), value: raw === MISSING ? null : (raw as JsonValue) };
    if (raw === MISSING) MISSING_VALUES.add(prop);
    return prop;
  });
}

function toPackage(o: GoObject): Package {
  const pkg: Package = { schema: 'olm.package', name: str(o, 'name'), defaultChannel: str(o, 'defaultChannel') };
  const icon = o['icon'] as GoObject | null;
  if (icon !== null) {
    const data = icon['base64data'];
    const base64data = Array.isArray(data) ? Buffer.from(data as number[]).toString('base64') : ((data as string | null) ?? '');
    pkg.icon = { base64data, mediatype: str(icon, 'mediatype') };
  }
  if (str(o, 'description') !== '') pkg.description = str(o, 'description');
  const props = toProperties(o['properties']);
  if (props !== undefined) pkg.properties = props;
  return pkg;
}

function toChannel(o: GoObject): Channel {
  const entries = ((o['entries'] as GoObject[] | null) ?? []).map((e): ChannelEntry => {
    const entry: ChannelEntry = { name: str(e, 'name') };
    if (str(e, 'replaces') !== '') entry.replaces = str(e, 'replaces');
    if (e['skips'] !== null) entry.skips = e['skips'] as string[];
    if (str(e, 'skipRange') !== '') entry.skipRange = str(e, 'skipRange');
    return entry;
  });
  const ch: Channel = { schema: 'olm.channel', name: str(o, 'name'), package: str(o, 'package'), entries };
  const props = toProperties(o['properties']);
  if (props !== undefined) ch.properties = props;
  return ch;
}

function toBundle(o: GoObject): Bundle {
  const b: Bundle = {
    schema: 'olm.bundle',
    name: str(o, 'name'),
    package: str(o, 'package'),
    image: str(o, 'image'),
    properties: toProperties(o['properties']) ?? [],
  };
  const related = o['relatedImages'] as GoObject[] | null;
  if (related !== null) b.relatedImages = related.map((r) => ({ name: str(r, 'name'), image: str(r, 'image') }));
  return b;
}

function toDeprecation(o: GoObject): Deprecation {
  const entries = ((o['entries'] as GoObject[] | null) ?? []).map((e) => {
    const ref = e['reference'] as GoObject;
    const reference: { schema: string; name?: string } = { schema: str(ref, 'schema') };
    if (str(ref, 'name') !== '') reference.name = str(ref, 'name');
    return { reference, message: str(e, 'message') };
  });
  return { schema: 'olm.deprecations', package: str(o, 'package'), entries };
}

/**
 * Upstream `readBundleObjects`: every `olm.bundle.object` value must decode as `{data: base64}`
 * and the data must be JSON (first non-space byte `{`) or YAML convertible to JSON.
 */
function checkBundleObjects(b: Bundle): string | undefined {
  const prefix = `package ${goQuote(b.package)}, bundle ${goQuote(b.name)}`;
  for (let i = 0; i < b.properties.length; i++) {
    const p = b.properties[i] as Property;
    if (p.type !== 'olm.bundle.object') continue;
    const r = goDecode(isPropertyValueMissing(p) ? MISSING : p.value, GO_BUNDLE_OBJECT);
    if (r.error !== undefined) return `${prefix}: parse property at index ${i} as bundle object: ${r.error}`;
    const data = (r.value as GoObject)['data'];
    const bytes = Array.isArray(data) ? Buffer.from(data as number[]) : Buffer.from((data as string | null) ?? '', 'base64');
    if (looksLikeJson(bytes, 0, bytes.length)) continue;
    try {
      yamlToJsonValue(bytes.toString('utf8'));
    } catch (err) {
      if (!(err instanceof YamlConvertError)) throw err;
      return `${prefix}: convert bundle object property at index ${i} to JSON: ${err.message}`;
    }
  }
  return undefined;
}

// Upstream prints the whole blob; a Kubernetes manifest or a CSV with a base64 icon mistaken for
// a catalog would print kilobytes per document. Blobs longer than this are cut (decision 0094).
const MAX_BLOB_CHARS = 80;
const BLOB_HEAD_CHARS = 60;

/** `blob` as error messages show it: whole when short, else its start, `...` and its length. */
function abbreviateBlob(blob: string): string {
  if (blob.length <= MAX_BLOB_CHARS) return blob;
  return `${blob.slice(0, BLOB_HEAD_CHARS)}... (${blob.length} characters)`;
}
