/**
 * CRD upgrade safety on the way back: the live CRDs compared with the ones the target
 * revision applied, by the rules of operator-controller's preflight
 * (pkg/operator-controller/crdupgrade; decision 0047), so a rollback the controller would
 * block is refused before anything is written. Pure: the live CRDs are read by the caller.
 *
 * Losing a stored version is refused whatever the enforcement: objects stored at it could no
 * longer be read, and the API server itself rejects a CRD whose `spec.versions` lacks a version
 * of its `status.storedVersions`. Other violations refuse too unless enforcement is `None`
 * (the controller would apply them then), when they are warnings.
 */
import { CrdUpgradeSafetyEnforcement } from '../../shared/api/index.ts';
import type { KubeObject } from '../../shared/unstructured/index.ts';
import { checkCrdChanges, formatCrdUpgradeError, isCrdV1 } from '../crdupgrade/index.ts';
import type { Release } from '../release/index.ts';

/** What the comparison found, as text blocks for the user. */
interface CrdVerdict {
  /** Unsafe changes that stop the rollback (exit 1). */
  refusals: string[];
  /** Unsafe changes let through because enforcement is None. */
  warnings: string[];
  /** CRDs of the deployed revision the target does not have: kept, not deleted. */
  notes: string[];
}

const ENFORCEMENT_HINT =
  'Only if every custom resource fits that older schema: set spec.install.preflight.crdUpgradeSafety.enforcement to None (the controller then skips the check) and run the rollback again.';

function crdsOf(r: Release): KubeObject[] {
  return r.manifest.where(isCrdV1);
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
}

function versionNames(crd: KubeObject): string[] {
  const versions = (crd['spec'] as { versions?: unknown } | undefined)?.versions;
  return Array.isArray(versions) ? versions.map((v) => (v as { name?: unknown }).name).filter((n): n is string => typeof n === 'string') : [];
}

function list(items: readonly string[]): string {
  return `[${items.join(' ')}]`;
}

/** Names of the CRDs to read live: those of the deployed and of the target revision, sorted. */
export function rollbackCrdNames(deployed: Release, target: Release): string[] {
  return [...new Set([...crdsOf(deployed), ...crdsOf(target)].map((c) => c.metadata.name ?? ''))].filter((n) => n !== '').sort();
}

/**
 * Compares every CRD of `target` with its live version (`live`, by name; a CRD not in the
 * cluster has nothing to break) and notes the deployed revision's CRDs `target` lacks.
 */
export function checkRollbackCrds(input: {
  deployed: Release;
  target: Release;
  live: ReadonlyMap<string, KubeObject>;
  enforcement: string | undefined;
}): CrdVerdict {
  const { deployed, target, live } = input;
  const bundle = target.bundle.name;
  const verdict: CrdVerdict = { refusals: [], warnings: [], notes: [] };
  const targetCrds = crdsOf(target);
  for (const [i, { name, violations }] of checkCrdChanges(targetCrds, live).entries()) {
    const installed = live.get(name);
    const proposed = targetCrds[i];
    if (installed === undefined || proposed === undefined || violations.length === 0) continue;
    const block = formatCrdUpgradeError(name, violations);
    if (violations.some((v) => v.rule === 'storedVersionRemoval')) {
      verdict.refusals.push(`${storedVersionAdvice(name, installed, proposed, bundle)}\n${block}`);
    } else if (input.enforcement === CrdUpgradeSafetyEnforcement.None) {
      verdict.warnings.push(block);
    } else {
      verdict.refusals.push(`${block}\n${ENFORCEMENT_HINT}`);
    }
  }
  const targetNames = new Set(targetCrds.map((c) => c.metadata.name ?? ''));
  for (const crd of crdsOf(deployed)) {
    const name = crd.metadata.name ?? '';
    if (targetNames.has(name) || !live.has(name)) continue;
    verdict.notes.push(
      `CRD ${JSON.stringify(name)} is not part of ${bundle}: operator-controller keeps CRDs, so it stays in the cluster with its objects (delete it by hand when it is no longer needed).`,
    );
  }
  return verdict;
}

function storedVersionAdvice(name: string, installed: KubeObject, proposed: KubeObject, bundle: string): string {
  const defined = versionNames(proposed);
  const stored = strings((installed['status'] as { storedVersions?: unknown } | undefined)?.storedVersions);
  const lost = stored.filter((v) => !defined.includes(v));
  const kept = stored.filter((v) => defined.includes(v));
  return [
    `CRD ${JSON.stringify(name)} may have objects stored at ${list(lost)} (status.storedVersions), which ${bundle} does not define: they could no longer be read.`,
    `To go back, first migrate the stored objects to a version ${bundle} defines (${list(defined)}): with one of those as the CRD's storage version, rewrite every object (or delete those no longer needed);`,
    ...(kept.length > 0
      ? [
          `then remove ${list(lost)} from the CRD's status.storedVersions:`,
          `  kubectl patch crd ${name} --subresource=status --type=merge -p '${JSON.stringify({ status: { storedVersions: kept } })}'`,
        ]
      : [`then remove ${list(lost)} from the CRD's status.storedVersions (it must list the new storage version);`]),
    'and run the rollback again.',
  ].join('\n');
}
