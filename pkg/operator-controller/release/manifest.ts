/**
 * The `manifest` string of a Helm release record and the objects it holds.
 *
 * Upstream's applier stores the post-rendered manifest: every object as one line of JSON followed
 * by "\n" (apimachinery's Unstructured MarshalJSON, keys sorted). We write the same shape, one
 * object per line, but keep the keys in the order the objects have, so that a record read back
 * gives the very objects written (the applier compares them with the next rendering). Readers do
 * not depend on key order.
 *
 * Reading accepts what any upstream version may have stored: the JSON lines above, or YAML
 * documents separated by `---` (Helm's own rendering, before upstream added its JSON label
 * post-renderer), through the decoder upstream parses manifests with (apimachinery's
 * YAMLOrJSONDecoder, pkg/gocompat/goyaml).
 */
import { decodeYamlOrJson } from '../../gocompat/goyaml/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';

/** One object's line of a manifest string (which is these lines, in order): its JSON and "\n". */
export function manifestLine(obj: KubeObject): string {
  return `${JSON.stringify(obj)}\n`;
}

/** The objects of a manifest, or the reason it holds something else. */
type ParsedManifest = { ok: true; objects: KubeObject[] } | { ok: false; problem: string };

/**
 * Parses a stored manifest into its objects, in order. Empty documents (YAML comments only)
 * are skipped; any other document that is not an object with apiVersion, kind and metadata
 * makes the manifest invalid, as does text that neither JSON nor YAML decodes.
 */
function parseManifest(manifest: string): ParsedManifest {
  const fast = parseJsonLines(manifest);
  if (fast !== undefined) return { ok: true, objects: fast };
  const decoded = decodeYamlOrJson(Buffer.from(manifest, 'utf8'));
  if (decoded.error !== undefined) return { ok: false, problem: `the manifest does not decode: ${decoded.error}` };
  const objects: KubeObject[] = [];
  for (const [i, doc] of decoded.docs.entries()) {
    if (doc === null) continue;
    if (!isKubeObject(doc)) return { ok: false, problem: `manifest document ${i + 1} is not an object with apiVersion, kind and metadata` };
    objects.push(doc);
  }
  return { ok: true, objects };
}

/**
 * The objects of a manifest of one JSON object per line (what we and upstream write), or
 * undefined when it is not one: the fast path, JSON.parse per line instead of the byte-wise
 * stream decoder.
 */
function parseJsonLines(manifest: string): KubeObject[] | undefined {
  const objects: KubeObject[] = [];
  for (const line of manifest.split('\n')) {
    if (line.trim() === '') continue;
    if (!line.startsWith('{')) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return undefined;
    }
    if (!isKubeObject(value)) return undefined;
    objects.push(value);
  }
  return objects;
}

/** True for a JSON object with string apiVersion and kind and an object metadata. */
export function isKubeObject(v: unknown): v is KubeObject {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as { apiVersion?: unknown; kind?: unknown; metadata?: unknown };
  return (
    typeof o.apiVersion === 'string' &&
    typeof o.kind === 'string' &&
    typeof o.metadata === 'object' &&
    o.metadata !== null &&
    !Array.isArray(o.metadata)
  );
}

/** The manifest text of a release whose objects have not been parsed yet (see {@link withLazyManifest}). */
const UNPARSED = Symbol('unparsed manifest');

interface Unparsed {
  [UNPARSED]?: { text: string; where: string };
}

/**
 * Gives `summary` a `manifest` parsed from `text` on first read (then kept as a plain
 * property). A reconcile reads an installed release's objects only when its content changes;
 * otherwise it needs their identities and whether they equal the new rendering, which
 * {@link manifestIdentities} and {@link manifestEquals} get from the text one line at a time.
 * A large release then costs its text (~1x its JSON) instead of its objects (~2.5x) while the
 * reconcile's own rendering is in memory (decision 0098). A manifest that does not parse throws
 * on that first read, naming `where`.
 */
export function withLazyManifest<T extends object>(summary: T, text: string, where: string): T & { manifest: KubeObject[] } {
  const release = summary as T & { manifest: KubeObject[] } & Unparsed;
  Object.defineProperty(release, UNPARSED, { value: { text, where }, configurable: true, enumerable: false, writable: true });
  Object.defineProperty(release, 'manifest', {
    configurable: true,
    enumerable: true,
    get(this: typeof release) {
      const parsed = parseManifest(text);
      if (!parsed.ok) throw new Error(`release record ${where} is corrupt: ${parsed.problem}`);
      Object.defineProperty(this, 'manifest', { value: parsed.objects, configurable: true, enumerable: true, writable: true });
      this[UNPARSED] = undefined;
      return parsed.objects;
    },
    set(this: typeof release, objects: KubeObject[]) {
      Object.defineProperty(this, 'manifest', { value: objects, configurable: true, enumerable: true, writable: true });
      this[UNPARSED] = undefined;
    },
  });
  return release;
}

