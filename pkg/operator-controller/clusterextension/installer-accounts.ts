/**
 * The installers' ServiceAccounts, from a cache (decision 0155): one cluster-wide informer of
 * ServiceAccounts, held as operator-controller while it leads, tells the validate step that an
 * extension's installer exists without a GET at each reconcile (upstream v1.9-v1.10 GETs it
 * each reconcile). Each cached copy keeps only its name, namespace, uid and resourceVersion,
 * so a cluster's thousands of ServiceAccounts cost about 200 bytes each.
 *
 * A ServiceAccount the cache lacks (not yet delivered, or missing) is read live, so a copy not
 * yet cached never makes a wrong verdict; one created after the extension queues the extensions
 * it installs. Without the grant (list and watch of serviceaccounts cluster-wide, config/rbac;
 * RBAC from before it), there is no informer and every validation reads live, as before.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { KeyFunc } from '../../shared/controller/index.ts';
import { Informer, clientListWatch, selfCanI, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import { installerOf, type ServiceAccountRef } from './installer.ts';

const SERVICE_ACCOUNT = { apiVersion: 'v1', kind: 'ServiceAccount' } as const;

/** Whether `client`'s own identity may list and watch ServiceAccounts cluster-wide (SelfSubjectAccessReviews). */
async function canWatchServiceAccounts(client: Pick<KubeClient, 'create'>, signal?: AbortSignal): Promise<boolean> {
  const asks = ['list', 'watch'].map((verb) => ({ verb, group: '', resource: 'serviceaccounts' }));
  const allowed = await selfCanI(client, asks, signal);
  return allowed.every((a) => a);
}

/** Keeps of a ServiceAccount what says it exists (the informer's key and its change detection). */
function accountIdentity(obj: KubeObject): KubeObject {
  const { name, namespace, uid, resourceVersion } = obj.metadata;
  return { ...SERVICE_ACCOUNT, metadata: { name, namespace, uid, resourceVersion } };
}

/** The cluster-wide ServiceAccount informer (not running: the caller runs it). */
function serviceAccountInformer(client: KubeClient, log: Logger, registry?: Registry): Informer<KubeObject> {
  return new Informer({
    name: 'serviceaccounts',
    source: clientListWatch(client, SERVICE_ACCOUNT),
    log,
    registry,
    transform: accountIdentity,
    // Nothing is done on an update: re-delivering every copy would only cost CPU.
    resyncPeriodMs: 0,
  });
}

/** What watchInstallerAccounts started: the informer (for the validate step), the controller's watch of it, and its end. */
interface InstallerAccounts {
  informer: Informer<KubeObject>;
  /** A watch of the ClusterExtension controller: a ServiceAccount created queues the extensions it installs. */
  watch: { informer: Informer<KubeObject>; keys: KeyFunc };
  /** Resolves once the informer stopped (`signal` aborted). */
  stopped: Promise<void>;
}

/**
 * Starts the ServiceAccount informer and the index of which extensions each one installs, until
 * `signal` aborts; undefined (nothing started) when operator-controller may not list and watch
 * ServiceAccounts cluster-wide, or that could not be asked.
 */
export async function watchInstallerAccounts(p: {
  client: KubeClient;
  extensions: Pick<Informer<KubeObject>, 'addHandler'>;
  defaultInstaller?: ServiceAccountRef;
  log: Logger;
  registry?: Registry;
  signal: AbortSignal;
}): Promise<InstallerAccounts | undefined> {
  const granted = await canWatchServiceAccounts(p.client, p.signal).catch((err: unknown) => {
    if (!p.signal.aborted) p.log.warn({ err }, 'could not ask whether ServiceAccounts may be watched; reading installers live');
    return false;
  });
  if (!granted) {
    if (!p.signal.aborted) p.log.info({}, 'ServiceAccounts may not be listed and watched cluster-wide; reading installers live');
    return undefined;
  }
  const informer = serviceAccountInformer(p.client, p.log, p.registry);
  const index = new InstallerIndex(p.defaultInstaller);
  const unfollow = index.follow(p.extensions);
  const stopped = informer.run(p.signal).finally(unfollow);
  return { informer, watch: { informer, keys: index.keys }, stopped };
}

/**
 * Which extensions each ServiceAccount installs, kept from the extensions' informer: the key
 * function of the ServiceAccount watch queues them when their installer is created.
 */
export class InstallerIndex {
  /** `namespace/name` of an installer -> the extensions it installs. */
  readonly #byAccount = new Map<string, Set<string>>();
  /** Extension -> its installer's key. */
  readonly #ofExtension = new Map<string, string>();
  readonly #defaultInstaller: ServiceAccountRef | undefined;

  constructor(defaultInstaller?: ServiceAccountRef) {
    this.#defaultInstaller = defaultInstaller;
  }

  /** Keeps the index from `extensions`' events (replayed when synced); returns the unsubscription. */
  follow(extensions: Pick<Informer<KubeObject>, 'addHandler'>): () => void {
    return extensions.addHandler((type, obj) => {
      const name = obj.metadata.name ?? '';
      if (type === 'delete') this.#set(name, undefined);
      else this.#set(name, installerKey(obj, this.#defaultInstaller));
    });
  }

  /** The extensions `namespace/name` installs. */
  extensionsOf(key: string): readonly string[] {
    return [...(this.#byAccount.get(key) ?? [])];
  }

  /** The key function of the ServiceAccount watch: a ServiceAccount added queues the extensions it installs. */
  readonly keys: KeyFunc = (type, obj) =>
    type === 'add' ? this.extensionsOf(`${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`) : undefined;

  #set(extension: string, key: string | undefined): void {
    const old = this.#ofExtension.get(extension);
    if (old === key) return;
    if (old !== undefined) {
      const names = this.#byAccount.get(old);
      names?.delete(extension);
      if (names?.size === 0) this.#byAccount.delete(old);
    }
    if (key === undefined) {
      this.#ofExtension.delete(extension);
      return;
    }
    this.#ofExtension.set(extension, key);
    const names = this.#byAccount.get(key) ?? new Set<string>();
    names.add(extension);
    this.#byAccount.set(key, names);
  }
}

/** `namespace/name` of the installer of the (unparsed) extension `obj`, if it names one or there is a default. */
function installerKey(obj: Readonly<KubeObject>, defaultInstaller: ServiceAccountRef | undefined): string | undefined {
  const spec = obj['spec'] as { namespace?: unknown; serviceAccount?: { name?: unknown } } | undefined;
  if (typeof spec?.namespace !== 'string') return undefined;
  const name = spec.serviceAccount?.name;
  const installer = installerOf({ namespace: spec.namespace, ...(typeof name === 'string' ? { serviceAccount: { name } } : {}) }, defaultInstaller);
  return installer === undefined ? undefined : `${installer.namespace}/${installer.name}`;
}
