/**
 * An events.k8s.io/v1 Event recorder for one component (client-go's tools/events recorder, in
 * behaviour): `event()` returns at once and never throws; the write happens in the background,
 * deduplicated, aggregated and rate-limited by event-correlator.ts. A repeat is a merge PATCH of
 * the first Event's `series`; a PATCH that finds the Event gone creates it again.
 *
 * Best effort, as client-go's: a failed write is dropped (logged at debug, counted in
 * `events_dropped_total{cause="write_failed"}`), never retried. Writes to one Event are
 * serialized, so a burst during the first create ends as one create and one PATCH. Events about
 * cluster-scoped objects go to namespace `default`, as client-go's.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { isAlreadyExists, isNotFound } from './api-error.ts';
import type { KubeClient } from './client.ts';
import { EventCorrelator, type EventObjectRef, type EventType, type SeriesEntry } from './event-correlator.ts';
import { microTime } from './leader-election.ts';
import { counterOn } from './metrics.ts';
import type { KubeObject } from '../unstructured/index.ts';

/** The port components record events through. */
export interface EventRecorder {
  /** Records that `action` on `regarding` ended with `reason`, told by `note` (1 KiB at most). */
  event(regarding: KubeObject | EventObjectRef, type: EventType, reason: string, action: string, note: string): void;
}

/** Construction options of a KubeEventRecorder. */
interface KubeEventRecorderOptions {
  /** The component's own client (its ServiceAccount): needs events create and patch, all it calls. */
  client: Pick<KubeClient, 'create' | 'patch'>;
  /** `reportingController`, e.g. `olm.operatorframework.io/operator-controller`. */
  reportingController: string;
  /** `reportingInstance`: the pod (or host) name; cut to 128 characters. */
  reportingInstance: string;
  log: Logger;
  registry?: Registry;
  now?: () => number;
}

/** The events.k8s.io/v1 limit of `note`, in bytes. */
export const NOTE_MAX_BYTES = 1024;
/** Namespace of the events of cluster-scoped objects (client-go's metav1.NamespaceDefault). */
const CLUSTER_EVENT_NAMESPACE = 'default';

/** Per-Event write state: its name once chosen, and how many observations were written. */
interface WriteState {
  name: string;
  namespace: string;
  created: boolean;
  written: number;
  running: Promise<void> | undefined;
}

/** `note` cut to NOTE_MAX_BYTES of UTF-8 (on a character boundary), ending in `...` when cut. */
export function truncateNote(note: string): string {
  if (Buffer.byteLength(note, 'utf8') <= NOTE_MAX_BYTES) return note;
  let out = '';
  let bytes = 0;
  for (const ch of note) {
    const n = Buffer.byteLength(ch, 'utf8');
    if (bytes + n > NOTE_MAX_BYTES - 3) break;
    out += ch;
    bytes += n;
  }
  return `${out}...`;
}

function refOf(o: KubeObject | EventObjectRef): EventObjectRef {
  if (!('metadata' in o)) return o;
  const m = o.metadata;
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: m.name ?? '',
    ...(m.namespace ? { namespace: m.namespace } : {}),
    ...(m.uid ? { uid: m.uid } : {}),
    ...(m.resourceVersion ? { resourceVersion: m.resourceVersion } : {}),
  };
}

/** See the module comment. */
export class KubeEventRecorder implements EventRecorder {
  readonly #o: KubeEventRecorderOptions;
  readonly #now: () => number;
  readonly #correlator: EventCorrelator<WriteState>;
  readonly #running = new Set<Promise<void>>();
  readonly #dropped;
  readonly #instance: string;
  #seq = 0;

