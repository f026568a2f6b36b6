/**
 * The decisions of an event recorder, without I/O: which events are written, which are folded
 * into the `series` of an earlier one, and which are dropped. Behaviour modelled on client-go's
 * recorders (tools/record's EventCorrelator, tools/events' series), not their code:
 *
 * - Spam filter: a token bucket per regarding object: 25 events at once, then one per 5
 *   minutes. Every event spends a token, repeats included; an event without one is dropped.
 * - Aggregation: events about one object with the same type, reason and action but different
 *   notes are "similar"; once 10 distinct notes were seen within 10 minutes, further ones are
 *   combined into one event whose note is `(combined from similar events): <note>` (the first
 *   combined note: a note cannot change once written), so a message that changes every time
 *   cannot create an Event per reconcile.
 * - Series: an event identical to one recorded at most 6 minutes before is a repeat: the
 *   earlier Event's series count and lastObservedTime grow instead of a new Event being written.
 *
 * All three caches are LRUs bounded at 4096 entries, as client-go's.
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

// client-go's tunables (see the module comment).
const BURST = 25;
const REFILL_MS = 5 * 60_000;
const MAX_SIMILAR = 10;
const AGGREGATE_WINDOW_MS = 10 * 60_000;
const SERIES_WINDOW_MS = 6 * 60_000;
const MAX_KEYS = 4096;

/** Note prefix of an aggregated event (client-go's text). */
export const COMBINED_PREFIX = '(combined from similar events): ';

/** A Map used as an LRU: a key read or set moves to the young end, the oldest is evicted first. */
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
  readonly #buckets = new Lru<Bucket>(MAX_KEYS);
  readonly #similar = new Lru<Similar>(MAX_KEYS);
  readonly #series = new Lru<SeriesEntry<W>>(MAX_KEYS);
  readonly #newWrite: () => W;

  constructor(newWrite: () => W) {
    this.#newWrite = newWrite;
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
    if (known !== undefined && nowMs - known.lastMs <= SERIES_WINDOW_MS) {
      known.count++;
      known.lastMs = nowMs;
      return { kind: 'repeat', entry: known };
    }
    const entry: SeriesEntry<W> = { key, spec: aggregated, firstMs: nowMs, lastMs: nowMs, count: 1, write: this.#newWrite() };
    this.#series.set(key, entry);
    return { kind: 'new', entry };
  }

  #takeToken(object: string, nowMs: number): boolean {
    const b = this.#buckets.get(object) ?? { tokens: BURST, lastMs: nowMs };
    b.tokens = Math.min(BURST, b.tokens + Math.max(0, nowMs - b.lastMs) / REFILL_MS);
    b.lastMs = nowMs;
    this.#buckets.set(object, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  /** `spec`, or its combined form once too many similar notes were seen in the window. */
  #aggregate(key: string, spec: EventSpec, nowMs: number): EventSpec {
    let group = this.#similar.get(key);
    if (group === undefined || nowMs - group.startMs > AGGREGATE_WINDOW_MS) group = { startMs: nowMs, notes: new Set() };
    this.#similar.set(key, group);
    group.notes.add(spec.note);
    if (group.notes.size < MAX_SIMILAR) return spec;
    // Keep the set at its bound; the group stays combined until its window ends.
    group.notes.delete(spec.note);
    return { ...spec, note: COMBINED_PREFIX + spec.note };
  }
}

/** The spam-filter and cache key of an object (client-go: kind, namespace, name, uid, apiVersion). */
function objectKey(r: EventObjectRef): string {
  return [r.kind, r.namespace ?? '', r.name, r.uid ?? '', r.apiVersion].join('\u0000');
}
