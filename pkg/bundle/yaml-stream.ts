/**
 * Decoding of manifest files the way Kubernetes tooling (and so upstream OLM) reads them:
 * a file whose first non-blank character is `{` is a stream of JSON values; anything else is
 * a multi-document YAML stream read with YAML 1.1 scalar rules (`yes`/`on`/`y` are booleans,
 * `0777` is octal, merge keys `<<` work) where timestamps stay strings and duplicate keys
 * keep the last value, which is what Go's YAML-to-JSON conversion produces. Empty documents
 * are skipped.
 *
 * Anchors and aliases are supported; a document whose aliases expand to more than
 * `MAX_EXPANDED_NODES` values is refused (an "alias bomb" would otherwise exhaust memory in
 * any consumer that walks or serialises it).
 */
import {
  FAILSAFE_SCHEMA,
  NOT_RESOLVED,
  Schema,
  boolYaml11Tag,
  floatCoreTag,
  floatYaml11Tag,
  intYaml11Tag,
  loadAll,
  mergeTag,
  nullYaml11Tag,
} from 'js-yaml';
import { err, ok, type Result } from '../errors/index.ts';
import { splitJsonStream } from './raw-json.ts';

// Go's YAML library also reads exponent forms without a dot (`1e3`) as floats.
const goFloatTag = {
  ...floatYaml11Tag,
  resolve: (source: string, isExplicit: boolean, tagName: string) => {
    const value = floatYaml11Tag.resolve(source, isExplicit, tagName);
    return value === NOT_RESOLVED ? floatCoreTag.resolve(source, isExplicit, tagName) : value;
  },
};

/** YAML 1.1 scalars without `!!timestamp`/`!!binary`: matches Go's yaml-to-JSON decoding. */
export const GO_COMPATIBLE_YAML_SCHEMA = new Schema([
  ...FAILSAFE_SCHEMA.tags,
  nullYaml11Tag,
  boolYaml11Tag,
  intYaml11Tag,
  goFloatTag,
  mergeTag,
]);

/** Upper bound on the number of values one document may expand to through aliases. */
export const MAX_EXPANDED_NODES = 5_000_000;

/**
 * Decodes bytes as UTF-8 text (a leading byte-order mark is dropped).
 * Fails with `invalid UTF-8 text` when the bytes are not valid UTF-8.
 */
export function decodeUtf8(bytes: Uint8Array): Result<string, string> {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return ok(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch {
    return err('invalid UTF-8 text');
  }
}

/**
 * Decodes a JSON or YAML stream into its non-empty documents, in order.
 * Errors are one-line texts such as `yaml: line 3, column 1: deficient indentation`.
 */
export function decodeDocuments(text: string): Result<unknown[], string> {
  const firstChar = /\S/.exec(text)?.[0];
  if (firstChar === '{') return decodeJsonStream(text);
  let docs: unknown[];
  try {
    docs = loadAll(text, { schema: GO_COMPATIBLE_YAML_SCHEMA, json: true, maxAliases: 100_000 });
  } catch (e) {
    return err(yamlErrorText(e));
  }
  const out: unknown[] = [];
  for (const doc of docs) {
    if (doc === null || doc === undefined) continue;
    if (expandedSize(doc, MAX_EXPANDED_NODES) > MAX_EXPANDED_NODES) {
      return err(`yaml: document expands to more than ${MAX_EXPANDED_NODES} values through aliases`);
    }
    out.push(doc);
  }
  return ok(out);
}

/**
 * Decodes a single YAML or JSON document (the shape of `metadata/*.yaml` files).
 * An empty file decodes to `null`.
 */
export function decodeSingleDocument(text: string): Result<unknown, string> {
  const docs = decodeDocuments(text);
  if (!docs.ok) return docs;
  if (docs.value.length > 1) return err('yaml: expected a single document, found several');
  return ok(docs.value[0] ?? null);
}

function decodeJsonStream(text: string): Result<unknown[], string> {
  const pieces = splitJsonStream(text);
  if (!pieces.ok) return pieces;
  const out: unknown[] = [];
  for (const piece of pieces.value) {
    const value: unknown = JSON.parse(piece);
    if (value !== null) out.push(value);
  }
  return ok(out);
}

function yamlErrorText(e: unknown): string {
  if (e instanceof Error && 'reason' in e && 'mark' in e) {
    const mark = e.mark as { line?: number; column?: number } | undefined;
    const where = mark?.line === undefined ? '' : ` line ${mark.line + 1}, column ${(mark.column ?? 0) + 1}:`;
    return `yaml:${where} ${String(e.reason)}`;
  }
  return `yaml: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`;
}

/**
 * Number of values in `root` counting shared (aliased) subtrees once per reference, stopping
 * early once `budget` is exceeded. Memoised per object, so the walk is linear in the size of
 * the decoded graph, not of its expansion.
 */
function expandedSize(root: unknown, budget: number): number {
  const memo = new Map<object, number>();
  function size(v: unknown): number {
    if (v === null || typeof v !== 'object') return 1;
    const known = memo.get(v);
    if (known !== undefined) return known;
    memo.set(v, budget + 1); // a cycle cannot come from YAML, but never loop forever
    let total = 1;
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const child of children) {
      total += size(child);
      if (total > budget) break;
    }
    memo.set(v, total);
    return total;
  }
  return size(root);
}
