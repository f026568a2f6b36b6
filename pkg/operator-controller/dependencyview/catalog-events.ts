/**
 * Which ClusterExtensions a ClusterCatalog change affects. Upstream enqueues every extension on
 * any catalog change. Here new content (a new digest: the common case, a catalog image
 * update) enqueues only the extensions whose package the catalog carries or carried (its
 * package names before and after, read from the content cache), so an update of one catalog
 * does not re-resolve 100 extensions installed from others. Changes that can move any
 * resolution (a catalog added or deleted, its priority, labels, availability or serving state
 * changed) and content whose package names cannot be read enqueue every extension. A changed
 * image reference alone enqueues nothing: its content arrives later as a new digest.
 */
import type { Logger } from 'pino';
import { parseClusterCatalog, parseClusterExtension } from '../../shared/api/index.ts';
import type { CatalogRef } from '../catalogclient/index.ts';
import type { Informer, InformerEventType, KubeObject } from '../../shared/kube/index.ts';
import { contentRef, type CatalogSource } from './catalogs.ts';
import { conditionText } from './installed-index.ts';

/** What the handler needs: the catalogs' content and URLs (a CatalogSource's), the informers' events and list. */
interface CatalogEventsOptions extends Omit<CatalogSource, 'catalogs'> {
  catalogs: Pick<Informer<KubeObject>, 'addHandler'>;
  extensions: Pick<Informer<KubeObject>, 'list'>;
  enqueue: (extensionName: string) => void;
  log: Logger;
}

function refOf(obj: Readonly<KubeObject> | undefined, baseURL: CatalogSource['baseURL']): CatalogRef | undefined {
  if (obj === undefined) return undefined;
  const parsed = parseClusterCatalog(obj);
  if (!parsed.ok) return undefined;
  const ref = contentRef(parsed.value, baseURL);
  return typeof ref === 'string' ? undefined : ref;
}

/**
 * What decides resolution besides the content: priority, availability, labels and serving
 * state. Not `spec.source`: a new image reference changes nothing until catalogd serves its
 * content, which arrives as a new digest; reconciling every extension at the reference change
 * would only repeat their current resolution while catalogd is busy unpacking.
 */
function resolutionInputs(obj: Readonly<KubeObject> | undefined): string {
  if (obj === undefined) return '';
  const spec = (obj.spec ?? {}) as { priority?: unknown; availabilityMode?: unknown };
  const serving = conditionText(obj, 'Serving', 'status');
  return JSON.stringify([spec.priority ?? 0, spec.availabilityMode ?? '', obj.metadata.labels ?? {}, serving ?? '']);
}

/**
 * Subscribes to catalog events; returns the unsubscribe function. Package names are read
 * asynchronously; a failure to read them enqueues every extension.
 */
export function watchCatalogEvents(o: CatalogEventsOptions): () => void {
  const enqueueFor = (packages: ReadonlySet<string> | undefined): void => {
    for (const ext of o.extensions.list()) {
      const parsed = parseClusterExtension(ext);
      const pkg = parsed.ok ? parsed.value.spec.source.catalog.packageName : undefined;
      if (packages === undefined || pkg === undefined || packages.has(pkg)) o.enqueue(ext.metadata.name ?? '');
    }
  };
  // Package names of each catalog's content as last read: what it "carried" before a change.
  const carried = new Map<string, ReadonlySet<string>>();
  // Digest of each catalog's newest event: a slower read of an older digest must not replace
  // the newer content's names as the baseline of the next change.
  const newest = new Map<string, string | undefined>();

  const handle = async (type: InformerEventType, obj: Readonly<KubeObject>, old: Readonly<KubeObject> | undefined): Promise<void> => {
    const name = obj.metadata.name ?? '';
    const now = type === 'delete' ? undefined : refOf(obj, o.baseURL);
    const before = type === 'add' ? undefined : refOf(type === 'delete' ? obj : old, o.baseURL);
    const contentChanged = now?.digestRef !== before?.digestRef || now?.baseURL !== before?.baseURL;
    const inputsChanged = type !== 'update' || resolutionInputs(obj) !== resolutionInputs(old);
    if (!contentChanged && !inputsChanged) return;
    const previous = carried.get(name);
    if (type === 'delete') {
      o.content.forget(name);
      carried.delete(name);
      newest.delete(name);
      return enqueueFor(undefined);
    }
    if (now !== undefined) o.content.forget(name, now.digestRef);
    newest.set(name, now?.digestRef);
    let current: ReadonlySet<string> = new Set();
    try {
      if (now !== undefined) current = await o.content.packageNames(now);
    } catch (err) {
      o.log.debug({ err, catalog: name }, 'catalog package names unavailable, enqueueing every extension');
      carried.delete(name);
      return enqueueFor(undefined);
    }
    if (newest.get(name) === now?.digestRef) carried.set(name, current);
    // A new catalog, or one whose priority, labels or serving state changed, can change any
    // resolution (ambiguity, selection, "not being served" errors); so can new content whose
    // previous package names were never read.
    if (inputsChanged || previous === undefined) return enqueueFor(undefined);
    enqueueFor(new Set([...previous, ...current]));
  };
  return o.catalogs.addHandler((type, obj, old) => {
    void handle(type, obj, old);
  });
}
