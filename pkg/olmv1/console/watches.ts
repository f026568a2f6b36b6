/**
 * The watches behind the console's live updates (live.ts), as the signed-in user: the
 * ClusterExtensions, their Events, their revisions (ClusterObjectSets, and the release records in
 * the system namespace) and the ClusterCatalogs. A kind the user may not watch is retried with
 * backoff by its informer and simply sends nothing.
 */
import type { Logger } from 'pino';
import { CLUSTER_CATALOG, CLUSTER_EXTENSION, CLUSTER_OBJECT_SET } from '../../shared/api/index.ts';
import { Informer, clientListWatch, stripManagedFields, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import { Label, RECORD_OWNER } from '../../operator-controller/release/index.ts';
import type { ChangeTopic, StartWatches } from './live.ts';

/** At most this many objects of a release are watched for one page. */
const MAX_OBJECT_WATCHES = 100;

interface Watched {
  type: { apiVersion: string; kind: string };
  scope: { namespace?: string; labelSelector?: string; fieldSelector?: string };
  topic: ChangeTopic;
  /** The name a change is about (an Event's object; else the object's own). */
  about?(obj: KubeObject): string;
}

/** Starts informers over `client` (the user's) for what the console's pages show. */
export function consoleWatches(o: { client: KubeClient; systemNamespace: string; log: Logger }): StartWatches {
  const watched: Watched[] = [
    { type: CLUSTER_EXTENSION, scope: {}, topic: 'extensions' },
    // Cluster-scoped objects' Events are in namespace default (as client-go and operator-controller record them).
    {
      type: { apiVersion: 'v1', kind: 'Event' },
      scope: { namespace: 'default', fieldSelector: 'involvedObject.kind=ClusterExtension' },
      topic: 'extensions',
      about: (obj) => {
        const involved = (obj as { involvedObject?: { name?: unknown } }).involvedObject?.name;
        return typeof involved === 'string' ? involved : '';
      },
    },
    { type: CLUSTER_OBJECT_SET, scope: {}, topic: 'extensions' },
    {
      type: { apiVersion: 'v1', kind: 'Secret' },
      scope: { namespace: o.systemNamespace, labelSelector: `${Label.owner}=${RECORD_OWNER}` },
      topic: 'extensions',
      about: (obj) => obj.metadata.labels?.name ?? '',
    },
    { type: CLUSTER_CATALOG, scope: {}, topic: 'catalogs' },
  ];
  // A kind not served (no ClusterObjectSets without the BoxcutterRuntime) or not watchable by this user is expected: retried quietly.
  const log = o.log.child({ component: 'console-watches' }, { level: 'error' });
  return (emit, signal) => {
    for (const w of watched) {
      const informer = new Informer<KubeObject>({
        name: `console-${w.type.kind.toLowerCase()}s`,
        source: clientListWatch(o.client, { apiVersion: w.type.apiVersion, kind: w.type.kind }, w.scope),
        log,
        transform: stripManagedFields,
      });
      informer.addHandler((type, obj, old) => {
        // The first list's adds and the periodic resyncs (the same object again) are no change.
        if (!informer.hasSynced || (type === 'update' && obj === old)) return;
        emit({ topic: w.topic, kind: w.type.kind, name: w.about?.(obj) ?? obj.metadata.name ?? '' });
      });
      void informer.run(signal);
    }
  };
}

/**
 * Watches `type` within `scope` as the user of `o.client`, calling `onChange` on every change after
 * the first list (not the resyncs), until `signal` aborts. A kind the user may not watch is
 * retried quietly by the informer.
 */
export function watchScope(
  o: { client: KubeClient; log: Logger },
  name: string,
  type: { apiVersion: string; kind: string },
  scope: Watched['scope'],
  onChange: () => void,
  signal: AbortSignal,
): void {
  const informer = new Informer<KubeObject>({
    name,
    source: clientListWatch(o.client, type, scope),
    log: o.log.child({ component: 'console-watches' }, { level: 'error' }),
    transform: stripManagedFields,
  });
  informer.addHandler((kind, obj, old) => {
    if (informer.hasSynced && !(kind === 'update' && obj === old)) onChange();
  });
  void informer.run(signal);
}

/** Watches of single objects by name (the objects of a release a page shows), as the user. */
export function objectWatches(o: { client: KubeClient; log: Logger }) {
  return (
    refs: readonly { apiVersion: string; kind: string; name: string; namespace: string }[],
    onChange: () => void,
    signal: AbortSignal,
  ): void => {
    for (const ref of refs.slice(0, MAX_OBJECT_WATCHES)) {
      const scope = { ...(ref.namespace === '' ? {} : { namespace: ref.namespace }), fieldSelector: `metadata.name=${ref.name}` };
      watchScope(o, 'console-release-object', { apiVersion: ref.apiVersion, kind: ref.kind }, scope, onChange, signal);
    }
  };
}
