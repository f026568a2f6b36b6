/**
 * A small JSON scanner that keeps source spans, for the two places where upstream works on
 * raw JSON text rather than decoded values: property values kept as `json.RawMessage`
 * (their number spellings and key order must survive a round trip) and streams of
 * concatenated JSON documents. Syntax errors are reported with the texts of Go's
 * `encoding/json` scanner (`unexpected end of JSON input`,
 * `invalid character 'x' looking for beginning of value`, ...).
 */
import { err, ok, type Result } from '../errors/index.ts';

/** A scanned JSON value with its `[start, end)` span in the source text. */
export type RawJson =
  | { kind: 'object'; start: number; end: number; members: { key: string; value: RawJson }[] }
  | { kind: 'array'; start: number; end: number; items: RawJson[] }
  | { kind: 'string' | 'number' | 'true' | 'false' | 'null'; start: number; end: number };

class JsonSyntaxError extends Error {}

/** Scans one complete JSON document (surrounding whitespace allowed). */
export function scanJson(text: string): Result<RawJson, string> {
  try {
    const scanner = new Scanner(text);
    const value = scanner.value('looking for beginning of value');
    scanner.skipSpace();
    if (scanner.pos < text.length) scanner.fail('after top-level value');
    return ok(value);
  } catch (e) {
    if (e instanceof JsonSyntaxError) return err(e.message);
    throw e;
  }
}

/** Splits a stream of whitespace-separated JSON values into the text of each value. */
export function splitJsonStream(text: string): Result<string[], string> {
  try {
    const scanner = new Scanner(text);
    const out: string[] = [];
    for (scanner.skipSpace(); scanner.pos < text.length; scanner.skipSpace()) {
      const value = scanner.value('looking for beginning of value');
      out.push(text.slice(value.start, value.end));
    }
    return ok(out);
  } catch (e) {
    if (e instanceof JsonSyntaxError) return err(e.message);
    throw e;
  }
}

/**
 * The JSON text of `node` compacted as Go's `json.Marshal` does for a `json.RawMessage`:
 * insignificant whitespace removed, string contents kept byte for byte except that `<`, `>`,
 * `&`, U+2028 and U+2029 are written as `\u003c`, `\u003e`, `\u0026`, `\u2028`, `\u2029`.
 */
export function compactRaw(text: string, node: RawJson): string {
  let out = '';
  let inString = false;
  for (let i = node.start; i < node.end; i++) {
    const c = text[i] as string;
    if (inString) {
      if (c === '\\') {
        out += c + (text[i + 1] ?? '');
        i++;
        continue;
      }
      if (c === '"') inString = false;
      out += HTML_ESCAPES[c] ?? c;
      continue;
    }
    if (c === '"') inString = true;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') continue;
    out += c;
  }
  return out;
}

const HTML_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** The type name Go's decoder uses for a JSON value kind in "cannot unmarshal" errors. */
export function goJsonKindName(node: RawJson): string {
  if (node.kind === 'true' || node.kind === 'false') return 'bool';
  return node.kind;
}

class Scanner {
  pos = 0;
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  skipSpace(): void {
    while (this.pos < this.text.length && ' \t\n\r'.includes(this.text[this.pos] as string)) this.pos++;
  }

  fail(context: string): never {
    if (this.pos >= this.text.length) throw new JsonSyntaxError('unexpected end of JSON input');
    throw new JsonSyntaxError(`invalid character ${quoteChar(this.text[this.pos] as string)} ${context}`);
  }

  value(context: string): RawJson {
    this.skipSpace();
    const start = this.pos;
    const c = this.text[this.pos];
    if (c === '{') return this.object(start);
    if (c === '[') return this.array(start);
    if (c === '"') {
      this.string();
      return { kind: 'string', start, end: this.pos };
    }
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      this.number();
      return { kind: 'number', start, end: this.pos };
    }
    for (const lit of ['true', 'false', 'null'] as const) {
      if (c === lit[0]) {
        for (const expected of lit) {
          if (this.text[this.pos] !== expected) this.fail(`in literal ${lit} (expecting '${expected}')`);
          this.pos++;
        }
        return { kind: lit, start, end: this.pos };
      }
    }
    return this.fail(context);
  }

  private object(start: number): RawJson {
    this.pos++;
    const members: { key: string; value: RawJson }[] = [];
    this.skipSpace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return { kind: 'object', start, end: this.pos, members };
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] !== '"') this.fail('looking for beginning of object key string');
      const keyStart = this.pos;
      this.string();
      const key = JSON.parse(this.text.slice(keyStart, this.pos)) as string;
      this.skipSpace();
      if (this.text[this.pos] !== ':') this.fail('after object key');
      this.pos++;
      members.push({ key, value: this.value('looking for beginning of value') });
      this.skipSpace();
      const c = this.text[this.pos];
      this.pos++;
      if (c === '}') return { kind: 'object', start, end: this.pos, members };
      if (c !== ',') {
        this.pos--;
        this.fail('after object key:value pair');
      }
    }
  }

  private array(start: number): RawJson {
    this.pos++;
    const items: RawJson[] = [];
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return { kind: 'array', start, end: this.pos, items };
    }
    for (;;) {
      items.push(this.value('looking for beginning of value'));
      this.skipSpace();
      const c = this.text[this.pos];
      this.pos++;
      if (c === ']') return { kind: 'array', start, end: this.pos, items };
      if (c !== ',') {
        this.pos--;
        this.fail('after array element');
      }
    }
  }

  private string(): void {
    this.pos++;
    for (;;) {
      const c = this.text[this.pos];
      if (c === undefined) this.fail('in string literal');
      if (c === '"') {
        this.pos++;
        return;
      }
      if (c < ' ') this.fail('in string literal');
      if (c === '\\') {
        this.pos++;
        const e = this.text[this.pos];
        if (e === 'u') {
          for (let i = 1; i <= 4; i++) {
            this.pos++;
            if (!/[0-9a-fA-F]/.test(this.text[this.pos] ?? '')) this.fail('in \\u hexadecimal character escape');
          }
        } else if (e === undefined || !'"\\/bfnrt'.includes(e)) {
          this.fail('in string escape code');
        }
      }
      this.pos++;
    }
  }

  private number(): void {
    NUMBER.lastIndex = this.pos;
    const m = NUMBER.exec(this.text);
    if (m === null || m[0] === '-') {
      this.pos++;
      this.fail('in numeric literal');
    }
    this.pos += m[0].length;
  }
}

const NUMBER = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;

// Go's encoding/json quoteChar.
function quoteChar(c: string): string {
  if (c === "'") return `'\\''`;
  if (c === '"') return `'"'`;
  const q = JSON.stringify(c);
  return `'${q.slice(1, -1)}'`;
}
