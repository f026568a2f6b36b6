/**
 * The writes a revision's reconcile makes, per extension (issue 69): each is checked just before
 * it is sent (a revision whose extension is being deleted sends none) and counted while it is in
 * flight, so that an uninstall can wait until none is (`idle`) before it trusts what it released:
 * a CRD's owner reference that a write already on its way put back is then visible.
 */
import type { KubeClient } from '../../shared/kube/index.ts';

/** Writes in flight per extension. One per process, shared by the revision controller and the uninstall. */
export class RevisionWrites {
  readonly #pending = new Map<string, number>();
  readonly #waiters = new Map<string, (() => void)[]>();

  /** Runs `write` counted as one of `extension`'s writes in flight. */
  async track<T>(extension: string, write: () => Promise<T>): Promise<T> {
    this.#pending.set(extension, (this.#pending.get(extension) ?? 0) + 1);
    try {
      return await write();
    } finally {
      const left = (this.#pending.get(extension) ?? 1) - 1;
      if (left > 0) this.#pending.set(extension, left);
      else {
        this.#pending.delete(extension);
        for (const wake of this.#waiters.get(extension) ?? []) wake();
        this.#waiters.delete(extension);
      }
    }
  }

  /** Resolves once no write of `extension` is in flight. */
  idle(extension: string): Promise<void> {
    if (!this.#pending.has(extension)) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.set(extension, [...(this.#waiters.get(extension) ?? []), resolve]));
  }
}

/** A write refused because the revision may no longer write (its extension is being deleted). */
export class WritesHeldError extends Error {
  constructor(extension: string) {
    super(`ClusterExtension ${JSON.stringify(extension)} is being deleted: its revisions write nothing`);
    this.name = 'WritesHeldError';
  }
}

const WRITES: ReadonlySet<PropertyKey> = new Set(['apply', 'create', 'update', 'patch', 'delete']);

/**
 * `client` whose writes (dry runs aside) first ask `mayWrite` (synchronously, right before the
 * request goes) and are tracked under `extension` in `writes`.
 */
export function guardedClient(client: KubeClient, extension: string, writes: RevisionWrites, mayWrite: () => boolean): KubeClient {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (!WRITES.has(property) || typeof value !== 'function') return value;
      return (...args: unknown[]): Promise<unknown> => {
        const options = args.slice(1).find((a) => typeof a === 'object' && a !== null && 'dryRun' in a) as { dryRun?: boolean } | undefined;
        const send = (): Promise<unknown> => Reflect.apply(value, target, args) as Promise<unknown>;
        if (options?.dryRun === true) return send();
        if (!mayWrite()) return Promise.reject(new WritesHeldError(extension));
        return writes.track(extension, send);
      };
    },
  });
}
