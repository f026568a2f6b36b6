/**
 * The decisions of an event recorder, without I/O: which events are written, which are folded
 * into the `series` of an earlier one, and which are dropped. Behaviour modelled on client-go's
 * recorders (tools/record's EventCorrelator, tools/events' series), not their code:
 *
 * - Spam filter: a token bucket per regarding object (the source is the recorder's own, so
 *   source+object is the object): `burst` events at once (25), then one per `refillMs`
 *   (5 minutes). Every event spends a token, repeats included; an event without one is dropped.
 * - Aggregation: events about one object with the same type, reason and action but different
 *   notes are "similar"; once `maxSimilar` (10) distinct notes were seen within
 *   `aggregateWindowMs` (10 minutes), further ones are combined into one event whose note is
 *   `(combined from similar events): <note>` (the note of the first combined one: a note
 *   cannot change once written) and counted in its series, so a message that changes every time (a
 *   timestamp, a counter) cannot create an Event per reconcile.
 * - Series: an event identical to one recorded (same object, type, reason, action, note) at
 *   most `seriesWindowMs` (6 minutes) before is a repeat: the earlier Event's series count and
 *   lastObservedTime grow instead of a new Event being written. A repeat after a longer pause
 *   starts a new Event.
 *
 * Both caches are LRUs bounded by `maxKeys` (4096 entries), as client-go's.
 */

/** Kubernetes' two event types. */
export type EventType = 'Normal' | 'Warning';

/** The object an event is about (events.k8s.io/v1 `regarding`). */
export interface EventObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
}

/** One event as the caller states it. */
interface EventSpec {
  regarding: EventObjectRef;
  type: EventType;
  reason: string;
  action: string;
  note: string;
}

/**
 * The correlator's record of one written (or to-be-written) Event. `count` is how many times
 * it was observed (1 = no series yet); the recorder keeps its write state in `write`.
 */
export interface SeriesEntry<W> {
  readonly key: string;
  readonly spec: EventSpec;
  readonly firstMs: number;
  lastMs: number;
  count: number;
  write: W;
}

/** What to do with an event: nothing, write a new Event, or grow an existing one's series. */
type Correlation<W> = { kind: 'drop' } | { kind: 'new'; entry: SeriesEntry<W> } | { kind: 'repeat'; entry: SeriesEntry<W> };

/** Tunables; the defaults are client-go's. */
export interface CorrelatorOptions {
  burst?: number;
  refillMs?: number;
  maxSimilar?: number;
  aggregateWindowMs?: number;
  seriesWindowMs?: number;
  maxKeys?: number;
}

/** Note prefix of an aggregated event (client-go's text). */
export const COMBINED_PREFIX = '(combined from similar events): ';

/** A Map used as an LRU: `touch` moves a key to the young end, the oldest is evicted first. */
class Lru<V> {
  readonly #map = new Map<string, V>();
  readonly #max: number;
  constructor(max: number) {
    this.#max = max;
  }
  get(key: string): V | undefined {
    const v = this.#map.get(key);
    if (v !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, v);
    }
    return v;
  }
  set(key: string, v: V): void {
    this.#map.delete(key);
    this.#map.set(key, v);
    if (this.#map.size > this.#max) {
      const oldest = this.#map.keys().next();
      if (oldest.done !== true) this.#map.delete(oldest.value);
    }
  }
}

interface Bucket {
  tokens: number;
  lastMs: number;
}

interface Similar {
  startMs: number;
  notes: Set<string>;
}

/** See the module comment; `W` is the recorder's per-Event write state, made by `newWrite`. */
export class EventCorrelator<W> {
  readonly #burst: number;
  readonly #refillMs: number;
  readonly #maxSimilar: number;
  readonly #aggregateMs: number;
  readonly #seriesMs: number;
  readonly #buckets: Lru<Bucket>;
  readonly #similar: Lru<Similar>;
  readonly #series: Lru<SeriesEntry<W>>;
  readonly #newWrite: () => W;

  constructor(newWrite: () => W, o: CorrelatorOptions = {}) {
    this.#newWrite = newWrite;
    this.#burst = o.burst ?? 25;
    this.#refillMs = o.refillMs ?? 5 * 60_000;
    this.#maxSimilar = o.maxSimilar ?? 10;
    this.#aggregateMs = o.aggregateWindowMs ?? 10 * 60_000;
    this.#seriesMs = o.seriesWindowMs ?? 6 * 60_000;
    const max = o.maxKeys ?? 4096;
    this.#buckets = new Lru(max);
    this.#similar = new Lru(max);
    this.#series = new Lru(max);
  }

  /** Decides what happens to `spec`, observed at `nowMs`, and records it. */
  correlate(spec: EventSpec, nowMs: number): Correlation<W> {
    const object = objectKey(spec.regarding);
    if (!this.#takeToken(object, nowMs)) return { kind: 'drop' };
    const similar = `${object}\u0000${spec.type}\u0000${spec.reason}\u0000${spec.action}`;
    const aggregated = this.#aggregate(similar, spec, nowMs);
    // A combined event is one Event whatever its note (a note cannot change once written).
    const key = aggregated === spec ? `${similar}\u0000${spec.note}` : `${similar}\u0000${COMBINED_PREFIX}`;
    const known = this.#series.get(key);
    if (known !== undefined && nowMs - known.lastMs <= this.#seriesMs) {
      known.count++;
      known.lastMs = nowMs;
      return { kind: 'repeat', entry: known };
    }
    const entry: SeriesEntry<W> = { key, spec: aggregated, firstMs: nowMs, lastMs: nowMs, count: 1, write: this.#newWrite() };
    this.#series.set(key, entry);
    return { kind: 'new', entry };
  }

  #takeToken(object: string, nowMs: number): boolean {
    const b = this.#buckets.get(object) ?? { tokens: this.#burst, lastMs: nowMs };
    b.tokens = Math.min(this.#burst, b.tokens + Math.max(0, nowMs - b.lastMs) / this.#refillMs);
    b.lastMs = nowMs;
    this.#buckets.set(object, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  /** `spec`, or its combined form once too many similar notes were seen in the window. */
  #aggregate(key: string, spec: EventSpec, nowMs: number): EventSpec {
    let group = this.#similar.get(key);
    if (group === undefined || nowMs - group.startMs > this.#aggregateMs) group = { startMs: nowMs, notes: new Set() };
    this.#similar.set(key, group);
    group.notes.add(spec.note);
    if (group.notes.size < this.#maxSimilar) return spec;
    // Keep the set at its bound; the group stays combined until its window ends.
    group.notes.delete(spec.note);
    return { ...spec, note: COMBINED_PREFIX + spec.note };
  }
}

/** The spam-filter and cache key of an object (client-go: kind, namespace, name, uid, apiVersion). */
function objectKey(r: EventObjectRef): string {
  return [r.kind, r.namespace ?? '', r.name, r.uid ?? '', r.apiVersion].join('\u0000');
}
