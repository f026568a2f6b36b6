/**
 * A strict parser of the part of TOML 1.0 that containers-registries.conf files use: comments,
 * bare and quoted keys (dotted too), `[table]` and `[[array.of.tables]]` headers, single-line
 * basic and literal strings, booleans, decimal integers, arrays (over several lines, trailing
 * comma allowed) and inline tables. Anything else (multi-line strings, floats, dates) is refused
 * with the line it is on rather than misread: a registries.conf that decides where images come
 * from must mean exactly what it says.
 */
import { err, ok, type Result } from '../errors/index.ts';

/** A parsed value. Tables are Maps so that no key can collide with an object property. */
export type TomlValue = string | boolean | number | TomlValue[] | TomlTable;
/** A table: keys in document order. */
export type TomlTable = Map<string, TomlValue>;

/** A parsed document. */
export interface TomlDocument {
  root: TomlTable;
  /** 1-based line of the header or inline table that opened each table (the root: absent). */
  lineOf: WeakMap<TomlTable, number>;
}

/** Where and why a document does not parse. */
interface TomlError {
  line: number;
  message: string;
}

class SyntaxFailure extends Error {
  readonly line: number;
  constructor(line: number, message: string) {
    super(message);
    this.line = line;
  }
}

const BARE_KEY = /[A-Za-z0-9_-]/;
const INTEGER = /^[+-]?(?:0|[1-9](?:_?[0-9])*)/;
const ESCAPES: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' };

/** True for a value that is a table. */
export function isTable(v: TomlValue | undefined): v is TomlTable {
  return v instanceof Map;
}

/** Parses `text`; the error names the line (1-based). */
export function parseToml(text: string): Result<TomlDocument, TomlError> {
  const parser = new Parser(text);
  try {
    return ok(parser.document());
  } catch (e) {
    if (e instanceof SyntaxFailure) return err({ line: e.line, message: e.message });
    throw e;
  }
}

class Parser {
  readonly #s: string;
  #pos = 0;
  #line = 1;
  readonly #root: TomlTable = new Map();
  readonly #lineOf = new WeakMap<TomlTable, number>();
  /** Tables opened by a `[header]` (may not be opened again) and arrays made by `[[header]]`. */
  readonly #headed = new WeakSet<TomlTable>();
  readonly #tableArrays = new WeakSet<TomlValue[]>();
  /** Inline tables and static arrays: complete where they are written. */
  readonly #sealed = new WeakSet<object>();

  constructor(s: string) {
    this.#s = s.startsWith('\uFEFF') ? s.slice(1) : s;
  }

  document(): TomlDocument {
    let current = this.#root;
    for (;;) {
      this.#skipBlank();
      const c = this.#peek();
      if (c === undefined) break;
      if (c === '\n' || c === '\r' || c === '#') {
        this.#endOfLine();
      } else if (c === '[') {
        current = this.#header();
        this.#endOfLine();
      } else {
        this.#keyValue(current);
        this.#endOfLine();
      }
    }
    return { root: this.#root, lineOf: this.#lineOf };
  }

  #fail(message: string): never {
    throw new SyntaxFailure(this.#line, message);
  }

  #peek(offset = 0): string | undefined {
    return this.#s[this.#pos + offset];
  }

  #skipBlank(): void {
    while (this.#peek() === ' ' || this.#peek() === '\t') this.#pos++;
  }

  /** A comment or nothing, then a newline or the end. */
  #endOfLine(): void {
    this.#skipBlank();
    if (this.#peek() === '#') this.#comment();
    const c = this.#peek();
    if (c === undefined) return;
    if (c === '\n' || (c === '\r' && this.#peek(1) === '\n')) {
      this.#pos += c === '\r' ? 2 : 1;
      this.#line++;
      return;
    }
    this.#fail(`expected the end of the line, found ${JSON.stringify(c)}`);
  }

  #comment(): void {
    while (this.#peek() !== undefined && this.#peek() !== '\n' && !(this.#peek() === '\r' && this.#peek(1) === '\n')) {
      const code = this.#s.charCodeAt(this.#pos);
      if ((code < 0x20 && code !== 0x09) || code === 0x7f) this.#fail('control character in a comment');
      this.#pos++;
    }
  }

  /** Blanks, comments and newlines (inside arrays). */
  #skipSpace(): void {
    for (;;) {
      this.#skipBlank();
      const c = this.#peek();
      if (c === '#') this.#comment();
      else if (c === '\n' || (c === '\r' && this.#peek(1) === '\n')) this.#endOfLine();
      else return;
    }
  }

  #header(): TomlTable {
    const line = this.#line;
    const array = this.#peek(1) === '[';
    this.#pos += array ? 2 : 1;
    this.#skipBlank();
    const path = this.#keyPath();
    this.#skipBlank();
    if (!this.#s.startsWith(array ? ']]' : ']', this.#pos)) this.#fail(`expected ${array ? ']]' : ']'} to close the table header`);
    this.#pos += array ? 2 : 1;
    const parent = this.#walk(this.#root, path.slice(0, -1), true);
    const last = path[path.length - 1] ?? '';
    const existing = parent.get(last);
    const name = path.join('.');
    const table: TomlTable = new Map();
    this.#lineOf.set(table, line);
    if (array) {
      if (existing === undefined) {
        const list: TomlValue[] = [table];
        this.#tableArrays.add(list);
        parent.set(last, list);
      } else if (Array.isArray(existing) && this.#tableArrays.has(existing)) {
        existing.push(table);
      } else {
        this.#fail(`[[${name}]] conflicts with the earlier definition of ${name}`);
      }
      return table;
    }
    if (existing === undefined) {
      parent.set(last, table);
      this.#headed.add(table);
      return table;
    }
    if (isTable(existing) && !this.#headed.has(existing) && !this.#sealed.has(existing)) {
      this.#headed.add(existing);
      this.#lineOf.set(existing, line);
      return existing;
    }
    this.#fail(`table [${name}] is defined more than once`);
  }

  /** The table at `path` under `from`, creating missing tables; array-of-tables steps go to their last table. */
  #walk(from: TomlTable, path: readonly string[], throughArrays: boolean): TomlTable {
    let t = from;
    for (const key of path) {
      const v = t.get(key);
      if (v === undefined) {
        const created: TomlTable = new Map();
        this.#lineOf.set(created, this.#line);
        t.set(key, created);
        t = created;
      } else if (isTable(v) && !this.#sealed.has(v)) {
        t = v;
      } else if (throughArrays && Array.isArray(v) && this.#tableArrays.has(v) && isTable(v[v.length - 1])) {
        t = v[v.length - 1] as TomlTable;
      } else {
        this.#fail(`key ${JSON.stringify(key)} is already defined and is not a table`);
      }
    }
    return t;
  }

