/**
 * Upstream's text for a release with objects of kinds the cluster does not serve. Upstream's
 * Helm dry run (install and upgrade alike, every reconcile) hands the rendered manifest to
 * helm-operator-plugins' owner post-renderer, which builds every object with Helm's
 * kube.Client.Build (cli-runtime's resource.Builder over the stream, continuing on errors). Each
 * object without a REST mapping yields cli-runtime's
 * `resource mapping not found for name: %q namespace: %q from "": <NoKindMatchError>\nensure CRDs are installed first`
 * (name and namespace as the rendered object has them, before any defaulting: `""` for
 * cluster-scoped objects and for objects without one; the stream has no source name), in the
 * manifest's order; objects whose kinds are served add nothing. apimachinery's aggregate joins
 * them (one error: itself; several: de-duplicated, `[a, b]`, without brackets when all are the
 * same text), the post-renderer chain and Helm prefix it, and operator-controller adds the
 * dry-run prefix (DRY_RUN_PREFIX).
 */
import { goQuote } from '../../gocompat/gotext/index.ts';
import { ApplyError, DRY_RUN_PREFIX } from './apply-error.ts';

/** An object whose kind the cluster does not serve, and the mapper's NoKindMatch text for it. */
export interface MissingKind {
  name: string;
  /** As the rendered object has it; `''` when it has none. */
  namespace: string;
  /** `no matches for kind "K" in version "G/V"` (apimachinery's NoKindMatchError). */
  reason: string;
}

/** Helm's wrapping of a post-renderer failure and helm-operator-plugins' chain, whose first renderer sets owners. */
const POST_RENDER_PREFIX = 'error while running post render on files: postrenderer[0] (*client.ownerPostRenderer) failed: ';

/** cli-runtime's error for one object without a REST mapping (resource/mapper.go). */
function mappingNotFound(m: MissingKind): string {
  return `resource mapping not found for name: ${goQuote(m.name)} namespace: ${goQuote(m.namespace)} from "": ${m.reason}\nensure CRDs are installed first`;
}

/** apimachinery's `utilerrors.NewAggregate(errs).Error()` for a non-empty list of flat errors. */
function aggregateText(messages: readonly string[]): string {
  if (messages.length === 1) return messages[0] ?? '';
  const unique = [...new Set(messages)];
  return unique.length === 1 ? (unique[0] ?? '') : `[${unique.join(', ')}]`;
}

/**
 * Upstream's dry-run failure for `missing` (non-empty, in manifest order), without the dry-run
 * prefix: `error while running post render on files: postrenderer[0] (*client.ownerPostRenderer) failed: <aggregate>`.
 */
export function missingKindsMessage(missing: readonly MissingKind[]): string {
  return POST_RENDER_PREFIX + aggregateText(missing.map(mappingNotFound));
}

/**
 * The ApplyError of a dry run that met objects of kinds the cluster does not serve (`missing`
 * non-empty, in manifest order): upstream's whole message, on `object` (the first of them).
 */
export function missingKindsRefusal(object: string, missing: readonly MissingKind[], cause?: unknown): ApplyError {
  return new ApplyError(object, DRY_RUN_PREFIX + missingKindsMessage(missing), cause);
}
