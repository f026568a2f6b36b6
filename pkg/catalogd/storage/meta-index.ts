/**
 * Byte-offset index over a stored `catalog.jsonl` (offset, length, schema, package and name of
 * every blob): `/api/v1/metas` reads only the matching ranges, never holding content parsed. On
 * disk (`index.json`): string tables, a flat entry list `[offset, length, schemaId, packageId,
 * nameId, ...]` (-1: empty), and optionally `packageSegments`, per package `[offset, length, crc,
 * size]` of its deflate segments in catalog.jsonl.gz (-1s: none). An older `packageGzip` is ignored.
 */
import type { PackageGzip } from './gzip-segments.ts';

/** The three optional `/api/v1/metas` filters; "" means "no filter". */
interface MetaQuery {
  schema: string;
  package: string;
  name: string;
}

/** A contiguous byte range of catalog.jsonl. */
export interface ByteRange {
  offset: number;
  length: number;
}

interface IndexFile {
  version: 1;
  schemas: string[];
  packages: string[];
  names: string[];
  entries: number[];
  packageSegments?: number[];
}

const FIELDS = 5;

/** Accumulates index entries while catalog.jsonl is being written. */
export class MetaIndexBuilder {
  readonly #tables = { schemas: new Map<string, number>(), packages: new Map<string, number>(), names: new Map<string, number>() };
  readonly #entries: number[] = [];

