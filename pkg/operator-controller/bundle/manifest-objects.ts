/**
 * Turns the text of one `manifests/` file into Kubernetes objects the way upstream's
 * resource builder does: every document of the stream is an object with `apiVersion` and
 * `kind`; a document with an `items` field is a list whose items are flattened (items
 * without `apiVersion` and `kind` inherit them from the list, `FooList` giving `Foo`).
 */
import { err, ok, type Result } from '../../shared/errors/index.ts';
import type { KubeObject } from './types.ts';
import { decodeDocuments } from '../../gocompat/goyaml/index.ts';

/**
 * Decodes `text` (the content of `path`) into objects, in document order.
 * Error texts follow the resource builder, e.g.
 * `error parsing manifests/a.yaml: error converting YAML to JSON: yaml: line 3, column 1: ...`
 * or `unable to decode "manifests/a.yaml": Object 'Kind' is missing in '{"a":1}'`.
 */
export function decodeManifestObjects(text: string, path: string): Result<KubeObject[], string> {
  const docs = decodeDocuments(text);
  if (!docs.ok) return err(`error parsing ${path}: error converting YAML to JSON: ${docs.error}`);
  const out: KubeObject[] = [];
  for (const doc of docs.value) {
    const flattened = flatten(doc, path, out, 0);
    if (!flattened.ok) return flattened;
  }
  return ok(out);
}

function flatten(doc: unknown, path: string, out: KubeObject[], depth: number): Result<void, string> {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    return err(`unable to decode ${JSON.stringify(path)}: json: cannot unmarshal ${kindOfValue(doc)} into Go value of type map[string]interface {}`);
  }
  const record = doc as Record<string, unknown>;
  const items = record['items'];
  if (items !== undefined && items !== null && depth < 16) {
    if (!Array.isArray(items)) {
      return err(`unable to decode ${JSON.stringify(path)}: items of a list must be an array, got ${kindOfValue(items)}`);
    }
    const listKind = typeof record['kind'] === 'string' ? record['kind'] : '';
    const listApiVersion = typeof record['apiVersion'] === 'string' ? record['apiVersion'] : '';
    for (const item of items) {
      let element: unknown = item;
      if (isPlainObject(item) && item['kind'] === undefined && item['apiVersion'] === undefined) {
        element = { ...item, apiVersion: listApiVersion, kind: listKind.replace(/List$/, '') };
      }
      const nested = flatten(element, path, out, depth + 1);
      if (!nested.ok) return nested;
    }
    return ok(undefined);
  }
  const kind = record['kind'];
  const apiVersion = record['apiVersion'];
  if (typeof kind !== 'string' || kind === '') {
    return err(`unable to decode ${JSON.stringify(path)}: Object 'Kind' is missing in '${preview(record)}'`);
  }
  if (typeof apiVersion !== 'string' || apiVersion === '') {
    return err(`unable to decode ${JSON.stringify(path)}: Object 'apiVersion' is missing in '${preview(record)}'`);
  }
  const metadata = record['metadata'];
  if (metadata !== undefined && metadata !== null && !isPlainObject(metadata)) {
    return err(`unable to decode ${JSON.stringify(path)}: ${kind}: metadata must be an object, got ${kindOfValue(metadata)}`);
  }
  // Every object has metadata from here on (upstream's unstructured objects behave the same).
  out.push((metadata === undefined || metadata === null ? { ...record, metadata: {} } : record) as KubeObject);
  return ok(undefined);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The JSON kind name Go uses in "cannot unmarshal" messages. */
function kindOfValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

// Upstream prints the whole document; a bounded preview keeps one-line errors readable.
function preview(record: Record<string, unknown>): string {
  const json = JSON.stringify(record);
  return json.length > 200 ? `${json.slice(0, 200)}...` : json;
}
