/**
 * The object diff of an upgrade (pure): objects added, removed and changed, with field-level
 * lines in the spirit of `kubectl diff`. Objects are matched by group, kind, namespace and name
 * (a new apiVersion is a change), and server-added fields are stripped. Secret values under
 * `data` and `stringData` print as `(redacted)`. Output is bounded (MAX_LINES, MAX_VALUE_CHARS,
 * MAX_DEPTH, MAX_OBJECTS).
 */
import { createHash } from 'node:crypto';
import { describeObject } from '../applier/index.ts';
import type { KubeObject } from '../bundle/index.ts';

/** Objects added, removed and changed, each named `Kind ns/name` (describeObject). */
export interface ObjectDiff {
  added: string[];
  removed: string[];
  changed: { object: string; lines: string[] }[];
}

const MAX_LINES = 200;
const MAX_VALUE_CHARS = 200;
const MAX_DEPTH = 32;
const MAX_OBJECTS = 1_000;
const REDACTED = '(redacted)';
const SERVER_METADATA = new Set(['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields', 'selfLink']);

type Named = { kind: string; apiVersion: string; metadata: { name?: string; namespace?: string } } & Record<string, unknown>;

/** Objects added, removed and changed between two releases' manifests, with kubectl-diff-like field lines; Secret data/stringData values redacted. */
export function objectDiff(before: readonly KubeObject[], after: readonly KubeObject[]): ObjectDiff {
  const old = byIdentity(before);
  const next = byIdentity(after);
  const diff: ObjectDiff = { added: [], removed: [], changed: [] };
  for (const [id, obj] of next) {
    const prev = old.get(id);
    if (prev === undefined) {
      if (diff.added.length < MAX_OBJECTS) diff.added.push(describeObject(obj));
      continue;
    }
    const lines = fieldLines(comparable(prev), comparable(obj), obj.kind === 'Secret');
    if (lines.length > 0 && diff.changed.length < MAX_OBJECTS) diff.changed.push({ object: describeObject(obj), lines });
  }
  for (const [id, obj] of old) if (!next.has(id) && diff.removed.length < MAX_OBJECTS) diff.removed.push(describeObject(obj));
  return diff;
}

/** Named objects by identity, the last of duplicates winning (as applying them in order would). */
function byIdentity(objects: readonly unknown[]): Map<string, Named> {
  const out = new Map<string, Named>();
  for (const obj of Array.isArray(objects) ? objects : []) {
    if (typeof obj !== 'object' || obj === null) continue;
    const o = obj as Record<string, unknown>;
    const kind = typeof o['kind'] === 'string' ? o['kind'] : '';
    const apiVersion = typeof o['apiVersion'] === 'string' ? o['apiVersion'] : '';
    const m = typeof o['metadata'] === 'object' && o['metadata'] !== null ? (o['metadata'] as Record<string, unknown>) : {};
    const metadata = {
      ...(typeof m['name'] === 'string' ? { name: m['name'] } : {}),
      ...(typeof m['namespace'] === 'string' && m['namespace'] !== '' ? { namespace: m['namespace'] } : {}),
    };
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    out.set(JSON.stringify([group, kind, metadata.namespace ?? '', metadata.name ?? '']), {
      ...o,
      kind,
      apiVersion,
      metadata: { ...m, ...metadata },
    });
  }
  return out;
}

/** The object without what an API server adds. */
function comparable(obj: Named): Record<string, unknown> {
  const { status: _status, ...rest } = obj;
  const metadata = Object.fromEntries(Object.entries(obj.metadata).filter(([k]) => !SERVER_METADATA.has(k)));
  return { ...rest, metadata };
}

/** Leaf paths and printed values of `value`, in key order. */
function flatten(value: unknown, path: string, depth: number, out: Map<string, string>): void {
  if (typeof value === 'object' && value !== null && depth < MAX_DEPTH) {
    const entries: [string, unknown][] = Array.isArray(value)
      ? value.map((v, i) => [`[${i}]`, v])
      : Object.entries(value).map(([k, v]) => [keyPath(k), v]);
    if (entries.length === 0) out.set(path, Array.isArray(value) ? '[]' : '{}');
    for (const [k, v] of entries) flatten(v, path === '' || k.startsWith('[') ? `${path}${k}` : `${path}.${k}`, depth + 1, out);
    return;
  }
  out.set(path, typeof value === 'object' && value !== null ? deepValue(value) : printed(value));
}

/**
 * A subtree nested below MAX_DEPTH, printed as its digest: walked without recursion (a hostile
 * manifest may nest deeper than the stack allows), so that differences still show.
 */
function deepValue(value: object): string {
  const hash = createHash('sha256');
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) {
      hash.update(`${JSON.stringify(v) ?? 'null'},`);
      continue;
    }
    const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
    hash.update(Array.isArray(v) ? `[${entries.length}` : `{${entries.length}`);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, x] = entries[i] as readonly [string, unknown];
      stack.push(x, `${k}:`);
    }
  }
  return `(nested deeper than ${MAX_DEPTH} levels, sha256 ${hash.digest('hex').slice(0, 12)})`;
}

function keyPath(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key) ? key : `[${JSON.stringify(key)}]`;
}

function printed(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}...` : text;
}

function secretValue(path: string): boolean {
  return /^(data|stringData)(\.|\[)/.test(path);
}

/**
 * `- path: old` and `+ path: new` lines for every leaf that differs (removed, added or
 * changed), in the order of `before`'s leaves then `after`'s new ones. Secret values redacted.
 */
function fieldLines(before: Record<string, unknown>, after: Record<string, unknown>, secret: boolean): string[] {
  const a = new Map<string, string>();
  const b = new Map<string, string>();
  flatten(before, '', 0, a);
  flatten(after, '', 0, b);
  const show = (path: string, v: string): string => (secret && secretValue(path) ? REDACTED : v);
  const lines: string[] = [];
  for (const [path, v] of a) {
    const w = b.get(path);
    if (w === v) continue;
    lines.push(`- ${path}: ${show(path, v)}`);
    if (w !== undefined) lines.push(`+ ${path}: ${show(path, w)}`);
  }
  for (const [path, w] of b) if (!a.has(path)) lines.push(`+ ${path}: ${show(path, w)}`);
  if (lines.length <= MAX_LINES) return lines;
  return [...lines.slice(0, MAX_LINES), `... ${lines.length - MAX_LINES} more lines`];
}
