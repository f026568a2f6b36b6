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
import type { KubeObject } from '../../shared/kube/index.ts';
import type { LineList } from '../../shared/lines/index.ts';
import { parseLine, parseManifest } from './manifest-parse.ts';

/** One object's line of a manifest string (which is these lines, in order): its JSON and "\n". */
export function manifestLine(obj: KubeObject): string {
  return `${JSON.stringify(obj)}\n`;
}

/**
 * Whatever holds a manifest's objects: a release record, a desired release, the render step's
 * output. `manifest` may be a lazy getter ({@link withLazyManifest}, {@link withManifestLines}):
 * reading it parses every object, which the functions below avoid.
 */
export interface ManifestHolder {
  readonly manifest: readonly KubeObject[];
}

/** The unparsed source of a holder's `manifest`: a record's text, or one JSON line per object (no "\n"). */
const UNPARSED = Symbol('unparsed manifest');

/**
 * `identities` is filled by the first {@link manifestIdentities} of any holder sharing the
 * source (a rendering's desired release and record do): a reconcile asks for them several times.
 */
type Source = ({ text: string } | { lines: LineList }) & { where: string; identities?: readonly KubeObject[] };

interface Unparsed {
  [UNPARSED]?: Source;
}

function defineLazy<T extends object>(holder: T, source: Source, parse: () => KubeObject[]): T & { manifest: KubeObject[] } {
  const release = holder as T & { manifest: KubeObject[] } & Unparsed;
  Object.defineProperty(release, UNPARSED, { value: source, configurable: true, enumerable: false, writable: true });
  Object.defineProperty(release, 'manifest', {
    configurable: true,
    enumerable: true,
    get(this: typeof release) {
      const objects = parse();
      Object.defineProperty(this, 'manifest', { value: objects, configurable: true, enumerable: true, writable: true });
      this[UNPARSED] = undefined;
      return objects;
    },
    set(this: typeof release, objects: KubeObject[]) {
      Object.defineProperty(this, 'manifest', { value: objects, configurable: true, enumerable: true, writable: true });
      this[UNPARSED] = undefined;
    },
  });
  return release;
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
  return withSource(summary, { text, where });
}

/**
 * Gives `holder` a `manifest` of the objects whose JSON `lines` are (each a {@link manifestLine}
 * without its "\n"), parsed on first read as {@link withLazyManifest} parses a record: the
 * render step keeps a bundle's objects so, a third of their size as objects, and the apply
 * reads them one at a time (decision 0098). Every line must be JSON of an object with
 * apiVersion, kind and metadata; a read of `manifest` throws naming `where` otherwise.
 */
export function withManifestLines<T extends object>(holder: T, lines: LineList, where: string): T & { manifest: KubeObject[] } {
  return withSource(holder, { lines, where });
}

/** A line list that takes new lines at its end (a LineStore): where a large record's manifest is read into (manifest-bytes.ts). */
export interface LineSink extends LineList {
  push(line: string): number;
}

/** `holder` with a `manifest` parsed from `source` on first read. */
function withSource<T extends object>(holder: T, source: Source): T & { manifest: KubeObject[] } {
  if ('text' in source) {
    return defineLazy(holder, source, () => {
      const parsed = parseManifest(source.text);
      if (!parsed.ok) throw new Error(`release record ${source.where} is corrupt: ${parsed.problem}`);
      return parsed.objects;
    });
  }
  return defineLazy(holder, source, () =>
    Array.from(source.lines, (line, i) => {
      const obj = parseLine(line);
      if (obj === undefined) throw new Error(`${source.where}: object ${i + 1} is not JSON of an object with apiVersion, kind and metadata`);
      return obj;
    }),
  );
}

/**
 * `summary` with the manifest of `from`, still unparsed if it was: a spread would read
 * `manifest` and parse it.
 */
export function withManifestOf<T extends object>(summary: T, from: ManifestHolder): T & { manifest: KubeObject[] } {
  const source = (from as Unparsed)[UNPARSED];
  // The objects are shared, not copied: no reader of a manifest changes its objects.
  if (source === undefined) return Object.assign(summary, { manifest: from.manifest as KubeObject[] });
  return withSource(summary, source);
}

/**
 * `release` with `changes` (status, description, ...), its manifest still unparsed if it was:
 * a spread would read `manifest` and parse it only to write the same text back.
 */
export function reviseRelease<T extends ManifestHolder>(release: T, changes: Partial<Omit<T, 'manifest'>>): T {
  if ((release as Unparsed)[UNPARSED] === undefined) return { ...release, ...changes };
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(release)) if (key !== 'manifest') copy[key] = (release as Record<string, unknown>)[key];
  return withManifestOf({ ...copy, ...changes }, release) as unknown as T;
}

/**
 * The manifest string of a holder not parsed yet, in pieces (a record's text; or each line
 * and its "\n"), else undefined.
 */
export function unparsedManifest(holder: ManifestHolder): Iterable<string> | undefined {
  const source = (holder as Unparsed)[UNPARSED];
  if (source === undefined) return undefined;
  return 'text' in source ? [source.text] : linesWithNewlines(source.lines);
}

function* linesWithNewlines(lines: Iterable<string>): Generator<string, void, undefined> {
  for (const line of lines) yield `${line}\n`;
}

