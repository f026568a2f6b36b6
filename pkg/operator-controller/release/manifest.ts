/**
 * The `manifest` of a Helm release record and the objects it holds, as a value: a `Manifest`.
 *
 * Upstream stores one JSON line per object with sorted keys; we write the same shape with the
 * objects' own key order, so a record read back gives the very objects written. Reading also
 * accepts YAML documents (older upstream records), through apimachinery's decoder (goyaml).
 *
 * A manifest is held as a record's text, as one JSON line per object (possibly in a file), or
 * as parsed objects (decision 0098); the operations below read text and lines one object at a
 * time, and only `objects()` parses everything. Manifests are immutable and shared.
 */
import { decodeYamlOrJson } from '../../gocompat/goyaml/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import type { LineList } from '../../shared/lines/index.ts';

/** One object's line of a manifest string (which is these lines, in order): its JSON and "\n". */
export function manifestLine(obj: KubeObject): string {
  return `${JSON.stringify(obj)}\n`;
}

/** A manifest's objects by position, each parsed when asked for (see {@link Manifest.sequence}). */
export interface ObjectSequence {
  readonly length: number;
  /** The object at `index`, or undefined past the end; a fresh copy each call when parsed from a line. */
  at(index: number): KubeObject | undefined;
}

/** A line list that takes new lines at its end (a LineStore): where a large record's manifest is read into (manifest-bytes.ts). */
export interface LineSink extends LineList {
  push(line: string): number;
}

/** An object's line (without "\n") and, when it is held parsed, the object. */
interface Entry {
  line: string;
  obj?: KubeObject;
}

/** A release's objects, in apply order; see the module comment. */
export abstract class Manifest {
  #identities: readonly KubeObject[] | undefined;

  /** A manifest of parsed objects (shared, not copied: no reader changes them). */
  static ofObjects(objects: readonly KubeObject[]): Manifest {
    return new ObjectsManifest(objects);
  }

  /** A record's manifest text; a read that parses it throws `release record <where> is corrupt: ...` when it does not. */
  static ofText(text: string, where: string): Manifest {
    return new TextManifest(text, where);
  }

  /**
   * The objects whose JSON `lines` are (each a {@link manifestLine} without its "\n"). Every
   * line must be JSON of an object with apiVersion, kind and metadata; a read that parses one
   * throws naming `where` otherwise.
   */
  static ofLines(lines: LineList, where: string): Manifest {
    return new LinesManifest(lines, where);
  }

  /** Every object, parsed (anew on each call for text and lines). Throws on a corrupt manifest. */
  abstract objects(): readonly KubeObject[];

  /** The manifest string, in pieces: a record's text, each line and its "\n", or each object's line. */
  abstract text(): Iterable<string>;

  /** The lines of a JSON-lines manifest, or undefined when held parsed or as text that is not JSON lines. */
  protected abstract jsonLines(): { lines: Iterable<string>; list?: LineList } | undefined;

  /**
   * `pick` of each object, in order, given the object's line when the manifest is JSON lines:
   * one line is parsed at a time and only what `pick` returns is kept, so the objects are never
   * all whole. From the parsed objects otherwise (YAML text: the full parse says what it holds);
   * throws as `objects()` would on a corrupt line.
   */
  map<T>(pick: (obj: KubeObject, line: string | undefined) => T): T[] {
    const unparsed = this.jsonLines();
    const whole = (): T[] => this.objects().map((o) => pick(o, undefined));
    if (unparsed === undefined) return whole();
    const out: T[] = [];
    for (const line of unparsed.lines) {
      const value = parseLine(line);
      if (value === undefined) return whole();
      out.push(pick(value, line));
    }
    return out;
  }

  /** The objects `keep` accepts, whole, read as {@link map} reads them. */
  where(keep: (obj: KubeObject) => boolean): KubeObject[] {
    return this.map((o) => (keep(o) ? o : undefined)).filter((o): o is KubeObject => o !== undefined);
  }

