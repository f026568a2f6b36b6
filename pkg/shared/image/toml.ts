/**
 * containers-registries.conf files read with smol-toml as upstream's BurntSushi/toml reads them
 * (decision 0106), turned into Maps (no key can collide with an object property), each table
 * opened by a `[header]`/`[[header]]` line remembering that line for the decoder's messages.
 * Header lines are found by scanning the text after a successful parse; a line inside a
 * multi-line array that reads exactly like a header could misplace a message's line, never a
 * value. Inline tables have no line of their own.
 */
import { parse, TomlError } from 'smol-toml';
import { err, ok, type Result } from '../errors/index.ts';

/** A parsed value. Tables are Maps so that no key can collide with an object property. */
export type TomlValue = string | boolean | number | Date | TomlValue[] | TomlTable;
/** A table: keys in document order. */
export type TomlTable = Map<string, TomlValue>;

/** A parsed document. */
export interface TomlDocument {
  root: TomlTable;
  /** 1-based line of the `[header]`/`[[header]]` that opened each table (the root: absent). */
  lineOf: WeakMap<TomlTable, number>;
}

/** Where and why a document does not parse. */
interface TomlSyntaxError {
  line: number;
  message: string;
}

/** True for a value that is a table. */
export function isTable(v: TomlValue | undefined): v is TomlTable {
  return v instanceof Map;
}

/** Parses `text`; the error names the line (1-based) and smol-toml's reason. */
export function parseToml(text: string): Result<TomlDocument, TomlSyntaxError> {
  let parsed: Record<string, unknown>;
  try {
    parsed = parse(text);
  } catch (e) {
    if (!(e instanceof TomlError)) throw e;
    const reason = (e.message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '');
    return err({ line: e.line, message: reason });
  }
  const objects = new Map<object, TomlTable>();
  const root = toMap(parsed, objects);
  return ok({ root, lineOf: headerLines(text, parsed, objects) });
}

/** smol-toml's value as a TomlValue; `objects` records the Map made of each table object. */
function toValue(v: unknown, objects: Map<object, TomlTable>): TomlValue {
  if (Array.isArray(v)) return v.map((e) => toValue(e, objects));
  if (v instanceof Date) return v;
  if (typeof v === 'object' && v !== null) return toMap(v as Record<string, unknown>, objects);
  return v as string | boolean | number;
}

function toMap(o: Record<string, unknown>, objects: Map<object, TomlTable>): TomlTable {
  const m: TomlTable = new Map();
  for (const [k, v] of Object.entries(o)) m.set(k, toValue(v, objects));
  objects.set(o, m);
  return m;
}

const HEADER = /^\s*(\[\[?)\s*([^[\]#]+?)\s*(\]\]?)\s*(?:#.*)?$/;
const KEY_PART = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(?:\.|$)/y;

/** The line of every table a header line opened, by walking the headers in document order. */
function headerLines(text: string, root: Record<string, unknown>, objects: Map<object, TomlTable>): WeakMap<TomlTable, number> {
  const lineOf = new WeakMap<TomlTable, number>();
  const nextElement = new Map<unknown[], number>();
  let inString: '"""' | "'''" | undefined;
  for (const [i, line] of text.split('\n').entries()) {
    if (inString !== undefined || line.includes('"""') || line.includes("'''")) {
      inString = multiLineState(line, inString);
      continue;
    }
    const m = HEADER.exec(line);
    if (m === null || (m[1] === '[[') !== (m[3] === ']]')) continue;
    const path = keyPath(m[2] ?? '');
    // The header opens its table and any table on its path that no earlier header opened.
    for (const table of path === undefined ? [] : resolve(root, path, m[1] === '[[', nextElement)) {
      const map = objects.get(table);
      if (map !== undefined && !lineOf.has(map)) lineOf.set(map, i + 1);
    }
  }
  return lineOf;
}

/** Whether a multi-line string is still open after `line`. */
function multiLineState(line: string, open: '"""' | "'''" | undefined): '"""' | "'''" | undefined {
  let state = open;
  let pos = 0;
  for (;;) {
    if (state === undefined) {
      const d = line.indexOf('"""', pos);
      const s = line.indexOf("'''", pos);
      if (d === -1 && s === -1) return undefined;
      const at = d === -1 ? s : s === -1 ? d : Math.min(d, s);
      state = at === d ? '"""' : "'''";
      pos = at + 3;
    } else {
      const at = line.indexOf(state, pos);
      if (at === -1) return state;
      state = undefined;
      pos = at + 3;
    }
  }
}

/** `a."b.c".d` as its keys; undefined for anything that is no key. */
function keyPath(s: string): string[] | undefined {
  const keys: string[] = [];
  KEY_PART.lastIndex = 0;
  while (KEY_PART.lastIndex < s.length) {
    const m = KEY_PART.exec(s);
    if (m === null) return undefined;
    const quoted = m[1] !== undefined ? basicString(m[1]) : undefined;
    if (m[1] !== undefined && quoted === undefined) return undefined;
    keys.push(quoted ?? m[2] ?? m[3] ?? '');
  }
  return keys;
}

/** A basic string's escapes resolved (JSON's are a subset of TOML's); undefined for others. */
function basicString(body: string): string | undefined {
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return undefined;
  }
}

/**
 * The tables on the way to `[path]` and the table it names (of every array of tables on the
 * way, the element opened last), or for `[[path]]` the next element of that array of tables;
 * empty when the document has no such table.
 */
function resolve(root: Record<string, unknown>, path: string[], arrayOfTables: boolean, nextElement: Map<unknown[], number>): object[] {
  const tables: object[] = [];
  let cur: unknown = root;
  for (const [i, key] of path.entries()) {
    if (typeof cur !== 'object' || cur === null || Array.isArray(cur) || !Object.hasOwn(cur, key)) return [];
    let v = (cur as Record<string, unknown>)[key];
    if (Array.isArray(v)) {
      // The element a `[[...]]` header opens is the next one; on the way, the one opened last.
      const opened = nextElement.get(v) ?? 0;
      const last = arrayOfTables && i === path.length - 1;
      if (last) nextElement.set(v, opened + 1);
      v = v[last ? opened : opened - 1];
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof Date) return [];
    tables.push(v);
    cur = v;
  }
  return tables;
}
