/**
 * Watches of an installer's objects shared by the controllers that need them (issue 74): one
 * informer per identity, label selector, kind and namespace, whoever asks for it. Under
 * BoxcutterRuntime the ClusterExtension controller's drift watches (drift/watches.ts) and the
 * ClusterObjectSet controller's revision watches (objectset/watches.ts) both watch an
 * extension's objects as its installer ServiceAccount; each subscribes here and the two share
 * one list and one watch (decision 0156).
 *
 * An informer starts with its first subscriber and stops when the last one leaves (its signal
 * aborts). Each subscriber's handler gets every change from its subscription on (the informer's
 * cached objects first as adds when it joins a synced one) and reads the cache. Identities are
 * never mixed: the identity is part of the key, and the informer lists and watches with the
 * client of the subscriber that started it, which is that identity's. The transform is the
 * registry's, so one reduced copy (a fingerprint, decision 0098) of each object serves every
 * subscriber. Restarts, relists after 410 Gone and backoff are the informer's (pkg/shared/kube).
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import {
  Informer,
  clientListWatch,
  jitteredWatchTimeoutSeconds,
  type BackoffOptions,
  type InformerHandler,
  type KubeClient,
  type KubeObject,
  type TypeRef,
} from '../../shared/kube/index.ts';

/** Shortest server-side timeout of a watch: 30 min (30-60 min with jitter); hundreds stay open. */
const WATCH_TIMEOUT_SECONDS = 1800;

/** One watch: `identity`'s objects of `type` selected by `selector` in `namespace` ('' cluster-wide). */
export interface WatchKey {
  /** Who lists and watches (a ServiceAccount's `namespace/name`): no watch is shared across two. */
  identity: string;
  /** That identity's client; the first subscriber's is used while the informer runs. */
  client: KubeClient;
  selector: string;
  type: TypeRef;
  namespace: string;
}

/** What a subscriber reads of the shared informer: whether it listed, the cached object by `ns/name` or `name`. */
type WatchedCache<T extends KubeObject> = Pick<Informer<T>, 'hasSynced' | 'get' | 'waitForSync'>;

/** What the controllers subscribe through (a SharedWatches of a transform giving at least T). */
export interface WatchSubscriber<T extends KubeObject> {
  subscribe(key: WatchKey, handler: InformerHandler<T>, signal: AbortSignal): WatchedCache<T>;
  settled(): Promise<void>;
}

/** Construction options. */
interface SharedWatchesOptions<T extends KubeObject> {
  /** The informers' metric label and log field. */
  name: string;
  /** What is cached of each object of `type` (decision 0098: a fingerprint, not the object). */
  transform: (obj: KubeObject, type: TypeRef) => T;
  log: Logger;
  registry?: Registry | undefined;
  /** Restart backoff of each informer (default the informer's). */
  backoff?: BackoffOptions | undefined;
}

interface Running<T extends KubeObject> {
  informer: Informer<T>;
  abort: AbortController;
  subscribers: number;
}

/** The canonical key of a watch. Pure. */
function watchKey(k: Omit<WatchKey, 'client'>): string {
  return `${k.identity}|${k.selector}|${k.type.apiVersion}/${k.type.kind}|${k.namespace}`;
}

/** See the module comment. */
export class SharedWatches<T extends KubeObject> implements WatchSubscriber<T> {
  readonly #o: SharedWatchesOptions<T>;
  readonly #watches = new Map<string, Running<T>>();
  readonly #running = new Set<Promise<void>>();

  constructor(options: SharedWatchesOptions<T>) {
    this.#o = options;
  }

  /** Informers running (each one list and one watch at a time). */
  get size(): number {
    return this.#watches.size;
  }

  /** Subscribes `handler` to the informer of `key`, starting it if none runs; leaves when `signal` aborts. */
  subscribe(key: WatchKey, handler: InformerHandler<T>, signal: AbortSignal): WatchedCache<T> {
    const k = watchKey(key);
    const running = this.#watches.get(k) ?? this.#start(k, key);
    running.subscribers++;
    const unsubscribe = running.informer.addHandler(handler);
    const leave = (): void => {
      unsubscribe();
      running.subscribers--;
      if (running.subscribers > 0 || this.#watches.get(k) !== running) return;
      running.abort.abort();
      this.#watches.delete(k);
    };
    if (signal.aborted) leave();
    else signal.addEventListener('abort', leave, { once: true });
    return running.informer;
  }

  /** Resolves when every informer stopped so far has ended its list/watch loop. */
  async settled(): Promise<void> {
    await Promise.all(this.#running);
  }

  #start(k: string, key: WatchKey): Running<T> {
    const { type } = key;
    const informer = new Informer<T>({
      name: this.#o.name,
      source: clientListWatch<T>(key.client, type, { labelSelector: key.selector, ...(key.namespace === '' ? {} : { namespace: key.namespace }) }),
      log: this.#o.log,
      ...(this.#o.registry === undefined ? {} : { registry: this.#o.registry }),
      ...(this.#o.backoff === undefined ? {} : { backoff: this.#o.backoff }),
      // The client streams list pages, so each object is reduced as it arrives.
      transform: (obj) => this.#o.transform(obj, type),
      resyncPeriodMs: 0,
      // Renewing each every 30-60 min keeps the requests of many open watches low; bookmarks keep the watchdog quiet.
      watchTimeoutSeconds: () => jitteredWatchTimeoutSeconds(WATCH_TIMEOUT_SECONDS),
    });
    const running: Running<T> = { informer, abort: new AbortController(), subscribers: 0 };
    this.#watches.set(k, running);
    const done = informer.run(running.abort.signal);
    this.#running.add(done);
    void done.finally(() => this.#running.delete(done));
    return running;
  }
}
