/**
 * A byte budget for the memory-heavy part of installing a bundle: reading its files, parsing,
 * rendering and applying them. What that costs grows with the bundle's bytes (about three
 * times them: parsed objects, rendered and pruned copies, the release record, request bodies),
 * and four reconcile workers plus background pulls could otherwise hold four or more bundles
 * at the image caps at once. Each bundle takes a lease of its unpacked bytes before its files
 * are read and gives it back when the reconcile that used it ends (or when its pull's result
 * is dropped unused).
 *
 * - A lease is granted when the leases held and the new one fit the budget, or when nothing
 *   is held: a bundle larger than the whole budget still goes, alone.
 * - Requests are granted in arrival order: a large bundle is not passed over for ever by a
 *   stream of small ones.
 * - A waiting request whose signal aborts leaves the queue and rejects with the signal's reason.
 *
 * Bundles of a few MB (all real ones) fit many at a time, so this changes nothing for them.
 *
 * Caches share the budget (BoxcutterRuntime's revision objects, applier/boxcutter/store.ts):
 * they take leases only when these fit now (`tryAcquire`, never waiting, never passing a waiting
 * request) and give bytes back when a request would otherwise wait (`onShortage`), so what they
 * keep never holds a reconcile back.
 */

/** A granted share of the budget. */
export interface BundleLease {
  /** Bytes the lease holds. */
  readonly bytes: number;
  /** Gives the bytes back (once; later calls do nothing). */
  release(): void;
}

interface Waiter {
  bytes: number;
  grant: (lease: BundleLease) => void;
}

/** See the module comment. */
export class BundleBudget {
  readonly #capacity: number;
  #held = 0;
  #leases = 0;
  readonly #queue: Waiter[] = [];
  readonly #reclaimers = new Set<(bytes: number) => void>();
  #reclaiming = false;

  /** A budget of `capacity` bytes (at least 1). */
  constructor(capacity: number) {
    this.#capacity = Math.max(1, capacity);
  }

  /** Bytes held by granted leases. */
  get held(): number {
    return this.#held;
  }

  /** Requests waiting for a lease. */
  get waiting(): number {
    return this.#queue.length;
  }

  /** A lease of `bytes` (negative or NaN counts as 0), once it fits; see the module comment. */
  acquire(bytes: number, signal?: AbortSignal): Promise<BundleLease> {
    const want = Number.isFinite(bytes) && bytes > 0 ? bytes : 0;
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    if (this.#queue.length === 0 && !this.#fits(want)) this.#reclaim(want);
    if (this.#queue.length === 0 && this.#fits(want)) return Promise.resolve(this.#grant(want));
    return new Promise<BundleLease>((resolve, reject) => {
      const waiter: Waiter = {
        bytes: want,
        grant: (lease) => {
          signal?.removeEventListener('abort', aborted);
          resolve(lease);
        },
      };
      const aborted = (): void => {
        const i = this.#queue.indexOf(waiter);
        if (i >= 0) this.#queue.splice(i, 1);
        reject(signal?.reason);
        // The head may have been what held the others back.
        this.#drain();
      };
      signal?.addEventListener('abort', aborted, { once: true });
      this.#queue.push(waiter);
    });
  }

  /** A lease of `bytes` when it fits now and no request waits; otherwise none (a cache then keeps nothing). */
  tryAcquire(bytes: number): BundleLease | undefined {
    const want = Number.isFinite(bytes) && bytes > 0 ? bytes : 0;
    return this.#queue.length === 0 && this.#held + want <= this.#capacity ? this.#grant(want) : undefined;
  }

  /**
   * Calls `reclaim` with the bytes a request lacks when it would wait: a cache releases leases
   * of at least that many bytes (or all it holds). Returns what unregisters it.
   */
  onShortage(reclaim: (bytes: number) => void): () => void {
    this.#reclaimers.add(reclaim);
    return () => this.#reclaimers.delete(reclaim);
  }

  #reclaim(bytes: number): void {
    if (this.#reclaiming) return;
    this.#reclaiming = true;
    try {
      for (const reclaim of this.#reclaimers) {
        if (this.#fits(bytes)) return;
        reclaim(this.#held + bytes - this.#capacity);
      }
    } finally {
      this.#reclaiming = false;
    }
  }

  #fits(bytes: number): boolean {
    return this.#leases === 0 || this.#held + bytes <= this.#capacity;
  }

  #grant(bytes: number): BundleLease {
    this.#held += bytes;
    this.#leases++;
    let released = false;
    return {
      bytes,
      release: () => {
        if (released) return;
        released = true;
        this.#held -= bytes;
        this.#leases--;
        this.#drain();
      },
    };
  }

  #drain(): void {
    while (this.#queue.length > 0) {
      const head = this.#queue[0];
      if (head === undefined) return;
      if (!this.#fits(head.bytes)) {
        this.#reclaim(head.bytes);
        // What the caches gave back may have granted it already (release drains).
        if (this.#queue[0] !== head) continue;
        if (!this.#fits(head.bytes)) return;
      }
      this.#queue.shift();
      head.grant(this.#grant(head.bytes));
    }
  }
}
