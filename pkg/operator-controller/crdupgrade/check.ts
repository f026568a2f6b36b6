/**
 * The CRD upgrade-safety check: compares the CRD installed in the cluster with the one a new
 * bundle brings and lists every rule the change breaks (decision 0047):
 * CRD-wide rules first, then the same-version property rules, then the served-version rules.
 * Pure: both CRDs are passed in; over a set of objects, the caller reads the installed CRDs by name.
 */
import { goList, goQuote, goSorted } from '../../gocompat/gotext/index.ts';
import type { KubeObject } from '../../shared/unstructured/index.ts';
import { isCrdV1, readCrd, type CrdView } from './crd.ts';
import { sameVersionViolations, servedVersionViolations } from './versions.ts';
import type { CrdViolation } from './violation.ts';
import { flattenSchema } from './walk.ts';

/**
 * Every violation of going from `installed` (as read from the API server, with
 * `status.storedVersions`) to `proposed`. Empty when the change is safe.
 */
export function checkCrdUpgrade(installed: KubeObject, proposed: KubeObject): CrdViolation[] {
  const older = readCrd(installed);
  const newer = readCrd(proposed);
  return [...crdWideViolations(older, newer), ...sameVersionViolations(older, newer), ...servedVersionViolations(older, newer)];
}

/** The CRD-wide rules in name order: existingFieldRemoval, scope, storedVersionRemoval. */
function crdWideViolations(older: CrdView, newer: CrdView): CrdViolation[] {
  const out: CrdViolation[] = [];
  for (const v of newer.versions) {
    const o = older.versions.find((x) => x.name === v.name);
    if (o === undefined) continue;
    const fields = flattenSchema(v.schema);
    const removed = goSorted([...flattenSchema(o.schema).keys()].filter((path) => !fields.has(path)));
    for (const path of removed) out.push({ rule: 'existingFieldRemoval', message: `removed field : ${v.name}.${path}` });
  }
  if (older.scope !== newer.scope) {
    out.push({ rule: 'scope', message: `scope changed : ${goQuote(older.scope)} -> ${goQuote(newer.scope)}` });
  }
  // A version objects may still be stored at must stay: they could no longer be read.
  const names = new Set(newer.versions.map((v) => v.name));
  const removedStored = older.storedVersions.filter((v) => !names.has(v));
  if (removedStored.length > 0) out.push({ rule: 'storedVersionRemoval', message: `stored versions removed : ${goList(removedStored)}` });
  return out;
}

/** One proposed CRD: whether it is installed, and what replacing the installed one would violate. */
interface CrdChange {
  name: string;
  /** False: not in the cluster, nothing to break (`violations` is empty). */
  installed: boolean;
  violations: CrdViolation[];
}

/** The names of the v1 CRDs among `objects`, in their order: what the caller reads. */
export function crdNames(objects: readonly KubeObject[]): string[] {
  return objects.filter(isCrdV1).map((o) => o.metadata.name ?? '');
}

/** Each v1 CRD of `proposed`, in order, checked against `installed` (by name). */
export function checkCrdChanges(proposed: readonly KubeObject[], installed: ReadonlyMap<string, KubeObject>): CrdChange[] {
  return proposed.filter(isCrdV1).map((crd) => {
    const name = crd.metadata.name ?? '';
    const live = installed.get(name);
    return { name, installed: live !== undefined, violations: live === undefined ? [] : checkCrdUpgrade(live, crd) };
  });
}
