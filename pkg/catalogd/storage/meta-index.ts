/**
 * Byte-offset index over a stored `catalog.jsonl`: for every blob its offset, length and the
 * schema/package/name it carries. `/api/v1/metas` answers from this index by reading only the
 * matching byte ranges, so catalog content is never held parsed in memory.
 *
 * On disk (`index.json`) the index is one JSON object with string tables and a flat entry list
 * `[offset, length, schemaId, packageId, nameId, ...]` in file order (id -1 = empty value), and
 * optionally `packageSegments`: per entry of the package table `[offset, length, crc, size]` of
 * its deflate segments in catalog.jsonl.gz, `[-1, -1, -1, -1]` for none (gzip-segments.ts).
 * Indexes written before carried `packageGzip` (members of a separate file); it is ignored.
 */
import type { PackageGzip } from './gzip-segments.ts';

/** The three optional `/api/v1/metas` filters; "" means "no filter". */
export interface MetaQuery {
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
 * A loaded index. Lookups follow upstream's semantics: the candidate set is every blob with a
 * schema (or only those of `schema` when given), intersected with the blobs of `package` and of
 * `name` when those are given; exact, case-sensitive matches; results in file order.
 */
export class MetaIndex {
  readonly #offsets: Float64Array;
  readonly #lengths: Float64Array;
  readonly #ids: Int32Array;
  readonly #bySchema: Map<string, Int32Array>;
  readonly #byPackage: Map<string, Int32Array>;
  readonly #byName: Map<string, Int32Array>;
  readonly #withSchema: Int32Array;
  readonly #packageGzip = new Map<string, PackageGzip>();

  private constructor(file: IndexFile) {
    const segments = file.packageSegments ?? [];
    file.packages.forEach((p, id) => {
      const [offset = -1, length = -1, crc = -1, size = -1] = segments.slice(id * 4, id * 4 + 4);
      if (offset >= 0 && length >= 0 && crc >= 0 && size >= 0) this.#packageGzip.set(p, { offset, length, crc, size });
    });
    const count = file.entries.length / FIELDS;
    this.#offsets = new Float64Array(count);
    this.#lengths = new Float64Array(count);
    this.#ids = new Int32Array(count * 3);
    const lists: Array<Map<number, number[]>> = [new Map(), new Map(), new Map()];
    const withSchema: number[] = [];
    for (let i = 0; i < count; i++) {
      const base = i * FIELDS;
      this.#offsets[i] = file.entries[base] ?? 0;
      this.#lengths[i] = file.entries[base + 1] ?? 0;
      for (let f = 0; f < 3; f++) {
        const id = file.entries[base + 2 + f] ?? -1;
        this.#ids[i * 3 + f] = id;
        if (id < 0) continue;
        const byId = lists[f] as Map<number, number[]>;
        const list = byId.get(id);
        if (list === undefined) byId.set(id, [i]);
        else list.push(i);
      }
      if ((file.entries[base + 2] ?? -1) >= 0) withSchema.push(i);
    }
    this.#withSchema = Int32Array.from(withSchema);
    const [schemas = new Map(), packages = new Map(), names = new Map()] = lists;
    this.#bySchema = byValue(file.schemas, schemas);
    this.#byPackage = byValue(file.packages, packages);
    this.#byName = byValue(file.names, names);
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
    return this.#packageGzip.get(pkg);
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
    const candidates: Int32Array[] = [];
    if (query.schema !== '') candidates.push(this.#bySchema.get(query.schema) ?? EMPTY);
    if (query.package !== '') candidates.push(this.#byPackage.get(query.package) ?? EMPTY);
    if (query.name !== '') candidates.push(this.#byName.get(query.name) ?? EMPTY);
    if (candidates.length === 0) candidates.push(this.#withSchema);
    let smallest = candidates[0] ?? EMPTY;
    for (const c of candidates) if (c.length < smallest.length) smallest = c;

    const ranges: ByteRange[] = [];
    for (const i of smallest) {
      if (!this.#matches(i, query)) continue;
      const offset = this.#offsets[i] ?? 0;
      const length = this.#lengths[i] ?? 0;
      const last = ranges[ranges.length - 1];
      if (last !== undefined && last.offset + last.length === offset) last.length += length;
      else ranges.push({ offset, length });
    }
    return ranges;
  }

  #matches(i: number, query: MetaQuery): boolean {
    const schemaId = this.#ids[i * 3] ?? -1;
    if (schemaId < 0) return false;
    if (query.schema !== '' && !this.#is(this.#bySchema, query.schema, i)) return false;
    if (query.package !== '' && !this.#is(this.#byPackage, query.package, i)) return false;
    if (query.name !== '' && !this.#is(this.#byName, query.name, i)) return false;
    return true;
  }

  #is(map: Map<string, Int32Array>, value: string, i: number): boolean {
    const list = map.get(value);
    return list !== undefined && binarySearch(list, i);
  }
}

const EMPTY = new Int32Array(0);

function byValue(values: string[], lists: Map<number, number[]>): Map<string, Int32Array> {
  const out = new Map<string, Int32Array>();
  for (const [id, list] of lists) {
    const value = values[id];
    if (value !== undefined) out.set(value, Int32Array.from(list));
  }
  return out;
}

function binarySearch(sorted: Int32Array, x: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid] ?? 0;
    if (v === x) return true;
    if (v < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
