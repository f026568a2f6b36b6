/**
 * Whether the spec a rollback writes still resolves to the bundle it goes back to (pure): a
 * rollback no selected catalog offers would be retried by the controller forever, with
 * upgrades held by the pin, so it is refused instead.
 */
import { goQuote } from '../../gocompat/gotext/index.ts';
import { err, ok, type Result } from '../../shared/errors/index.ts';
import type { Release } from '../release/index.ts';
import { resolutionHints, resolve, type ResolveInput } from '../resolve/index.ts';

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
