/** The preflight's comparison: every proposed CRD against the installed one of the same name (read by the caller). Pure. */
import type { KubeObject } from '../../shared/unstructured/index.ts';
import { checkCrdUpgrade } from './check.ts';
import { isCrdV1 } from './crd.ts';
import type { CrdViolation } from './violation.ts';

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
