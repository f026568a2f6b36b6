/**
 * Benchmark child: operator-controller's drift watches (DriftWatches, decision 0066) and
 * nothing else of operator-controller. The parent names releases (an extension, its namespace
 * and one object of each kind it holds) and a ServiceAccount; each release is tracked as the
 * installed step tracks a deployed one, as that ServiceAccount, over the scoped clients' shared
 * HTTP/2 channel. Reports once every watch has listed, then stays idle until told to stop, so
 * the parent can read what the watches cost at rest.
 *
 * IPC: `track` {kubeconfig, serviceAccount, releases} -> `synced` {streams, connections};
 * then `gc` -> `gc` {minor, major, ms} (collections and their main-thread time so far) any
 * number of times; `stop`.
 */
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { DriftWatches } from '../../pkg/operator-controller/drift/index.ts';
import { TokenGetter, connect, createScopedClientFactory, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { type ChildMessage, fromParent, runChild, toParent } from '../lib/child.ts';

/** One release to watch. */
export interface WatchedRelease {
  extension: string;
  namespace: string;
  objects: KubeObject[];
}

interface TrackMessage extends ChildMessage {
  kubeconfig: string;
  serviceAccount: { namespace: string; name: string };
  releases: WatchedRelease[];
}

/** Garbage collections so far: scavenges, mark-compacts (incremental steps count with them) and their main-thread time. */
const gc = { minor: 0, major: 0, ms: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) gc.minor++;
    else gc.major++;
    gc.ms += e.duration;
  }
}).observe({ entryTypes: ['gc'] });

runChild(async () => {
  const answerGc = (): void => {
    void fromParent('gc').then(() => {
      toParent({ type: 'gc', ...gc });
      answerGc();
    });
  };
  answerGc();
  const msg = await fromParent<TrackMessage>('track');
  const kube = await connect({ kind: 'file', path: msg.kubeconfig });
  const scoped = createScopedClientFactory({ base: kube.connection, mapper: kube.mapper, tokens: new TokenGetter({ client: kube.client }) });
  const stop = new AbortController();
  const drift = new DriftWatches({ scoped, enqueue: () => undefined, log: pino({ level: 'silent' }), signal: stop.signal });
  for (const r of msg.releases) {
    await drift.track(
      {
        extension: r.extension,
        installNamespace: r.namespace,
        serviceAccount: msg.serviceAccount.name,
        serviceAccountNamespace: msg.serviceAccount.namespace,
        objects: r.objects,
      },
      stop.signal,
    );
  }
  // Synced: a listed watch of the release holds each of its objects.
  const pending = (): number => msg.releases.filter((r) => r.objects.some((o) => drift.ownedUid(r.extension, o) === undefined)).length;
  for (let left = pending(); left > 0; left = pending()) await sleep(250);
  toParent({ type: 'synced', ...scoped.watchStats() });
  await fromParent('stop');
  stop.abort();
  await drift.settled();
  scoped.close();
  kube.close();
});
