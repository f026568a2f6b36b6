/**
 * The I/O edge of the stored-object check (decision 0120): lists a CRD's custom resources at
 * one version page by page (`limit`/`continue`) with the caller's client (the extension's
 * ServiceAccount), validates each against that version's new schema (stored-validate.ts, as a write
 * changing the violating value would meet it) and keeps only the first few failures and a
 * count, so memory stays at one page. Bounded by a deadline and an object count; a scan that
 * hits either, or a list the server refuses, is incomplete, and an incomplete scan lets
 * nothing through.
 */
import type { KubeObject, ObjectList, TypeRef } from '../../shared/unstructured/index.ts';
import { readCrd } from './crd.ts';
import type { Json, Schema } from './schema.ts';
import { validateObject, type FieldError, type ValidationLimits } from './stored-validate.ts';

/** What the scan reads with. */
export interface StoredObjectLister {
  list(type: TypeRef, options: { limit: number; continue?: string; signal?: AbortSignal }): Promise<ObjectList>;
}

export interface ScanLimits {
  readonly pageSize: number;
  /** Objects per CRD; more makes the scan incomplete. */
  readonly maxObjects: number;
  /** Wall time for one CRD's scan, in milliseconds. */
  readonly deadlineMs: number;
  /** Failing objects kept by name (the rest are counted). */
  readonly keep: number;
  readonly validation?: ValidationLimits;
}

export const DEFAULT_SCAN_LIMITS: ScanLimits = { pageSize: 250, maxObjects: 20_000, deadlineMs: 30_000, keep: 5 };

/** One stored object the new schema refuses (or could not check), with its first errors. */
interface FailingObject {
  /** `namespace/name` or `name`. */
  readonly object: string;
  readonly version: string;
  readonly errors: readonly FieldError[];
  /** Why some rule could not be checked on it (not checkable counts as failing). */
  readonly unchecked: readonly string[];
}

export interface ScanResult {
  readonly crd: string;
  readonly checked: number;
  readonly failing: readonly FailingObject[];
  readonly failingCount: number;
  /** Set when not every stored object was checked. */
  readonly incomplete?: string;
  /**
   * A complete scan's first list's resourceVersion: the objects as checked are those of that
   * moment or later, so a watch from it sees every change since (stored-cache.ts).
   */
  readonly resourceVersion?: string;
}

/** `namespace/name` or `name`. */
export function nameOf(o: KubeObject): string {
  const ns = o.metadata.namespace;
  return ns === undefined || ns === '' ? (o.metadata.name ?? '') : `${ns}/${o.metadata.name ?? ''}`;
}

/**
 * Scans `crd`'s stored objects at `versions` against `crd`'s (new) schemas. With `installed`,
 * only what the change causes counts: an error or an unchecked rule the installed schema gives
 * the object as well is not the upgrade's doing (ratcheting lets such objects be stored).
 * `now` is injected for tests.
 */