/**
 * `release` with `changes` (status, description, ...), its manifest still unparsed if it was:
 * a spread would read `manifest` and parse it only to write the same text back.
 */
export function reviseRelease<T extends { manifest: KubeObject[] }>(release: T, changes: Partial<Omit<T, 'manifest'>>): T {
  const unparsed = (release as Unparsed)[UNPARSED];
  if (unparsed === undefined) return { ...release, ...changes };
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(release)) if (key !== 'manifest') copy[key] = (release as Record<string, unknown>)[key];
  return withLazyManifest({ ...copy, ...changes }, unparsed.text, unparsed.where) as unknown as T;
}

/** The text of a manifest not parsed yet (withLazyManifest), else undefined. */
export function unparsedManifest(release: { manifest: readonly KubeObject[] }): string | undefined {
  return (release as Unparsed)[UNPARSED]?.text;
}

/** The lines of a still unparsed JSON-lines manifest, or undefined (parsed already, or not JSON lines). */
function unparsedLines(release: { manifest: readonly KubeObject[] }): { lines: Iterable<string>; where: string } | undefined {
  const unparsed = (release as Unparsed)[UNPARSED];
  if (unparsed === undefined || !unparsed.text.trimStart().startsWith('{')) return undefined;
  return { lines: nonEmptyLines(unparsed.text), where: unparsed.where };
}

function* nonEmptyLines(text: string): Generator<string, void, undefined> {
  for (let at = 0; at < text.length;) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const line = text.slice(at, end);
    at = end + 1;
    if (line.trim() !== '') yield line;
  }
}

/**
 * `pick` of each of the release's objects, in order, given the object's line when it comes from
 * an unparsed JSON-lines manifest: one line is parsed at a time and only what `pick` returns is
 * kept, so the release's objects are never all whole (decision 0098). From the parsed objects
 * otherwise (parsed already, or not JSON lines: the full parse says what it holds); throws as
 * the `manifest` getter would on a corrupt line.
 */
export function mapManifest<T>(release: { manifest: readonly KubeObject[] }, pick: (obj: KubeObject, line: string | undefined) => T): T[] {
  const unparsed = unparsedLines(release);
  const whole = (): T[] => release.manifest.map((o) => pick(o, undefined));
  if (unparsed === undefined) return whole();
  const out: T[] = [];
  for (const line of unparsed.lines) {
    const value = parseLine(line);
    if (value === undefined) return whole();
    out.push(pick(value, line));
  }
  return out;
}

/** The object of one manifest line, or undefined when it is not JSON of an object. */
function parseLine(line: string): KubeObject | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  return isKubeObject(value) ? value : undefined;
}

/**
 * The release's objects reduced to apiVersion, kind, name and namespace (what drift watches
 * and deletions are keyed by), in order, read as {@link mapManifest} reads them.
 */
export function manifestIdentities(release: { manifest: readonly KubeObject[] }): KubeObject[] {
  return mapManifest(release, identityOf);
}

/** The release's objects that `keep` accepts, whole, read as {@link mapManifest} reads them. */
export function manifestObjectsWhere(release: { manifest: readonly KubeObject[] }, keep: (obj: KubeObject) => boolean): KubeObject[] {
  return mapManifest(release, (o) => (keep(o) ? o : undefined)).filter((o): o is KubeObject => o !== undefined);
}

function identityOf(obj: KubeObject): KubeObject {
  const { name, namespace } = obj.metadata;
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: { ...(name === undefined ? {} : { name }), ...(namespace === undefined ? {} : { namespace }) },
  };
}

/**
 * True when the release's objects are `objects`, compared one at a time with `equal`. An
 * unparsed manifest is compared line by line with each object's line (what we record, byte for
 * byte); a line that differs is parsed alone and compared as a value, since records written
 * elsewhere (upstream's, with sorted keys) hold the same objects in other text.
 */
export function manifestEquals(
  release: { manifest: readonly KubeObject[] },
  objects: readonly KubeObject[],
  equal: (recorded: KubeObject, object: KubeObject) => boolean,
): boolean {
  const whole = (): boolean => {
    const recorded = release.manifest;
    return recorded.length === objects.length && recorded.every((o, i) => equal(o, objects[i] as KubeObject));
  };
  const unparsed = unparsedLines(release);
  if (unparsed === undefined) return whole();
  let i = 0;
  for (const line of unparsed.lines) {
    const obj = objects[i++];
    if (obj === undefined) return false;
    if (`${line}\n` === manifestLine(obj)) continue;
    const value = parseLine(line);
    if (value === undefined) return whole();
    if (!equal(value, obj)) return false;
  }
  return i === objects.length;
}
