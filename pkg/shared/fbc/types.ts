/**
 * The file-based catalog (FBC) model: typed `olm.package`, `olm.channel`, `olm.bundle` and
 * `olm.deprecations` blobs, and `Meta`, the schema-agnostic form of every document; field names
 * are upstream declcfg's JSON names. Data only: the contract between the loader, the resolver
 * and catalogd's storage.
 */

/** Any JSON value, as decoded by JSON.parse. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * One FBC document in schema-agnostic form. `schema`, `package` and `name` are the values of
 * the case-insensitively matched top-level keys ("" when absent). `blob` is the document
 * re-serialised as upstream does: compact JSON with object keys sorted byte-wise at every
 * level, followed by a single "\n".
 */
export interface Meta {
  schema: string;
  package: string;
  name: string;
  blob: string;
}

/** Where a document came from: path relative to the catalog root and 1-based start line. */
export interface MetaSource {
  file: string;
  line: number;
}

/** A package icon: base64 image data (standard encoding, padded) and its media type. */
interface Icon {
  base64data: string;
  mediatype: string;
}

/** A typed property of a bundle, channel or package, e.g. `olm.package` or `olm.gvk`. */
export interface Property {
  type: string;
  /** The property value as decoded JSON. */
  value: JsonValue;
}

/** `olm.package` */
export interface Package {
  schema: 'olm.package';
  name: string;
  defaultChannel: string;
  icon?: Icon;
  description?: string;
  properties?: Property[];
}

/** One bundle of a channel and its upgrade edges. */
export interface ChannelEntry {
  name: string;
  replaces?: string;
  skips?: string[];
  skipRange?: string;
}

/** `olm.channel` */
export interface Channel {
  schema: 'olm.channel';
  name: string;
  package: string;
  entries: ChannelEntry[];
  properties?: Property[];
}

/** An image a bundle needs, besides the bundle image itself. */
interface RelatedImage {
  name: string;
  image: string;
}

/** `olm.bundle` */
export interface Bundle {
  schema: 'olm.bundle';
  name: string;
  package: string;
  image: string;
  properties: Property[];
  relatedImages?: RelatedImage[];
}

/** What a deprecation entry targets: `olm.package` (no name), `olm.channel` or `olm.bundle` (by name). */
export interface DeprecationReference {
  schema: string;
  name?: string;
}

/** One deprecated object and the message shown to users. */
export interface DeprecationEntry {
  reference: DeprecationReference;
  message: string;
}

/** `olm.deprecations` */
export interface Deprecation {
  schema: 'olm.deprecations';
  package: string;
  entries: DeprecationEntry[];
}

/** A whole catalog (or one package's partition of it) in typed form. */
export interface DeclarativeConfig {
  packages: Package[];
  channels: Channel[];
  bundles: Bundle[];
  deprecations: Deprecation[];
  /** Documents of any other schema, kept verbatim. */
  others: Meta[];
}
