/**
 * The applier's error for one object: the API server refused it, or a CRD did not become
 * Established. Its message is `error applying <Kind ns/name>: <reason>` when the apply meets
 * it, and upstream's dry-run text when the dry run before the first write does (dryRunRefusal;
 * kinds the cluster does not serve: missing-kinds.ts).
 */
import { errorMessage } from '../../shared/errors/index.ts';

/** An object the API server refused, or a CRD that did not become Established. */
export class ApplyError extends Error {
  /** `Kind namespace/name` of the object. */
  readonly object: string;

  constructor(object: string, message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'ApplyError';
    this.object = object;
  }
}

/** Upstream's prefix of every error its dry run (before the first write) meets. */
export const DRY_RUN_PREFIX = 'failed to get release state using server-side dry-run: ';

/**
 * The ApplyError of `object` refused by the dry run, with upstream's message for a refusal found
 * before the first write: `failed to get release state using server-side dry-run: <err>`, the
 * API server's message, which names the object.
 */
export function dryRunRefusal(object: string, err: unknown): ApplyError {
  return new ApplyError(object, DRY_RUN_PREFIX + errorMessage(err), err);
}