  /**
   * The objects reduced to apiVersion, kind, name and namespace (what drift watches and
   * deletions are keyed by), in order, read as {@link map} reads them; read once per manifest
   * (a reconcile asks several times), a new array each call.
   */
  identities(): KubeObject[] {
    this.#identities ??= this.map(identityOf);
    return [...this.#identities];
  }

  /**
   * The objects by position: from JSON lines each `at` parses its line alone (the caller holds
   * one object at a time), otherwise the parsed objects. Throws as `objects()` would on a
   * corrupt line (when the sequence is made).
   */
  sequence(): ObjectSequence {
    const unparsed = this.jsonLines();
    if (unparsed === undefined) return this.objects();
    // A line list is read by position where it is (a file, pkg/shared/lines), a text's lines
    // are cut out once.
    const lines: LineList = unparsed.list ?? [...unparsed.lines];
    for (const line of lines) if (!line.startsWith('{')) return this.objects();
    return {
      length: lines.length,
      at: (index: number): KubeObject | undefined => {
        const line = lines.at(index);
        if (line === undefined) return undefined;
        return parseLine(line) ?? this.objects().at(index);
      },
    };
  }

  /**
   * True when `other` holds the same objects, compared one at a time with `equal`. JSON-lines
   * manifests are compared line by line (what we record, byte for byte); a line that differs
   * is parsed alone and compared as a value, since records written elsewhere (upstream's, with
   * sorted keys) hold the same objects in other text.
   */
  equals(other: Manifest, equal: (mine: KubeObject, theirs: KubeObject) => boolean): boolean {
    if (other === this) return true;
    const a = this.jsonLines();
    const b = other.jsonLines();
    const whole = (): boolean => {
      const x = this.objects();
      const y = other.objects();
      return x.length === y.length && x.every((o, i) => equal(o, y[i] as KubeObject));
    };
    if (a === undefined && b === undefined) return whole();
    const right = other.#entries(b)[Symbol.iterator]();
    for (const x of this.#entries(a)) {
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

  /** Each object's line (without "\n"), with the object when it is held parsed. */
  *#entries(unparsed: { lines: Iterable<string> } | undefined): Generator<Entry, void, undefined> {
    if (unparsed !== undefined) for (const line of unparsed.lines) yield { line };
    else for (const obj of this.objects()) yield { line: JSON.stringify(obj), obj };
  }
}

/** Parsed objects. `held` is public so that tests' deep equality sees what a manifest holds. */
class ObjectsManifest extends Manifest {
  readonly held: readonly KubeObject[];

  constructor(objects: readonly KubeObject[]) {
    super();
    this.held = objects;
  }

  objects(): readonly KubeObject[] {
    return this.held;
  }

  *text(): Generator<string, void, undefined> {
    for (const obj of this.held) yield manifestLine(obj);
  }

  protected jsonLines(): undefined {
    return undefined;
  }
}

/** A record's text: JSON lines or YAML documents. */
class TextManifest extends Manifest {
  readonly source: string;
  readonly #where: string;

  constructor(text: string, where: string) {
    super();
    this.source = text;
    this.#where = where;
  }

  objects(): KubeObject[] {
    const parsed = parseManifest(this.source);
    if (!parsed.ok) throw new Error(`release record ${this.#where} is corrupt: ${parsed.problem}`);
    return parsed.objects;
  }

  text(): string[] {
    return [this.source];
  }

  protected jsonLines(): { lines: Iterable<string> } | undefined {
    return this.source.trimStart().startsWith('{') ? { lines: nonEmptyLines(this.source) } : undefined;
  }
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

/** One JSON line per object, in memory or in a file (pkg/shared/lines). */
class LinesManifest extends Manifest {
  readonly source: LineList;
  readonly #where: string;

  constructor(lines: LineList, where: string) {
    super();
    this.source = lines;
    this.#where = where;
  }

  objects(): KubeObject[] {
    return Array.from(this.source, (line, i) => {
      const obj = parseLine(line);
      if (obj === undefined) throw new Error(`${this.#where}: object ${i + 1} is not JSON of an object with apiVersion, kind and metadata`);
      return obj;
    });
  }

  *text(): Generator<string, void, undefined> {
    for (const line of this.source) yield `${line}\n`;
  }

  protected jsonLines(): { lines: Iterable<string>; list: LineList } {
    return { lines: this.source, list: this.source };
  }
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