export async function scanStoredObjects(
  lister: StoredObjectLister,
  crd: KubeObject,
  versions: readonly string[],
  signal: AbortSignal,
  limits: ScanLimits = DEFAULT_SCAN_LIMITS,
  now: () => number = Date.now,
  installed?: KubeObject,
): Promise<ScanResult> {
  const view = readCrd(crd);
  const before = installed === undefined ? undefined : readCrd(installed);
  const spec = (crd['spec'] ?? {}) as { group?: string; names?: { kind?: string } };
  const name = crd.metadata.name ?? '';
  const deadline = now() + limits.deadlineMs;
  const failing: FailingObject[] = [];
  let failingCount = 0;
  let checked = 0;
  let listedAt: string | undefined;
  const result = (incomplete?: string): ScanResult => ({
    crd: name,
    checked,
    failing,
    failingCount,
    ...(incomplete === undefined ? {} : { incomplete }),
    ...(incomplete === undefined && listedAt !== undefined ? { resourceVersion: listedAt } : {}),
  });
  for (const version of versions) {
    const schema = view.versions.find((v) => v.name === version)?.schema;
    if (schema === undefined) continue;
    const oldSchema = before?.versions.find((v) => v.name === version)?.schema;
    const type = { apiVersion: `${spec.group ?? ''}/${version}`, kind: spec.names?.kind ?? '' };
    let token: string | undefined;
    do {
      if (now() > deadline) return result(`not every stored object was checked within ${limits.deadlineMs / 1000}s`);
      let page: ObjectList;
      try {
        page = await lister.list(type, { limit: limits.pageSize, ...(token === undefined ? {} : { continue: token }), signal });
      } catch (e) {
        return result(`listing ${type.kind} ${type.apiVersion} failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      listedAt ??= page.metadata.resourceVersion;
      for (const item of page.items) {
        if (++checked > limits.maxObjects) return result(`more than ${limits.maxObjects} stored objects`);
        const verdict = objectVerdict(item, schema, oldSchema, limits.validation);
        if (verdict === undefined) continue;
        failingCount++;
        if (failing.length < limits.keep) {
          failing.push({
            object: nameOf(item),
            version,
            errors: verdict.errors.slice(0, 3),
            unchecked: verdict.unchecked.slice(0, 3).map((u) => `${u.field}: ${u.rule} not checkable: ${u.reason}`),
          });
        }
      }
      token = page.metadata.continue === '' ? undefined : page.metadata.continue;
    } while (token !== undefined);
  }
  return result();
}

type Verdict = ReturnType<typeof validateObject>;

/** What the change from `oldSchema` to `schema` does to `item`: undefined when nothing (it passes, or failed the same before). */
export function objectVerdict(item: KubeObject, schema: Schema, oldSchema: Schema | undefined, limits?: ValidationLimits): Verdict | undefined {
  const options = limits === undefined ? {} : { limits };
  const verdict = causedByChange(
    validateObject(schema, item as unknown as Json, options),
    oldSchema === undefined ? undefined : () => validateObject(oldSchema, item as unknown as Json, options),
  );
  return verdict.errors.length === 0 && verdict.unchecked.length === 0 ? undefined : verdict;
}

/** The part of `now` that `before` (the installed schema's verdict, computed only if needed) lacks. */
function causedByChange(now: Verdict, before: (() => Verdict) | undefined): Verdict {
  if (before === undefined || (now.errors.length === 0 && now.unchecked.length === 0)) return now;
  const old = before();
  const texts = new Set(old.errors.map((e) => e.text));
  const unchecked = new Set(old.unchecked.map((u) => `${u.field}\n${u.rule}\n${u.reason}`));
  return {
    errors: now.errors.filter((e) => !texts.has(e.text)),
    unchecked: now.unchecked.filter((u) => !unchecked.has(`${u.field}\n${u.rule}\n${u.reason}`)),
  };
}

/** Whether the stored objects let a tightening through: all checked, none failing. */
export function scanPasses(r: ScanResult): boolean {
  return r.incomplete === undefined && r.failingCount === 0;
}

/**
 * One line per CRD for Events and `olmv1 upgrade plan`: `CRD <name>: 2 of 40 stored objects
 * fail the new schema: ns/a (spec.replicas: Invalid value: ...), ns/b (...)`.
 */
export function describeScan(r: ScanResult): string {
  const head = `CRD ${r.crd}: `;
  if (r.incomplete !== undefined)
    return `${head}stored objects not all checked (${r.incomplete})${r.failingCount > 0 ? `; ${r.failingCount} failing so far: ${objects(r)}` : ''}`;
  if (r.failingCount === 0) return `${head}all ${r.checked} stored objects pass the new schema`;
  return `${head}${r.failingCount} of ${r.checked} stored objects fail the new schema: ${objects(r)}`;
}

function objects(r: ScanResult): string {
  // The first reason per object (Events keep 1 KiB): names first, details in the plan.
  const shown = r.failing.map((f) => `${f.object} (${[...f.errors.map((e) => e.text), ...f.unchecked][0] ?? ''})`).join(', ');
  return r.failingCount > r.failing.length ? `${shown}, and ${r.failingCount - r.failing.length} more` : shown;
}
