/**
 * registry+v1 bundle parsing (pure): files in, `RegistryV1Bundle` out, following upstream's
 * `source.FromFS(...).GetBundle()`.
 *
 * - `metadata/annotations.yaml` is required; only the package annotation is read.
 * - `manifests/` entries are visited in lexical order; a subdirectory is an error; every file
 *   is a JSON/YAML stream (lists flattened); objects are classified by `kind`: the last
 *   ClusterServiceVersion wins, CustomResourceDefinitions and all other objects are kept in
 *   order.
 * - `metadata/properties.yaml` is merged into the CSV's `olm.properties` annotation.
 *
 * Never throws for bad input: every problem is a `Result` error with upstream's text where
 * upstream defines one.
 */
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { ClusterServiceVersion, CustomResourceDefinitionSchema, formatIssues } from './csv-schema.ts';
import { decodeManifestObjects } from './manifest-objects.ts';
import { arrayLines, otherStub } from './other-lines.ts';
import { mergeOlmProperties } from './properties.ts';
import type { BundleFiles, CustomResourceDefinition, KubeObject, OtherLines, RegistryV1Bundle } from './types.ts';
import { decodeSingleDocument, decodeUtf8 } from '../../gocompat/goyaml/index.ts';
import { freeOwnedBytes } from '../../shared/bytes/index.ts';

/** The annotation in `metadata/annotations.yaml` naming the bundle's package. */
export const PACKAGE_ANNOTATION = 'operators.operatorframework.io.bundle.package.v1';

const MANIFESTS_DIR = 'manifests';
const CRD_API_VERSION = 'apiextensions.k8s.io/v1';

/** Options of {@link parseBundle}. */
interface ParseBundleOptions {
  /**
   * The caller hands `files` over: each manifest file is removed once decoded, so a large
   * bundle's bytes can be collected while the rest is parsed (decision 0098).
   */
  consume?: boolean;
  /**
   * Keep the other objects (neither the CSV nor CRDs) as JSON lines as each file is decoded,
   * with stubs in `others` (other-lines.ts): a large bundle is then never all objects at once.
   * `true` keeps them in an array; a store passed in keeps them where it does (a file).
   */
  othersAsLines?: boolean | OtherLines;
}

/**
 * Parses a bundle from its files (paths relative to the bundle root, `/`-separated; a key
 * ending in `/` marks a directory, which lets callers report empty directories).
 */
export function parseBundle(
  files: BundleFiles,
  options?: Omit<ParseBundleOptions, 'consume'> & { consume?: false },
): Result<RegistryV1Bundle, string>;
export function parseBundle(files: Map<string, Uint8Array>, options: ParseBundleOptions & { consume: true }): Result<RegistryV1Bundle, string>;
export function parseBundle(files: BundleFiles | Map<string, Uint8Array>, options: ParseBundleOptions = {}): Result<RegistryV1Bundle, string> {
  const consumed = options.consume === true ? (files as Map<string, Uint8Array>) : undefined;
  // Normalized path -> the caller's key, to remove a consumed file from the caller's map.
  const keys = new Map<string, string>();
  const normalized = normalizePaths(files, keys);
  const packageName = readPackageName(normalized.get('metadata/annotations.yaml'));
  if (!packageName.ok) return packageName;

  let csv: ClusterServiceVersion | undefined;
  const crds: CustomResourceDefinition[] = [];
  const others: KubeObject[] = [];
  const otherLines = options.othersAsLines === true ? arrayLines() : options.othersAsLines === false ? undefined : options.othersAsLines;
  const entries = manifestEntries(normalized);
  if (entries === undefined) return err(`open ${MANIFESTS_DIR}: file does not exist`);
  for (const entry of entries) {
    if (entry.isDir) {
      return err(`subdirectories are not allowed within the "${MANIFESTS_DIR}" directory of the bundle image filesystem: found "${entry.path}"`);
    }
    const bytes = normalized.get(entry.path) ?? new Uint8Array();
    if (consumed !== undefined) {
      normalized.delete(entry.path);
      consumed.delete(keys.get(entry.path) ?? entry.path);
    }
    const objects = readManifestFile(entry.path, bytes);
    // The text decoded from the bytes is a copy: consumed bytes are freed at once (decision 0098).
    if (consumed !== undefined) freeOwnedBytes(bytes);
    if (!objects.ok) return err(`error parsing objects in ${JSON.stringify(entry.path)}: ${objects.error}`);
    for (const obj of objects.value) {
      const classified = classify(obj);
      if (!classified.ok) return err(`error parsing objects in ${JSON.stringify(entry.path)}: ${classified.error}`);
      const c = classified.value;
      if (c.type === 'csv') csv = c.csv;
      else if (c.type === 'crd') crds.push(c.crd);
      else if (otherLines === undefined) others.push(obj);
      else {
        // A stub's position in others is its line's.
        otherLines.push(JSON.stringify(obj));
        others.push(otherStub(obj));
      }
    }
  }
  if (csv === undefined) return err(`no ClusterServiceVersion found in "${MANIFESTS_DIR}"`);

  const merged = mergeOlmProperties(csv.metadata?.annotations ?? undefined, normalized.get('metadata/properties.yaml'));
  if (!merged.ok) return merged;
  if (merged.value !== (csv.metadata?.annotations ?? undefined)) {
    csv = { ...csv, metadata: { ...csv.metadata, annotations: { ...merged.value } } };
  }
  return ok({ packageName: packageName.value, csv, crds, others, ...(otherLines === undefined ? {} : { otherLines }) });
}

