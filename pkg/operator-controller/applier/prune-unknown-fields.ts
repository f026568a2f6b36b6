/**
 * Drops the fields of an object that the API server's schema does not declare, before the
 * object is server-side applied. Server-side apply refuses an object with such fields
 * outright (`.spec.x: field not declared in schema`, whatever `fieldValidation` says), while
 * upstream decodes bundle objects into typed structs, which silently drops them (decision
 * 0044). Pruning here gives upstream's outcome and tells which fields went.
 */
import type { KubeObject, ObjectSchema } from '../../shared/kube/index.ts';

/** An object without its undeclared fields, and which fields were dropped. */
interface PrunedObject {
  object: KubeObject;
  /**
   * Paths of the dropped fields in the API server's syntax: `.spec.version`, items of keyed
   * lists by key (`.spec.template.spec.containers[name="app"].foo`), others by index
   * (`.spec.versions[0].foo`). In document order.
   */
  dropped: string[];
}

type Json = Record<string, unknown>;

function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Returns a copy of `object` without the fields its schema does not declare; objects whose
 * kind has no schema (or preserves unknown fields) are returned unchanged. Never mutates the
 * input. `metadata` (ObjectMeta) and `status` are pruned like any field: the server refuses
 * unknown keys there too. Whether the remaining status is stored is left to the server (it
 * ignores status on apply of kinds with a status subresource, as it does on create).
 *
 * Values whose shape does not fit the schema (an object where a string is declared) are kept:
 * the API server reports them. `schema` comes from OpenApiSchemas.schemaFor in pkg/shared/kube.
 */
export function pruneUnknownFields(object: KubeObject, schema: ObjectSchema | undefined): PrunedObject {
  const copy = structuredClone(object);
  const dropped: string[] = [];
  if (schema === undefined || schema.open || schema.object === undefined) return { object: copy, dropped };
  for (const key of Object.keys(copy)) {
    const field = schema.object.field(key);
    if (field === undefined) {
      delete copy[key];
      dropped.push(`.${key}`);
    } else {
      pruneValue(copy[key], field, `.${key}`, dropped);
    }
  }
  return { object: copy, dropped };
}

// Prunes `value` in place (it belongs to the copy).
function pruneValue(value: unknown, schema: ObjectSchema, path: string, dropped: string[]): void {
  if (schema.open) return;
  if (isRecord(value)) {
    if (schema.object === undefined) return;
    for (const key of Object.keys(value)) {
      const field = schema.object.field(key);
      if (field === undefined) {
        delete value[key];
        dropped.push(`${path}.${key}`);
      } else {
        pruneValue(value[key], field, `${path}.${key}`, dropped);
      }
    }
    return;
  }
  if (Array.isArray(value) && schema.list !== undefined) {
    const { items, keys } = schema.list;
    if (items.open) return;
    for (const [index, item] of value.entries()) {
      pruneValue(item, items, `${path}${itemElement(item, index, items, keys)}`, dropped);
    }
  }
}

/**
 * How the server names a list item in paths: `[k1=v1,k2=v2]` (keys sorted by name, values
 * as JSON) for keyed lists, a missing key taking its schema default; `[i]` otherwise.
 */
function itemElement(item: unknown, index: number, items: ObjectSchema, keys: readonly string[] | undefined): string {
  if (keys === undefined || keys.length === 0 || !isRecord(item)) return `[${index}]`;
  const parts: string[] = [];
  for (const key of [...keys].sort()) {
    const value = item[key] ?? items.object?.fieldDefault(key);
    // An item without a key is refused by the server; the index still locates it.
    if (value === undefined) return `[${index}]`;
    parts.push(`${key}=${JSON.stringify(value)}`);
  }
  return `[${parts.join(',')}]`;
}