  constructor(options: KubeEventRecorderOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#instance = options.reportingInstance.slice(0, 128);
    this.#correlator = new EventCorrelator<WriteState>(() => ({ name: '', namespace: '', created: false, written: 0, running: undefined }));
    this.#dropped =
      options.registry === undefined
        ? undefined
        : counterOn(
            options.registry,
            'events_dropped_total',
            'Kubernetes Events not written, by cause: rate_limited (spam filter) or write_failed.',
            ['cause'],
          );
  }

  event(regarding: KubeObject | EventObjectRef, type: EventType, reason: string, action: string, note: string): void {
    try {
      const now = this.#now();
      const c = this.#correlator.correlate({ regarding: refOf(regarding), type, reason, action, note: truncateNote(note) }, now);
      if (c.kind === 'drop') {
        this.#dropped?.inc({ cause: 'rate_limited' });
        this.#o.log.debug({ reason }, 'event dropped by the spam filter');
        return;
      }
      const w = c.entry.write;
      if (c.kind === 'new') {
        w.namespace = c.entry.spec.regarding.namespace ?? CLUSTER_EVENT_NAMESPACE;
        w.name = this.#eventName(c.entry.spec.regarding.name, now);
      }
      if (w.running === undefined) this.#startWrites(c.entry);
    } catch (err) {
      // Recording is never the caller's problem.
      this.#o.log.debug({ err }, 'event not recorded');
    }
  }

  /** Resolves when every write started so far has finished (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running]);
  }

  /** client-go's name: `<object name>.<event time in ns, hex>`; a sequence keeps it unique here. */
  #eventName(objectName: string, nowMs: number): string {
    const ns = BigInt(nowMs) * 1_000_000n + BigInt(this.#seq++ % 1_000_000);
    return `${objectName.slice(0, 253 - 17)}.${ns.toString(16)}`;
  }

  #startWrites(entry: SeriesEntry<WriteState>): void {
    const running = this.#writeUntilCurrent(entry).finally(() => {
      entry.write.running = undefined;
      this.#running.delete(running);
    });
    entry.write.running = running;
    this.#running.add(running);
  }

  /** Writes until the Event on the server carries the entry's latest count. */
  async #writeUntilCurrent(entry: SeriesEntry<WriteState>): Promise<void> {
    const w = entry.write;
    while (w.written < entry.count) {
      const count = entry.count;
      const lastMs = entry.lastMs;
      try {
        await this.#write(entry, count, lastMs);
      } catch (err) {
        this.#dropped?.inc({ cause: 'write_failed' });
        this.#o.log.debug({ err, reason: entry.spec.reason, event: w.name }, 'event write failed');
      }
      // Written or given up: either way these observations are done with.
      w.written = count;
    }
  }

  async #write(entry: SeriesEntry<WriteState>, count: number, lastMs: number): Promise<void> {
    const w = entry.write;
    const series = count > 1 ? { count, lastObservedTime: microTime(lastMs) } : undefined;
    if (w.created && series !== undefined) {
      try {
        await this.#o.client.patch({ apiVersion: 'events.k8s.io/v1', kind: 'Event', namespace: w.namespace, name: w.name }, { series }, 'merge');
        return;
      } catch (err) {
        if (!isNotFound(err)) throw err;
        // Deleted (TTL): written again below, with the series so far.
      }
    }
    try {
      await this.#o.client.create(this.#body(entry, series));
      w.created = true;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      // An earlier create reached the server though its answer did not reach us.
      w.created = true;
      if (series !== undefined) await this.#write(entry, count, lastMs);
    }
  }

  #body(entry: SeriesEntry<WriteState>, series: { count: number; lastObservedTime: string } | undefined): KubeObject {
    const { spec } = entry;
    return {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: entry.write.name, namespace: entry.write.namespace },
      eventTime: microTime(entry.firstMs),
      ...(series === undefined ? {} : { series }),
      reportingController: this.#o.reportingController,
      reportingInstance: this.#instance,
      action: spec.action,
      reason: spec.reason,
      regarding: spec.regarding,
      note: spec.note,
      type: spec.type,
    };
  }
}
