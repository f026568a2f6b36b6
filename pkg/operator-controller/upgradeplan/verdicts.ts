/**
 * The plan's verdicts on the picked bundle's objects: each CRD against the live one, as the
 * preflight step judges it (decisions 0120, 0129), and what `olm.maxOpenShiftVersion` means for
 * the cluster's next minor upgrade, as `olmv1 status` judges it.
 */
import {
  checkCrdChanges,
  crdNames,
  formatCrdUpgradeError,
  STORED_OBJECTS_ANNOTATION,
  storedObjectsVerdict,
  type StoredVerdict,
} from '../crdupgrade/index.ts';
import type { KubeObject } from '../bundle/index.ts';
import { evaluateGate, type ClusterMinor } from '../gating/index.ts';
import type { Release } from '../release/index.ts';
import { wrapError } from '../../shared/errors/index.ts';
import { isNotFound, type KubeClient } from '../../shared/kube/index.ts';

/** The CRD upgrade-safety part of a plan. */
export interface PlanCrdSafety {
  enforcement: string;
  /**
   * `storedObjects`: for a refused change, the stored objects' verdict, failing objects and their errors (decision 0129);
   * they decide only with the stored-object opt-in (decision 0120).
   */
  crds: { name: string; verdict: 'new' | 'safe' | 'unsafe'; violations: string[]; storedObjects?: string[] }[];
}

/** The olm.maxOpenShiftVersion part of a plan. */
export interface PlanMaxVersion {
  installed: string | null;
  next: string | null;
  cluster: string | null;
  verdict: string;
}

/** The cluster's version, or why it is not known. */
export type ClusterVersionReading = { ok: true; current: ClusterMinor } | { ok: false; error: string };

/**
 * Each CRD of `objects` against the live one, as the preflight step would judge it
 * (pkg/operator-controller/crdupgrade): the stored objects of a refused change are read always,
 * to name those that fail (decision 0129); with `optIn` (decision 0120) they decide.
 * @throws Error (with cause) when a live CRD cannot be read.
 */
export async function crdVerdicts(client: KubeClient, objects: readonly KubeObject[], enforcement: string, optIn: boolean): Promise<PlanCrdSafety> {
  const live = new Map<string, KubeObject>();
  for (const name of crdNames(objects)) {
    try {
      live.set(name, await client.get({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name }));
    } catch (e) {
      if (!isNotFound(e)) throw wrapError(`error reading CustomResourceDefinition ${JSON.stringify(name)}`, e);
    }
  }
  const crds: PlanCrdSafety['crds'] = [];
  for (const c of checkCrdChanges(objects, live)) {
    const installed = live.get(c.name);
    const proposed = objects.find((o) => o.kind === 'CustomResourceDefinition' && o.metadata.name === c.name);
    const scanned =
      c.violations.length > 0 && installed !== undefined && proposed !== undefined
        ? await storedObjectsVerdict(client, installed, proposed, c.violations, AbortSignal.timeout(120_000))
        : undefined;
    // Without the opt-in only a scan that ran is shown (what cannot decide does not matter then).
    const stored = optIn || scanned?.scan !== undefined ? scanned : undefined;
    crds.push({
      name: c.name,
      verdict: !c.installed ? 'new' : c.violations.length === 0 || (optIn && stored?.letThrough === true) ? 'safe' : 'unsafe',
      violations: c.violations.length === 0 ? [] : formatCrdUpgradeError(c.name, c.violations).split('\n'),
      ...(stored === undefined ? {} : { storedObjects: storedLines(stored, optIn) }),
    });
  }
  return { enforcement, crds };
}

/** The stored-object verdict, then each failing object named with every error kept for it. */
function storedLines(v: StoredVerdict, optIn: boolean): string[] {
  const head = `stored objects: ${v.text}`;
  const lines = [
    !v.letThrough
      ? head
      : optIn
        ? `${head} (let through by the stored-object check)`
        : `${head} (the annotation ${STORED_OBJECTS_ANNOTATION}=true would let it through)`,
  ];
  for (const f of v.scan?.failing ?? []) {
    for (const e of f.errors) lines.push(`  ${f.object} (${f.version}): ${e.text}`);
    for (const u of f.unchecked) lines.push(`  ${f.object} (${f.version}): ${u}`);
  }
  return lines;
}

/** What the installed and the picked bundle's `olm.maxOpenShiftVersion` mean for the cluster's next minor upgrade. */
export function maxVersionVerdict(
  extension: string,
  release: Pick<Release, 'bundle' | 'properties'>,
  nextBundle: string,
  nextProperties: readonly unknown[],
  cluster: ClusterVersionReading,
): PlanMaxVersion {
  // Without a cluster version, 0.0 stands in only to read the declared maximums (never a verdict).
  const current: ClusterMinor = cluster.ok ? cluster.current : { major: 0n, minor: 0n };
  const before = evaluateGate(current, [{ extension, bundle: release.bundle.name, properties: release.properties }]);
  const after = evaluateGate(current, [{ extension, bundle: nextBundle, properties: nextProperties }]);
  const installed = before.maxVersions[extension] ?? null;
  const next = after.maxVersions[extension] ?? null;
  const declared = (max: string | null): string => (max === null ? 'declares no olm.maxOpenShiftVersion' : `declares olm.maxOpenShiftVersion ${max}`);
  let verdict = `the installed bundle ${declared(installed)}; ${nextBundle} ${declared(next)}`;
  if (after.errors.length > 0) verdict += `; ${after.errors.join('; ')}`;
  if (!cluster.ok) return { installed, next, cluster: null, verdict: `${verdict} (cluster version unknown: ${cluster.error})` };
  const state = (g: typeof before): string => (g.upgradeable ? 'allows' : g.errors.length > 0 ? 'leaves undecided' : 'blocks');
  verdict += `; the cluster's upgrade from ${after.current} to ${after.next}: now ${state(before)}, after the upgrade ${state(after)}`;
  return { installed, next, cluster: after.current, verdict };
}