/** The files under `/`-separated paths without leading `./` or `/`; `keys` gets each one's key in `files`. */
function normalizePaths(files: BundleFiles, keys: Map<string, string>): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const [path, bytes] of files) {
    const normal = path
      .replace(/\\/g, '/')
      .replace(/^(\.\/)+/, '')
      .replace(/^\/+/, '');
    out.set(normal, bytes);
    keys.set(normal, path);
  }
  return out;
}

function readPackageName(bytes: Uint8Array | undefined): Result<string, string> {
  if (bytes === undefined) return err('open metadata/annotations.yaml: file does not exist');
  const text = decodeUtf8(bytes);
  if (!text.ok) return err(`error converting YAML to JSON: ${text.error}`);
  const doc = decodeSingleDocument(text.value);
  if (!doc.ok) return err(`error converting YAML to JSON: ${doc.error}`);
  const root = doc.value;
  if (root === null) return ok('');
  if (typeof root !== 'object' || Array.isArray(root)) {
    return err('error unmarshaling JSON: while decoding JSON: json: cannot unmarshal non-object into Go value of type registry.AnnotationsFile');
  }
  const annotations = (root as Record<string, unknown>)['annotations'];
  if (annotations === undefined || annotations === null) return ok('');
  if (typeof annotations !== 'object' || Array.isArray(annotations)) {
    return err(
      'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal non-object into Go struct field AnnotationsFile.annotations of type registry.Annotations',
    );
  }
  const name = (annotations as Record<string, unknown>)[PACKAGE_ANNOTATION];
  if (name === undefined || name === null) return ok('');
  if (typeof name !== 'string') {
    return err(
      `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${typeof name} into Go struct field Annotations.annotations.${PACKAGE_ANNOTATION} of type string`,
    );
  }
  return ok(name);
}

/** Direct children of `manifests/` in lexical order, or undefined when there are none. */
function manifestEntries(files: Map<string, Uint8Array>): { path: string; isDir: boolean }[] | undefined {
  const children = new Map<string, boolean>();
  let exists = false;
  for (const path of files.keys()) {
    if (path === `${MANIFESTS_DIR}/`) exists = true;
    if (!path.startsWith(`${MANIFESTS_DIR}/`)) continue;
    exists = true;
    const rest = path.slice(MANIFESTS_DIR.length + 1);
    if (rest === '') continue;
    const slash = rest.indexOf('/');
    const name = slash === -1 ? rest : rest.slice(0, slash);
    children.set(name, (children.get(name) ?? false) || slash !== -1);
  }
  if (!exists) return undefined;
  return [...children.keys()].sort(byteOrder).map((name) => ({ path: `${MANIFESTS_DIR}/${name}`, isDir: children.get(name) === true }));
}

const utf8 = new TextEncoder();

/** Go sorts directory entries by the bytes of their UTF-8 names. */
function byteOrder(a: string, b: string): number {
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  }
  return x.length - y.length;
}

function readManifestFile(path: string, bytes: Uint8Array): Result<KubeObject[], string> {
  const text = decodeUtf8(bytes);
  if (!text.ok) return err(`error parsing ${path}: ${text.error}`);
  return decodeManifestObjects(text.value, path);
}

type Classified = { type: 'csv'; csv: ClusterServiceVersion } | { type: 'crd'; crd: CustomResourceDefinition } | { type: 'other' };

function classify(obj: KubeObject): Result<Classified, string> {
  if (obj.kind === 'ClusterServiceVersion') {
    const parsed = ClusterServiceVersion.safeParse(obj);
    if (!parsed.success) return err(`ClusterServiceVersion ${JSON.stringify(nameOf(obj))}: ${formatIssues(parsed.error.issues)}`);
    return ok({ type: 'csv', csv: parsed.data });
  }
  if (obj.kind === 'CustomResourceDefinition') {
    const parsed = CustomResourceDefinitionSchema.safeParse(obj);
    if (!parsed.success) return err(`CustomResourceDefinition ${JSON.stringify(nameOf(obj))}: ${formatIssues(parsed.error.issues)}`);
    if (obj.apiVersion !== CRD_API_VERSION) {
      return err(
        `CustomResourceDefinition ${JSON.stringify(nameOf(obj))}: apiVersion ${JSON.stringify(obj.apiVersion)} is not supported; only ${CRD_API_VERSION} CustomResourceDefinitions can be installed`,
      );
    }
    return ok({ type: 'crd', crd: obj as CustomResourceDefinition });
  }
  return ok({ type: 'other' });
}

function nameOf(obj: KubeObject): string {
  const name = obj.metadata?.name;
  return typeof name === 'string' ? name : '';
}
