/**
 * Reusable buffers for small `/metas` answers. Reading into a fresh buffer per answer takes page
 * faults that cost more than the read itself under catalogd's allocator settings (decision
 * 0083; bench/results/metas-answers.md), so answers that fit are read into slabs kept for reuse.
 *
 * Contract: a lease's buffer is the caller's until `release()`, called only once nothing refers
 * to the bytes (a response body: after `finish`; a read: once it settled). A lease never
 * released is simply collected. Answers larger than a slab get a buffer of their own.
 *
 * Slabs are dropped after `idleMs` without a lease, so an idle catalogd holds no memory for a
 * burst that is over (decision 0087). A slab the pool does not keep is freed at once (its
 * ArrayBuffer detached: a released buffer may read as empty), rather than piling up until V8's
 * external-memory limit forces a collection (decision 0099).
 */
import { freeOwnedBytes } from '../../shared/bytes/index.ts';

/** A buffer on loan; see the module contract. */
export interface BufferLease {
  readonly buf: Buffer;
  release(): void;
}

/** One size class of {@link AnswerBuffers}. */
interface SlabClass {
  /** Bytes per slab: the largest answer this class holds. */
  size: number;
  /** Slabs of this size kept for reuse at most; more may be out on loan at a time. */
  keep: number;
}

const NO_RELEASE = (): void => undefined;

/** How long the pool keeps idle slabs after the last lease, by default. */
const IDLE_RELEASE_MS = 10_000;

/** Free lists of slabs in a few size classes. */
export class AnswerBuffers {
  readonly #classes: ReadonlyArray<SlabClass & { free: Buffer[] }>;
  readonly #idleMs: number;
  #lastLease = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * `classes` in any order; an answer takes a slab of the smallest class that holds it.
   * `idleMs`: slabs kept for reuse are dropped after this long without a lease.
   */
  constructor(classes: readonly SlabClass[], options: { idleMs?: number } = {}) {
    this.#classes = [...classes].sort((a, b) => a.size - b.size).map((c) => ({ ...c, free: [] }));
    this.#idleMs = options.idleMs ?? IDLE_RELEASE_MS;
  }

  /** Slabs waiting for reuse, per class in ascending size (for tests). */
  get idle(): number[] {
    return this.#classes.map((c) => c.free.length);
  }

  /** A buffer of at least `size` bytes (exactly `size` when larger than every class). */
  lease(size: number): BufferLease {
    this.#lastLease = performance.now();
    const cls = this.#classes.find((c) => c.size >= size);
    if (cls === undefined) return { buf: Buffer.allocUnsafe(size), release: NO_RELEASE };
    // allocUnsafeSlow: a slab owns its whole ArrayBuffer, so freeing (detaching) it touches no other.
    const buf = cls.free.pop() ?? Buffer.allocUnsafeSlow(cls.size);
    let released = false;
    return {
      buf,
      release: () => {
        // A second release must not put the slab on the list twice (two leases of one buffer).
        if (released) return;
        released = true;
        if (cls.free.length < cls.keep) {
          cls.free.push(buf);
          this.#scheduleDrop(this.#idleMs);
        } else freeOwnedBytes(buf);
      },
    };
  }

  // One timer at a time, armed while slabs are kept; it never holds the process open.
  #scheduleDrop(ms: number): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const idleFor = performance.now() - this.#lastLease;
      if (idleFor >= this.#idleMs) for (const c of this.#classes) c.free.splice(0).forEach(freeOwnedBytes);
      else this.#scheduleDrop(this.#idleMs - idleFor);
    }, ms);
    this.#timer.unref();
  }
}