  #keyValue(table: TomlTable): void {
    const path = this.#keyPath();
    this.#skipBlank();
    if (this.#peek() !== '=') this.#fail(`expected "=" after the key ${path.join('.')}`);
    this.#pos++;
    this.#skipBlank();
    const target = this.#walk(table, path.slice(0, -1), false);
    const last = path[path.length - 1] ?? '';
    if (target.has(last)) this.#fail(`key ${path.join('.')} is defined more than once`);
    target.set(last, this.#value());
  }

  #keyPath(): string[] {
    const path = [this.#key()];
    for (;;) {
      this.#skipBlank();
      if (this.#peek() !== '.') return path;
      this.#pos++;
      this.#skipBlank();
      path.push(this.#key());
    }
  }

  #key(): string {
    const c = this.#peek();
    if (c === '"' || c === "'") return this.#string();
    const start = this.#pos;
    while (this.#peek() !== undefined && BARE_KEY.test(this.#peek() ?? '')) this.#pos++;
    if (this.#pos === start) this.#fail(c === undefined ? 'expected a key' : `expected a key, found ${JSON.stringify(c)}`);
    return this.#s.slice(start, this.#pos);
  }

  #value(): TomlValue {
    const c = this.#peek();
    if (c === '"' || c === "'") return this.#string();
    if (c === '[') return this.#array();
    if (c === '{') return this.#inlineTable();
    const rest = this.#s.slice(this.#pos, this.#pos + 64);
    const word = /^(true|false)(?![A-Za-z0-9_-])/.exec(rest);
    if (word !== null) {
      this.#pos += word[0].length;
      return word[1] === 'true';
    }
    const int = INTEGER.exec(rest);
    if (int !== null && !/^[.eE:0-9_-]/.test(rest.slice(int[0].length))) {
      this.#pos += int[0].length;
      return Number(int[0].replaceAll('_', ''));
    }
    if (c === undefined || c === '\n' || c === '\r' || c === '#') this.#fail('expected a value');
    this.#fail(`unsupported value starting with ${JSON.stringify(c)} (strings, booleans, integers, arrays and inline tables only)`);
  }

  #string(): string {
    const quote = this.#peek() ?? '';
    if (this.#s.startsWith(quote.repeat(3), this.#pos)) this.#fail('multi-line strings are not supported');
    this.#pos++;
    let out = '';
    for (;;) {
      const c = this.#peek();
      if (c === undefined || c === '\n' || c === '\r') this.#fail('unterminated string');
      this.#pos++;
      if (c === quote) return out;
      const code = c.charCodeAt(0);
      if ((code < 0x20 && c !== '\t') || code === 0x7f) this.#fail('control character in a string');
      if (c === '\\' && quote === '"') out += this.#escape();
      else out += c;
    }
  }

  #escape(): string {
    const c = this.#peek() ?? '';
    this.#pos++;
    const simple = ESCAPES[c];
    if (simple !== undefined) return simple;
    const digits = c === 'u' ? 4 : c === 'U' ? 8 : 0;
    const hex = this.#s.slice(this.#pos, this.#pos + digits);
    if (digits === 0 || !new RegExp(`^[0-9A-Fa-f]{${digits}}$`).test(hex)) this.#fail(`invalid escape \\${c}`);
    const point = Number.parseInt(hex, 16);
    if (point > 0x10ffff || (point >= 0xd800 && point <= 0xdfff)) this.#fail(`invalid escape \\${c}${hex}: not a Unicode scalar value`);
    this.#pos += digits;
    return String.fromCodePoint(point);
  }

  #array(): TomlValue[] {
    this.#pos++;
    const out: TomlValue[] = [];
    this.#sealed.add(out);
    for (;;) {
      this.#skipSpace();
      if (this.#peek() === ']') break;
      out.push(this.#value());
      this.#skipSpace();
      if (this.#peek() === ',') this.#pos++;
      else if (this.#peek() !== ']') this.#fail('expected "," or "]" in an array');
    }
    this.#pos++;
    return out;
  }

  #inlineTable(): TomlTable {
    const table: TomlTable = new Map();
    this.#lineOf.set(table, this.#line);
    this.#pos++;
    this.#skipBlank();
    if (this.#peek() === '}') {
      this.#pos++;
      this.#sealed.add(table);
      return table;
    }
    for (;;) {
      this.#keyValue(table);
      this.#skipBlank();
      const c = this.#peek();
      this.#pos++;
      if (c === '}') break;
      if (c !== ',') this.#fail('expected "," or "}" in an inline table');
      this.#skipBlank();
    }
    this.#sealed.add(table);
    return table;
  }
}
