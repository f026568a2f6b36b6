/**
 * Which recorded revision a rollback goes back to (`olmv1 release rollback NAME [REVISION]`),
 * and whether the spec the rollback writes still resolves to its bundle: one no selected
 * catalog offers would be retried by the controller forever, so it is refused instead. Pure.
 */
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { deployedRelease, ReleaseStatus, type Release } from '../release/index.ts';
import { resolutionHints, resolve, type ResolveInput } from '../resolve/index.ts';
import { goQuote } from '../../gocompat/gotext/index.ts';

/** The revision a rollback starts from and the one it goes back to. */
interface RollbackTarget {
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

/** What resolving the rollback's spec says: a warning when another bundle than the target would be picked. */
interface RollbackResolution {
  warning: string | undefined;
}

/**
 * Resolves `input` (the extension's source with the pin `pin` and SelfCertified; an error when
 * the catalogs could not be selected) and checks that it picks `target`'s bundle. Errors are
 * the refusal: it names the bundle, its version, the catalogs searched, the resolver's message
 * (the condition operator-controller would show), what the catalogs offer instead and what to do.
 */
export function checkRollbackResolves(
  extension: string,
  target: Release,
  pin: string,
  input: Result<ResolveInput, string>,
): Result<RollbackResolution, string> {
  const b = target.bundle;
  const what = `revision ${target.revision} (${b.name}, version ${b.version})`;
  const searched = input.ok ? input.value.catalogs.map((c) => goQuote(c.name)) : [];
  const resolved = input.ok ? resolve(input.value) : input;
  if (!resolved.ok) {
    const hints = input.ok && resolved.error.includes('no bundles found for package') ? resolutionHints(input.value) : [];
    return err(
      [
        `refusing to roll back ${JSON.stringify(extension)} to ${what}: no catalog the extension selects offers ${b.name} at version ${pin}. Nothing was changed.`,
        searched.length === 0 ? 'catalogs searched: none' : `catalogs searched: ${searched.join(', ')}`,
        `operator-controller would report: ${resolved.error}`,
        ...hints,
        `Written anyway, the extension would retry that error and hold upgrades with the pin. To go back, publish ${b.name} in a catalog that spec.source.catalog.selector selects (or widen the selector), then run the rollback again.`,
      ].join('\n'),
    );
  }
  const picked = resolved.value.bundle.name;
  if (picked === b.name) return ok({ warning: undefined });
  return ok({
    warning: `the catalogs offer ${picked} (catalog ${resolved.value.catalog}) for version ${pin}, not ${b.name}: operator-controller installs ${picked} unless an update policy holds it (the approved-bundle annotation names ${b.name})`,
  });
}
