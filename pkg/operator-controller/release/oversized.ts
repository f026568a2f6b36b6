/**
 * Payloads this process found to decompress past the bound (codec.ts), so that a retried
 * reconcile, or a second read of the same record in one, reports it corrupt again without
 * inflating it again: each inflation of a gzip bomb makes the bound's worth of garbage, and
 * reconciles retried before it is collected added up past the Deployment's memory (issue #42's
 * test failed at 264 MB in CI). Known by length and SHA-256, the digest taken only when the
 * length matches one kept; a changed Secret is a new payload. A few are kept, the oldest dropped.
 */
import { createHash } from 'node:crypto';
import { PayloadTooLargeError } from './codec.ts';

/** Payloads kept; a cluster with more bombs than this in records inflates the others again. */
const KEPT = 16;

export class OversizedPayloads {
  /** `<bound>:<SHA-256 hex>` of each payload kept -> its length (checked first), oldest first. */
  readonly #kept = new Map<string, number>();

  /** Throws the record's PayloadTooLargeError when `payload` is one found to inflate past `maxBytes`. */
  check(payload: Uint8Array, where: string, maxBytes: number): void {
    if (this.#kept.size === 0 || ![...this.#kept.values()].includes(payload.length)) return;
    const key = keyOf(payload, maxBytes);
    if (this.#kept.has(key)) throw new PayloadTooLargeError(where, payload.length, maxBytes);
  }

  /** Keeps `payload` when `err` says it inflates past `maxBytes`; rethrows `err` in any case. */
  remember(payload: Uint8Array, maxBytes: number, err: unknown): never {
    if (err instanceof PayloadTooLargeError) {
      this.#kept.set(keyOf(payload, maxBytes), payload.length);
      if (this.#kept.size > KEPT) this.#kept.delete(this.#kept.keys().next().value ?? '');
    }
    throw err;
  }
}

/** The bound and the payload's digest: a payload over one bound may be within a raised one. */
function keyOf(payload: Uint8Array, maxBytes: number): string {
  return `${maxBytes}:${createHash('sha256').update(payload).digest('hex')}`;
}
