/**
 * Which recorded revision a rollback goes back to (`olmv1 release rollback NAME [REVISION]`).
 * Pure: the release history in, the deployed and the target revision (or why there is none) out.
 */
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { deployedRelease, ReleaseStatus, type Release } from '../release/index.ts';

/** The revision a rollback starts from and the one it goes back to. */
export interface RollbackTarget {
  deployed: Release;
  target: Release;
  /** True when REVISION was not given and `target` was chosen as the revision before the deployed one. */
  chosen: boolean;
}

/** True when the record names a bundle (package, name and version): older or foreign records may not. */
function recordsBundle(r: Release): boolean {
  return r.bundle.package !== '' && r.bundle.name !== '' && r.bundle.version !== '';
}

/** Same package, bundle name and version. */
function sameBundle(a: Release, b: Release): boolean {
  return a.bundle.package === b.bundle.package && a.bundle.name === b.bundle.name && a.bundle.version === b.bundle.version;
}

/**
 * The revision to go back to. Without `revision`: the newest revision older than the deployed
 * one that was deployed once (superseded; a failed revision never ran) and recorded a bundle
 * other than the deployed bundle (going back to the bundle that runs changes nothing). With
 * `revision`: that revision, which must exist, not be the deployed one, have recorded a bundle
 * and a bundle other than the deployed one. Errors are one line, without advice; the caller
 * adds the revision list.
 */
export function chooseRollbackTarget(extension: string, history: readonly Release[], revision?: number): Result<RollbackTarget, string> {
  const name = JSON.stringify(extension);
  if (history.length === 0) return err(`${name} has no release records: nothing was installed`);
  const deployed = deployedRelease(history);
  if (deployed === undefined) return err(`${name} has no deployed revision: there is no installed release to roll back from`);
  if (revision === undefined) {
    const target = [...history]
      .filter((r) => r.revision < deployed.revision && r.status === ReleaseStatus.Superseded && recordsBundle(r) && !sameBundle(r, deployed))
      .sort((a, b) => b.revision - a.revision)[0];
    if (target === undefined) {
      return err(`${name} has no earlier revision with another bundle than the deployed revision ${deployed.revision} (${deployed.bundle.name})`);
    }
    return ok({ deployed, target, chosen: true });
  }
  const target = history.find((r) => r.revision === revision);
  if (target === undefined) return err(`revision ${revision} of ${name} does not exist`);
  if (target.revision === deployed.revision) return err(`revision ${revision} of ${name} is the deployed revision`);
  if (!recordsBundle(target)) return err(`revision ${revision} of ${name} recorded no bundle`);
  if (sameBundle(target, deployed)) {
    return err(`revision ${revision} of ${name} installed ${target.bundle.name}, the bundle the deployed revision ${deployed.revision} runs`);
  }
  return ok({ deployed, target, chosen: false });
}
