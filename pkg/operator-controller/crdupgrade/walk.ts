/**
 * Every schema of a CRD version by its property path, as crdify flattens it: the root is `^`,
 * a property is `^.spec.foo`, an array's item schema `^.spec.list.items` (positional items
 * `items[0]`), combinators `allOf[0]`, `anyOf[0]`, `not`, and maps `additionalProperties`,
 * `patternProperties[<pattern>]`, `additionalItems`, `definitions[<name>]`,
 * `dependencies[<name>]`. Paths are printed as Kubernetes' `field.Path` prints them.
 *
 * Unlike crdify, `oneOf` entries are not walked: the oneOf rule compares them as a set, and
 * comparing them by position as well reported a reordered or removed entry as changes of
 * the entries after it (decision 0047).
 */
import { goSorted } from '../../gocompat/gotext/index.ts';
import type { Json, Schema } from './schema.ts';

function child(path: string, name: string): string {
  return name === '' ? `${path}[]` : `${path}.${name}`;
}

function indexed(path: string, index: number | string): string {
  return `${path}[${index}]`;
}

function isSchema(v: Json | undefined): v is Schema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function mapEntries(v: Json | undefined): [string, Json][] {
  if (!isSchema(v)) return [];
  return goSorted(Object.keys(v)).map((k) => [k, v[k] as Json]);
}

/**
 * Calls `visit` for `s` and every schema nested in it, depth first in crdify's order.
 * Properties are visited in byte order (Go visits its map in random order).
 */
function walkSchema(s: Schema, path: string, visit: (s: Schema, path: string) => void): void {
  visit(s, path);
  const items = s['items'];
  if (Array.isArray(items)) {
    for (const [i, x] of items.entries()) walkSchema(x as Schema, indexed(child(path, 'items'), i), visit);
  } else if (isSchema(items)) {
    walkSchema(items, child(path, 'items'), visit);
  }
  for (const combinator of ['allOf', 'anyOf']) {
    const list = s[combinator];
    if (!Array.isArray(list)) continue;
    for (const [i, x] of list.entries()) walkSchema(x as Schema, indexed(child(path, combinator), i), visit);
  }
  const not = s['not'];
  if (isSchema(not)) walkSchema(not, child(path, 'not'), visit);
  for (const [name, x] of mapEntries(s['properties'])) walkSchema(x as Schema, child(path, name), visit);
  const additional = s['additionalProperties'];
  if (isSchema(additional)) walkSchema(additional, child(path, 'additionalProperties'), visit);
  for (const [pattern, x] of mapEntries(s['patternProperties'])) walkSchema(x as Schema, indexed(child(path, 'patternProperties'), pattern), visit);
  const additionalItems = s['additionalItems'];
  if (isSchema(additionalItems)) walkSchema(additionalItems, child(path, 'additionalItems'), visit);
  for (const [name, x] of mapEntries(s['definitions'])) walkSchema(x as Schema, indexed(child(path, 'definitions'), name), visit);
  for (const [name, x] of mapEntries(s['dependencies'])) {
    if (isSchema(x)) walkSchema(x, indexed(child(path, 'dependencies'), name), visit);
  }
}

/** The root schema path. */
const ROOT_PATH = '^';

/** Every schema of `root` by path; a later schema at the same path replaces an earlier one, as in crdify. */
export function flattenSchema(root: Schema | undefined): Map<string, Schema> {
  const out = new Map<string, Schema>();
  if (root !== undefined) walkSchema(root, ROOT_PATH, (s, path) => out.set(path, s));
  return out;
}