  /** Records one blob written at `offset` with `length` bytes (including its newline). */
  add(meta: { schema: string; package: string; name: string }, offset: number, length: number): void {
    this.#entries.push(
      offset,
      length,
      intern(this.#tables.schemas, meta.schema),
      intern(this.#tables.packages, meta.package),
      intern(this.#tables.names, meta.name),
    );
  }

  /** Number of blobs recorded. */
  get size(): number {
    return this.#entries.length / FIELDS;
  }

  /** The on-disk form, with where the packages' compressed answers lie when given. */
  serialize(gzip?: ReadonlyMap<string, PackageGzip>): string {
    const packages = [...this.#tables.packages.keys()];
    const file: IndexFile = {
      version: 1,
      schemas: [...this.#tables.schemas.keys()],
      packages,
      names: [...this.#tables.names.keys()],
      entries: this.#entries,
    };
    if (gzip !== undefined) {
      file.packageSegments = packages.flatMap((p) => {
        const g = gzip.get(p);
        return g === undefined ? [-1, -1, -1, -1] : [g.offset, g.length, g.crc, g.size];
      });
    }
    return `${JSON.stringify(file)}\n`;
  }
}

function intern(table: Map<string, number>, value: string): number {
  if (value === '') return -1;
  let id = table.get(value);
  if (id === undefined) {
    id = table.size;
    table.set(value, id);
  }
  return id;
}

/**
 * The entries carrying each value of one field, in file order, in one flat array for all values
 * (sliced by `start`): a typed array per value (a distinct name per bundle) would carry the fixed
 * heap cost of an ArrayBuffer each (decision 0087).
 */
class Postings {
  readonly #ids = new Map<string, number>();
  readonly #start: Int32Array;
  readonly #entries: Int32Array;

  /** `ids` holds this field's value id per entry at `ids[i * ID_FIELDS + field]`, -1 for none. */
  constructor(values: readonly string[], ids: Int32Array, field: number) {
    values.forEach((v, id) => this.#ids.set(v, id));
    const count = ids.length / ID_FIELDS;
    const start = new Int32Array(values.length + 1);
    for (let i = 0; i < count; i++) {
      const id = ids[i * ID_FIELDS + field] ?? -1;
      if (id >= 0) start[id + 1] = (start[id + 1] ?? 0) + 1;
    }
    for (let id = 0; id < values.length; id++) start[id + 1] = (start[id + 1] ?? 0) + (start[id] ?? 0);
    const entries = new Int32Array(start[values.length] ?? 0);
    const next = start.slice(0, values.length);
    for (let i = 0; i < count; i++) {
      const id = ids[i * ID_FIELDS + field] ?? -1;
      if (id >= 0) entries[(next[id] as number)++] = i;
    }
    this.#start = start;
    this.#entries = entries;
  }

  /** The id of `value`, or -1 when no entry carries it. */
  id(value: string): number {
    return this.#ids.get(value) ?? -1;
  }

  /** The entries carrying value `id`, in file order (a view, not a copy). */
  entries(id: number): Int32Array {
    return this.#entries.subarray(this.#start[id] ?? 0, this.#start[id + 1] ?? 0);
  }
}

// Per entry in MetaIndex's id array: schema, package and name ids.
const ID_FIELDS = 3;
const SCHEMA = 0;
const PACKAGE = 1;
const NAME = 2;

/**
 * A loaded index. Lookups follow upstream's semantics: the candidate set is every blob with a
 * schema (or only those of `schema` when given), intersected with the blobs of `package` and of
 * `name` when those are given; exact, case-sensitive matches; results in file order.
 */
export class MetaIndex {
  readonly #offsets: Float64Array;
  readonly #lengths: Float64Array;
  readonly #ids: Int32Array;
  readonly #fields: readonly [Postings, Postings, Postings];
  readonly #withSchema: Int32Array;
  // Per package id: offset, length, crc and size of its compressed answer; -1s for none.
  readonly #packageGzip: Float64Array;

  private constructor(file: IndexFile) {
    const count = file.entries.length / FIELDS;
    this.#offsets = new Float64Array(count);
    this.#lengths = new Float64Array(count);
    this.#ids = new Int32Array(count * ID_FIELDS);
    let withSchema = 0;
    for (let i = 0; i < count; i++) {
      const base = i * FIELDS;
      this.#offsets[i] = file.entries[base] ?? 0;
      this.#lengths[i] = file.entries[base + 1] ?? 0;
      for (let f = 0; f < ID_FIELDS; f++) this.#ids[i * ID_FIELDS + f] = file.entries[base + 2 + f] ?? -1;
      if ((file.entries[base + 2] ?? -1) >= 0) withSchema++;
    }
    this.#withSchema = new Int32Array(withSchema);
    for (let i = 0, n = 0; i < count; i++) if ((this.#ids[i * ID_FIELDS + SCHEMA] ?? -1) >= 0) this.#withSchema[n++] = i;
    this.#fields = [
      new Postings(file.schemas, this.#ids, SCHEMA),
      new Postings(file.packages, this.#ids, PACKAGE),
      new Postings(file.names, this.#ids, NAME),
    ];
    this.#packageGzip = new Float64Array(file.packages.length * 4).fill(-1);
    const segments = file.packageSegments ?? [];
    for (let id = 0; id < file.packages.length; id++) {
      const [offset = -1, length = -1, crc = -1, size = -1] = segments.slice(id * 4, id * 4 + 4);
      if (offset >= 0 && length >= 0 && crc >= 0 && size >= 0) this.#packageGzip.set([offset, length, crc, size], id * 4);
    }
  }

  /** Parses the on-disk form; throws on anything that is not an index written by us. */
  static parse(text: string): MetaIndex {
    const file = JSON.parse(text) as Partial<IndexFile>;
    if (
      file.version !== 1 ||
      !Array.isArray(file.schemas) ||
      !Array.isArray(file.packages) ||
      !Array.isArray(file.names) ||
      !Array.isArray(file.entries) ||
      file.entries.length % FIELDS !== 0 ||
      (file.packageSegments !== undefined && (!Array.isArray(file.packageSegments) || file.packageSegments.length !== file.packages.length * 4))
    ) {
      throw new Error('malformed catalog index');
    }
    return new MetaIndex(file as IndexFile);
  }

  /**
   * Where catalog.jsonl.gz holds the compressed segments that are exactly the answer to
   * `?package=<pkg>` alone, if it does.
   */
  packageGzip(pkg: string): PackageGzip | undefined {
    const id = this.#fields[PACKAGE].id(pkg);
    const at = id * 4;
    if (id < 0 || (this.#packageGzip[at] ?? -1) < 0) return undefined;
    const g = this.#packageGzip;
    return { offset: g[at] as number, length: g[at + 1] as number, crc: g[at + 2] as number, size: g[at + 3] as number };
  }

  /** Number of indexed blobs. */
  get size(): number {
    return this.#offsets.length;
  }

  /**
   * The byte ranges of the blobs matching `query`, in file order, with adjacent ranges
   * coalesced so a package stored contiguously is read in one piece.
   */
  lookup(query: MetaQuery): ByteRange[] {
    // The id each field must have (-1: any); a filter value no entry carries matches nothing.
    const values = [query.schema, query.package, query.name];
    const want = [-1, -1, -1];
    let candidates = this.#withSchema;
    let narrowed = false;
    for (let f = 0; f < ID_FIELDS; f++) {
      const value = values[f] as string;
      if (value === '') continue;
      const field = this.#fields[f as 0 | 1 | 2];
      const id = field.id(value);
      if (id < 0) return [];
      want[f] = id;
      const entries = field.entries(id);
      if (!narrowed || entries.length < candidates.length) candidates = entries;
      narrowed = true;
    }

    const ranges: ByteRange[] = [];
    const ids = this.#ids;
    candidates: for (const i of candidates) {
      const at = i * ID_FIELDS;
      if ((ids[at + SCHEMA] ?? -1) < 0) continue;
      for (let f = 0; f < ID_FIELDS; f++) {
        const id = want[f] as number;
        if (id >= 0 && ids[at + f] !== id) continue candidates;
      }
      const offset = this.#offsets[i] ?? 0;
      const length = this.#lengths[i] ?? 0;
      const last = ranges[ranges.length - 1];
      if (last !== undefined && last.offset + last.length === offset) last.length += length;
      else ranges.push({ offset, length });
    }
    return ranges;
  }
}
