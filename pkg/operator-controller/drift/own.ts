/**
 * The per-extension drift informer (decision 0066): one extension's objects of one resource in one
 * namespace (or cluster-wide), listed and watched as the extension's ServiceAccount with its owner
 * label selector. Used for every kind operator-controller does not watch once for all extensions
 * itself (drift/shared.ts). A watch the ServiceAccount may not open (403, a missing ServiceAccount)
 * is retried by its informer with capped backoff and logged; it touches no other watch or extension.
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
  type ListWatchSource,
  type TypeRef,
} from '../../shared/kube/index.ts';
import { ownerSelector } from '../applier/index.ts';
import { fingerprint, type DriftFingerprint, type DriftTarget } from './targets.ts';

/** Shortest server-side timeout of a drift watch: 30 min (so 30-60 min with jitter). */
const WATCH_TIMEOUT_SECONDS = 1800;

/** What an extension's own drift informer is made of. */
export interface OwnDriftInformer {
  extension: string;
  target: DriftTarget;
  /** The extension's ServiceAccount's client. */
  client: KubeClient;
  handler: InformerHandler<DriftFingerprint>;
  log: Logger;
  registry?: Registry | undefined;
  backoff?: BackoffOptions | undefined;
  /** Called with the informer's run (it ends when `signal` aborts). */
  onRun: (done: Promise<void>) => void;
  signal: AbortSignal;
}

/** Starts the extension's informer of `o.target` and returns it. */
export function startOwnDriftInformer(o: OwnDriftInformer): Informer<DriftFingerprint> {
  const source = clientListWatch<DriftFingerprint>(o.client, o.target.type, {
    labelSelector: ownerSelector(o.extension),
    ...(o.target.namespace === '' ? {} : { namespace: o.target.namespace }),
  });
  const informer = driftInformer('drift', source, o.target.type, o);
  informer.addHandler(o.handler);
  o.onRun(informer.run(o.signal));
  return informer;
}

/** A drift informer (own or shared) of `type`'s objects from `source`, kept as fingerprints. */
export function driftInformer(
  name: string,
  source: ListWatchSource<DriftFingerprint>,
  type: TypeRef,
  o: Pick<OwnDriftInformer, 'log' | 'registry' | 'backoff'>,
): Informer<DriftFingerprint> {
  return new Informer<DriftFingerprint>({
    name,
    source,
    log: o.log,
    registry: o.registry,
    backoff: o.backoff,
    // The client streams list pages (KubeClient.listEach), so each object is reduced to its
    // fingerprint as it arrives: one extension's objects of a kind can be dozens of ~1 MiB
    // ConfigMaps, and a page of ten of them parsed whole was ~60 MB of objects.
    transform: (obj) => fingerprint(obj, type),
    resyncPeriodMs: 0,
    // Hundreds of these stay open; renewing each every 30-60 min instead of 5-10 keeps their
    // requests per second low. Bookmarks (about one a minute) keep the watchdog quiet.
    watchTimeoutSeconds: () => jitteredWatchTimeoutSeconds(WATCH_TIMEOUT_SECONDS),
  });
}
