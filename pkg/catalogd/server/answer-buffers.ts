/**
 * Reusable buffers for small `/metas` answers.
 *
 * A package query reads a few KiB to a few tens of KiB from the page cache and writes them to
 * the socket. With a fresh buffer per answer, the kernel's copy into it takes page faults on
 * memory the allocator just got from (or gave back to) the system, and those faults cost more
 * than the read itself, more so under catalogd's allocator settings, which return memory
 * eagerly (decision 0083; bench/results/metas-answers.md has the measurements). So answers
 * that fit a slab are read into one of a few slabs kept for reuse, whose pages stay resident.
 *
 * Contract: a lease's buffer is the caller's until it calls `release()`, which it must do only
 * once nothing refers to the bytes any more (for a response body: after the response's
 * `finish`, when the last write has been handed to the kernel; for a read, once it settled).
 * A lease that is never released (an aborted response) is simply collected; the pool allocates
 * a new slab when it runs out. Answers larger than a slab get a buffer of their own, and
 * releasing it does nothing.
 *
 * Slabs are kept only while answers keep coming: after `idleMs` without a lease the pool drops
 * them (up to 9 MiB in catalogd's server), so an idle catalogd does not hold memory for a
 * burst that is over; refilling the pool at the next burst costs page faults (decision 0087).
 * A slab the pool does not keep (its class is full, or the pool went idle) is freed at once:
 * its ArrayBuffer is detached (`transfer(0)`), so a released buffer may read as empty
 * afterwards. Left to the garbage collector, such slabs pile up until V8's external-memory
 * limit forces a collection, and a server that goes idle after a burst keeps them meanwhile
 * (decision 0099).
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

/** Returns a slab's memory to the system now rather than at some later collection. */
function free(buf: Buffer): void {
  // A slab owns its whole ArrayBuffer (allocUnsafeSlow), so detaching it touches no other buffer.
  freeOwnedBytes(buf);
}

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
    // allocUnsafeSlow: a slab owns its memory, never a slice of Node's shared pool.
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
        } else free(buf);
      },
    };
  }

  // One timer at a time, armed while slabs are kept; it never holds the process open.
  #scheduleDrop(ms: number): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const idleFor = performance.now() - this.#lastLease;
      if (idleFor >= this.#idleMs) for (const c of this.#classes) c.free.splice(0).forEach(free);
      else this.#scheduleDrop(this.#idleMs - idleFor);
    }, ms);
    this.#timer.unref();
  }
}
