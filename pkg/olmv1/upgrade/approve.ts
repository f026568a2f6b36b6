/**
 * `olmv1 upgrade approve`'s service: names the bundle the resolver picks now in the
 * approved-bundle annotation of the ClusterExtension, merge-patched with the resourceVersion read
 * so an extension changed in between is not approved blindly; for an extension `olmv1 install`
 * created, first grants the permissions the picked bundle adds (rbac.ts). Returns values.
 */
import { policySetting } from '../../operator-controller/upgradepolicy/index.ts';
import { APPROVED_BUNDLE_ANNOTATION, CLUSTER_EXTENSION, UpdatePolicy } from '../../shared/api/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import { isConflict } from '../../shared/kube/index.ts';
import { resolveUpgrade } from './plan.ts';
import type { UpgradeDeps, UpgradeTarget } from './ports.ts';
import { grantUpgradeRbac, type Grant, type RbacGrants } from './rbac.ts';

/** What to approve. */
interface ApproveRequest extends UpgradeTarget {
  /** Approve only if the picked bundle has this version. */
  version?: string | undefined;
  /** Change nothing; say what would be done. */
  dryRun?: boolean | undefined;
}

/** An approval made (or, in a dry run, that would be). */
interface ApproveDone {
  ok: true;
  extension: string;
  pick: { bundle: string; version: string };
  from: { bundle: string; version: string };
  dryRun: boolean;
  /** The update policy is Automatic: its upgrades do not wait for an approval. */
  automatic: boolean;
  /** The permissions granted for an extension `olmv1 install` created; undefined for others. */
  rbac: RbacGrants | undefined;
  /** `<annotation>=<bundle>`, as written. */
  annotation: string;
}

/**
 * Nothing approved: nothing to approve, a refusal, or a failed write. `grants`: the roles granted
 * before a grant failed; `rbac`: the permissions granted before the annotation could not be written.
 */
interface ApproveRefusal {
  ok: false;
  error: string;
  grants?: Grant[];
  rbac?: RbacGrants | undefined;
}

/** The approval or why there is none. */
export type ApproveResult = ApproveDone | ApproveRefusal;

/**
 * Approves the upgrade the plan shows (see the module comment).
 * @throws what `deps.bundles.load` throws (the picked bundle cannot be pulled or does not parse).
 */
export async function approveUpgrade(deps: UpgradeDeps, request: ApproveRequest): Promise<ApproveResult> {
  const { extension } = request;
  const resolved = await resolveUpgrade(deps, request);
  if (!resolved.ok) return { ok: false, error: resolved.error };
  const { plan, ce, release } = resolved.value;
  const pick = plan.pick;
  if (pick === null) return { ok: false, error: `nothing to approve: the resolution fails: ${plan.error ?? ''}` };
  if (plan.upToDate) {
    return { ok: false, error: `nothing to approve: ${extension} is up to date at ${plan.installed.bundle} (${plan.installed.version})` };
  }
  if (request.version !== undefined && request.version !== pick.version) {
    return {
      ok: false,
      error:
        `refusing to approve version ${request.version}: the next upgrade of ${extension} installs ${pick.bundle} (${pick.version}), not ${request.version}; ` +
        `approve that with "olmv1 upgrade approve ${extension} ${pick.version}", or, to go to ${request.version} directly, set spec.source.catalog.version of the ClusterExtension to ${JSON.stringify(request.version)}`,
    };
  }
  const automatic = policySetting(ce.object.metadata.annotations).policy === UpdatePolicy.Automatic;
  if (automatic) deps.progress?.(`note: the update policy of ${extension} is Automatic: its upgrades do not wait for an approval`);
  const dryRun = request.dryRun === true;
  const granted = await grantUpgradeRbac(deps, { ce, release, pick }, { dryRun, systemNamespace: request.systemNamespace });
  if (!granted.ok) return { ok: false, ...granted.error };
  const done: ApproveDone = {
    ok: true,
    extension,
    pick: { bundle: pick.bundle, version: pick.version },
    from: { bundle: plan.installed.bundle, version: plan.installed.version },
    dryRun,
    automatic,
    rbac: granted.value,
    annotation: `${APPROVED_BUNDLE_ANNOTATION}=${pick.bundle}`,
  };
  if (dryRun) return done;
  const patch = { metadata: { resourceVersion: ce.object.metadata.resourceVersion, annotations: { [APPROVED_BUNDLE_ANNOTATION]: pick.bundle } } };
  try {
    await deps.client.patch({ ...CLUSTER_EXTENSION, name: extension }, patch, 'merge');
  } catch (e) {
    const rbac = granted.value;
    if (isConflict(e)) {
      return {
        ok: false,
        error: `ClusterExtension ${JSON.stringify(extension)} changed while its upgrade was being resolved: run the command again`,
        rbac,
      };
    }
    return { ok: false, error: `error annotating ClusterExtension ${JSON.stringify(extension)}: ${errorMessage(e)}`, rbac };
  }
  return done;
}
