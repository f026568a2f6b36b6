/**
 * The stored-object pass behind the opt-in (decision 0120): for a CRD the static check refuses,
 * when every violation is a tightening (stored-coverable.ts), the stored objects at the affected
 * versions are scanned (stored-scan.ts); the tightening is let through only when all of them were
 * checked and pass. The static verdict and its text stay upstream's otherwise.
 */
import type { KubeObject } from '../../shared/unstructured/index.ts';
import type { CrdViolation } from './violation.ts';
import { coverableVersions } from './stored-coverable.ts';
import {
  DEFAULT_SCAN_LIMITS,
  describeScan,
  scanPasses,
  scanStoredObjects,
  type ScanLimits,
  type ScanResult,
  type StoredObjectLister,
} from './stored-scan.ts';

/** The ClusterExtension annotation that turns the pass on (`"true"`); upstream's API is unchanged. */
export const STORED_OBJECTS_ANNOTATION = 'olm.operatorframework.io/crd-upgrade-check-stored-objects';

/** Whether `annotations` opt in. */
export function storedObjectsOptIn(annotations: Readonly<Record<string, string>> | undefined): boolean {
  return annotations?.[STORED_OBJECTS_ANNOTATION] === 'true';
}

export interface StoredVerdict {
  /** True: every stored object passes the new schema, the tightening may go through. */
  readonly letThrough: boolean;
  /** One line for Events and the plan. */
  readonly text: string;
  readonly scan?: ScanResult;
}

/** The stored-object verdict on replacing `installed` by `proposed` despite `violations`. */
export async function storedObjectsVerdict(
  lister: StoredObjectLister,
  installed: KubeObject,
  proposed: KubeObject,
  violations: readonly CrdViolation[],
  signal: AbortSignal,
  limits: ScanLimits = DEFAULT_SCAN_LIMITS,
): Promise<StoredVerdict> {
  const versions = coverableVersions(installed, proposed, violations);
  if (versions === undefined) {
    return {
      letThrough: false,
      text: `CRD ${proposed.metadata.name ?? ''}: not only tightenings of a version's schema, stored objects cannot decide`,
    };
  }
  return storedVerdictOf(await scanStoredObjects(lister, proposed, versions, signal, limits, Date.now, installed));
}

/** The verdict a scan gives. */
export function storedVerdictOf(scan: ScanResult): StoredVerdict {
  return { letThrough: scanPasses(scan), text: describeScan(scan), scan };
}
