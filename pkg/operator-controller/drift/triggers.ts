/**
 * What a drift watch's event leads to: the event counted (`operator_controller_drift_events_total`),
 * the object remembered for the extension's DriftRepaired event (`takeDrifted`), a log line, and
 * the extension queued, at most once per `minIntervalMs` (a fight with another writer stays
 * bounded; a later event within the interval queues it when the interval ends).
 *
 * An object that leaves a watch was deleted or lost its owner labels: a label-selected watch
 * reports both as DELETED, with the object's last matching content, and a relist cannot tell them
 * apart either. Both queue the extension at once (counted as `delete`); the log line says which it
 * was after a GET of the object (`managed object relabelled`: it still exists, same uid).
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { describeObject } from '../applier/index.ts';
import { counterOn, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import { departure } from './departures.ts';

/** Why a reconcile was triggered (metric label). */
type DriftEvent = 'update' | 'delete' | 'missing';

/** Construction options of DriftTriggers. */
export interface DriftTriggersOptions {
  /** Queues a reconcile of the extension. */
  enqueue: (extension: string) => void;
  log: Logger;
  registry?: Registry | undefined;
  /** Shortest interval between two drift-triggered enqueues of one extension (default 1 s). */
  minIntervalMs?: number | undefined;
  /** Leadership: watches end, and the GETs that tell a delete from a relabel, when it aborts. */
  signal: AbortSignal;
}

interface Pacing {
  lastEnqueue: number;
  timer?: NodeJS.Timeout | undefined;
}

/** See the module comment. */
export class DriftTriggers {
  readonly #o: DriftTriggersOptions;
  readonly #pacing = new Map<string, Pacing>();
  /** Per extension: the objects whose drift queued a reconcile, for its DriftRepaired event. */
  readonly #drifted = new Map<string, Set<string>>();
  readonly #events;

  constructor(options: DriftTriggersOptions) {
    this.#o = options;
    this.#events =
      options.registry === undefined
        ? undefined
        : counterOn(
            options.registry,
            'operator_controller_drift_events_total',
            'Managed-object changes that queued a reconcile, by event: update, delete, or missing from a watch first list.',
            ['event'],
          );
  }

  /** `obj` of the extension drifted (`event`); `client` (its ServiceAccount's) reads what became of a departed one. */
  trigger(extension: string, event: DriftEvent, obj: Readonly<KubeObject>, client: KubeClient): void {
    this.#events?.inc({ event });
    const fields = { extension, event, object: describeObject(obj) };
    this.#drifted.set(extension, (this.#drifted.get(extension) ?? new Set<string>()).add(fields.object));
    if (event === 'update') this.#o.log.debug(fields, 'managed object changed, reconciling');
    else void this.#logDeparture(client, obj, fields);
    this.enqueue(extension);
  }

  /** Queues the extension now, or when its interval since the last one ends. */
  enqueue(extension: string): void {
    const pacing = this.#pacing.get(extension) ?? { lastEnqueue: 0 };
    this.#pacing.set(extension, pacing);
    const wait = pacing.lastEnqueue + (this.#o.minIntervalMs ?? 1000) - Date.now();
    if (wait <= 0) {
      pacing.lastEnqueue = Date.now();
      this.#o.enqueue(extension);
    } else if (pacing.timer === undefined) {
      pacing.timer = setTimeout(() => {
        pacing.timer = undefined;
        pacing.lastEnqueue = Date.now();
        this.#o.enqueue(extension);
      }, wait);
      pacing.timer.unref();
    }
  }

  /** The objects whose drift queued the extension since the last call; forgets them. */
  takeDrifted(extension: string): string[] {
    const drifted = this.#drifted.get(extension);
    this.#drifted.delete(extension);
    return drifted === undefined ? [] : [...drifted];
  }

  /** Drops a pending enqueue of the extension and its pacing (its watches ended). */
  cancel(extension: string): void {
    clearTimeout(this.#pacing.get(extension)?.timer);
    this.#pacing.delete(extension);
  }

  /** `cancel`, and forgets the objects that drifted (the extension is no longer tracked). */
  forget(extension: string): void {
    this.cancel(extension);
    this.#drifted.delete(extension);
  }

  async #logDeparture(client: KubeClient, obj: Readonly<KubeObject>, fields: Record<string, unknown>): Promise<void> {
    const how = await departure(client, obj, this.#o.signal);
    if (how === 'relabelled') this.#o.log.info(fields, 'managed object relabelled, reconciling');
    else if (how === 'deleted') this.#o.log.info(fields, 'managed object deleted, reconciling');
    else this.#o.log.info(fields, 'managed object left its watch, reconciling');
  }
}
