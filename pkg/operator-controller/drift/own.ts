/**
 * How drift informers are made. An extension's own drift watches (decision 0066: one resource in
 * one namespace, or cluster-wide, listed and watched as the extension's ServiceAccount with its
 * owner label selector) are subscriptions to installer watches (pkg/operator-controller/installerwatch),
 * which under BoxcutterRuntime the revision controller shares; `ownDriftWatches` makes the set
 * the drift watches use alone (the Helm runtime, tests). A watch the ServiceAccount may not open
 * (403, a missing ServiceAccount) is retried by its informer with capped backoff and logged; it
 * touches no other watch or extension. The kinds operator-controller watches once for all
 * extensions (drift/shared.ts) use `driftInformer` directly.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { Informer, jitteredWatchTimeoutSeconds, type BackoffOptions, type ListWatchSource, type TypeRef } from '../../shared/kube/index.ts';
import { SharedWatches } from '../installerwatch/index.ts';
import { fingerprint, type DriftFingerprint } from './targets.ts';

/** Shortest server-side timeout of a drift watch: 30 min (so 30-60 min with jitter). */
const WATCH_TIMEOUT_SECONDS = 1800;

/** What drift informers are made with. */
export interface DriftInformerOptions {
  log: Logger;
  registry?: Registry | undefined;
  backoff?: BackoffOptions | undefined;
  /** Called with each informer's run (it ends when its signal aborts). */
  onRun: (done: Promise<void>) => void;
}

/** The installer watches of the drift watches alone: informers named `drift`, caching fingerprints. */
export function ownDriftWatches(o: Omit<DriftInformerOptions, 'onRun'>): SharedWatches<DriftFingerprint> {
  return new SharedWatches({ name: 'drift', transform: fingerprint, log: o.log, registry: o.registry, backoff: o.backoff });
}

/** A drift informer (shared per kind) of `type`'s objects from `source`, kept as fingerprints. */
export function driftInformer(
  name: string,
  source: ListWatchSource<DriftFingerprint>,
  type: TypeRef,
  o: Omit<DriftInformerOptions, 'onRun'>,
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
