/**
 * The CRD upgrade-safety check: compares the CRD installed in the cluster with the one a new
 * bundle brings and lists every rule the change breaks (decision 0047):
 * CRD-wide rules first, then the same-version property rules, then the served-version rules.
 * Pure: both CRDs are passed in.
 */
import { goList, goQuote, goSorted } from '../../gocompat/gotext/index.ts';
import type { KubeObject } from '../../shared/unstructured/index.ts';
import { readCrd, type CrdView } from './crd.ts';
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
