/**
 * The applier's error for one object: the API server refused it, or a CRD did not become
 * Established. Its message is upstream's `error applying <Kind ns/name>: <reason>`.
 */

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