/** The lines of a still unparsed JSON-lines manifest, or undefined (parsed already, or not JSON lines). */
function unparsedLines(holder: ManifestHolder): { lines: Iterable<string>; list?: LineList; where: string } | undefined {
  const source = (holder as Unparsed)[UNPARSED];
  if (source === undefined) return undefined;
  if ('lines' in source) return { lines: source.lines, list: source.lines, where: source.where };
  if (!source.text.trimStart().startsWith('{')) return undefined;
  return { lines: nonEmptyLines(source.text), where: source.where };
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
 * `pick` of each of the holder's objects, in order, given the object's line when it comes from
 * an unparsed JSON-lines manifest: one line is parsed at a time and only what `pick` returns is
 * kept, so the objects are never all whole (decision 0098). From the parsed objects otherwise
 * (parsed already, or not JSON lines: the full parse says what it holds); throws as the
 * `manifest` getter would on a corrupt line.
 */
export function mapManifest<T>(holder: ManifestHolder, pick: (obj: KubeObject, line: string | undefined) => T): T[] {
  const unparsed = unparsedLines(holder);
  const whole = (): T[] => holder.manifest.map((o) => pick(o, undefined));
  if (unparsed === undefined) return whole();
  const out: T[] = [];
  for (const line of unparsed.lines) {
    const value = parseLine(line);
    if (value === undefined) return whole();
    out.push(pick(value, line));
  }
  return out;
}

/** A manifest's objects by position, each parsed when asked for (see {@link manifestObjects}). */
export interface ObjectSequence {
  readonly length: number;
  /** The object at `index`, or undefined past the end; a fresh copy each call when parsed from a line. */
  at(index: number): KubeObject | undefined;
}

/**
 * The holder's objects by position: from an unparsed JSON-lines manifest each `at` parses its
 * line alone (the caller holds one object at a time), otherwise the parsed objects. Throws as
 * the `manifest` getter would on a corrupt line (when the sequence is made).
 */
export function manifestObjects(holder: ManifestHolder): ObjectSequence {
  const unparsed = unparsedLines(holder);
  if (unparsed === undefined) return holder.manifest;
  // A line list is read by position where it is (a file, pkg/shared/lines), a text's lines
  // are cut out once.
  const lines: LineList = unparsed.list ?? [...unparsed.lines];
  for (const line of lines) if (!line.startsWith('{')) return holder.manifest;
  return {
    length: lines.length,
    at(index: number): KubeObject | undefined {
      const line = lines.at(index);
      if (line === undefined) return undefined;
      const obj = parseLine(line);
      if (obj === undefined) return holder.manifest.at(index);
      return obj;
    },
  };
}

/**
 * The release's objects reduced to apiVersion, kind, name and namespace (what drift watches
 * and deletions are keyed by), in order, read as {@link mapManifest} reads them.
 */
export function manifestIdentities(release: ManifestHolder): KubeObject[] {
  const source = (release as Unparsed)[UNPARSED];
  if (source === undefined) return mapManifest(release, identityOf);
  source.identities ??= mapManifest(release, identityOf);
  return [...source.identities];
}

/** The release's objects that `keep` accepts, whole, read as {@link mapManifest} reads them. */
export function manifestObjectsWhere(release: ManifestHolder, keep: (obj: KubeObject) => boolean): KubeObject[] {
  return mapManifest(release, (o) => (keep(o) ? o : undefined)).filter((o): o is KubeObject => o !== undefined);
}

/** `obj` reduced to apiVersion, kind, and its name and namespace when it has them. */
export function identityOf(obj: KubeObject): KubeObject {
  const { name, namespace } = obj.metadata;
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: { ...(name === undefined ? {} : { name }), ...(namespace === undefined ? {} : { namespace }) },
  };
}

/**
 * True when the two holders' objects are the same, compared one at a time with `equal`.
 * Unparsed JSON-lines manifests are compared line by line (what we record, byte for byte); a
 * line that differs is parsed alone and compared as a value, since records written elsewhere
 * (upstream's, with sorted keys) hold the same objects in other text.
 */
export function manifestEquals(
  recorded: ManifestHolder,
  wanted: ManifestHolder,
  equal: (recorded: KubeObject, wanted: KubeObject) => boolean,
): boolean {
  if (recorded === wanted) return true;
  const a = unparsedLines(recorded);
  const b = unparsedLines(wanted);
  const whole = (): boolean => {
    const x = recorded.manifest;
    const y = wanted.manifest;
    return x.length === y.length && x.every((o, i) => equal(o, y[i] as KubeObject));
  };
  if (a === undefined && b === undefined) return whole();
  const right = entries(b, wanted)[Symbol.iterator]();
  for (const x of entries(a, recorded)) {
    const next = right.next();
    if (next.done === true) return false;
    const y = next.value;
    if (x.line === y.line) continue;
    const xo = x.obj ?? parseLine(x.line);
    const yo = y.obj ?? parseLine(y.line);
    if (xo === undefined || yo === undefined) return whole();
    if (!equal(xo, yo)) return false;
  }
  return right.next().done === true;
}

/** Each object's line (without "\n"), with the object when it is parsed already. */
function* entries(unparsed: { lines: Iterable<string> } | undefined, holder: ManifestHolder): Generator<{ line: string; obj?: KubeObject }> {
  if (unparsed !== undefined) for (const line of unparsed.lines) yield { line };
  else for (const obj of holder.manifest) yield { line: JSON.stringify(obj), obj };
}
