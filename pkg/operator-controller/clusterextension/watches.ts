/**
 * What the ClusterExtension controller watches besides its own objects (the controller's
 * `watches`, extension-events.ts), as upstream's SetupWithManager declares it:
 *
 * - catalogs: new content, a priority or availability change queues the extensions that use
 *   the catalog and resolves each ahead of its reconcile (decision 0100);
 * - dependents: when an extension is installed, upgraded or deleted, the extensions waiting on
 *   a dependency it may meet look again (decision 0104); the handler keeps the index of
 *   installed extensions current (it replays what the informer holds);
 * - deletion: an extension deleted without its finalizers (removed by hand) leaves no watches
 *   or gauge series behind, and one being deleted pulls nothing any more.
 */
import type { Logger } from 'pino';
import type { Informer, KubeObject } from '../../shared/kube/index.ts';
import { dependentsToWake, watchCatalogEvents, type CatalogSource, type InstalledIndex } from '../dependencyview/index.ts';

interface ExtensionWatchPorts {
  extensions: Informer<KubeObject>;
  catalogs: Informer<KubeObject>;
  catalogSource: CatalogSource;
  installed: InstalledIndex;
  /** Queues an extension's reconcile. */
  enqueue: (name: string) => void;
  /** Resolves an extension ahead of its reconcile (ResolveAhead's `offer`). */
  resolveAhead: (name: string) => void;
  /** What is kept per extension until it is gone: its drift watches, gauge series. */
  forgetDeleted: readonly ((name: string) => void)[];
  /** What is kept per extension until it is deleted or being deleted: its bundle pulls. */
  forgetDeleting: readonly ((name: string) => void)[];
  log: Logger;
  /** The watches' lifetime (leadership): dependents are not woken after it ends. */
  signal: AbortSignal;
}

/** Subscribes the controller's watches; returns what unsubscribes them all. */
export function watchExtensions(p: ExtensionWatchPorts): () => void {
  const wakeDependents = p.extensions.addHandler((type, obj, old) => {
    dependentsToWake(p.installed, p.catalogSource, { type, obj, old }, p.signal).then(
      (names) => {
        for (const name of names) p.enqueue(name);
      },
      (err: unknown) => {
        if (!p.signal.aborted) p.log.warn({ err, extension: obj.metadata.name }, 'dependents of a changed extension not woken');
      },
    );
  });
  const forget = p.extensions.addHandler((type, obj) => {
    const name = obj.metadata.name ?? '';
    if (type === 'delete') for (const f of p.forgetDeleted) f(name);
    if (type === 'delete' || obj.metadata.deletionTimestamp !== undefined) for (const f of p.forgetDeleting) f(name);
  });
  const catalogEvents = watchCatalogEvents({
    ...p.catalogSource,
    catalogs: p.catalogs,
    extensions: p.extensions,
    enqueue: (name) => {
      p.enqueue(name);
      p.resolveAhead(name);
    },
    log: p.log,
  });
  return () => {
    catalogEvents();
    forget();
    wakeDependents();
  };
}
