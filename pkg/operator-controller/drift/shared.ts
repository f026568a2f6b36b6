/**
 * Shared drift watches (decision 0109): one informer per cluster-scoped kind, as
 * operator-controller, selecting every object that carries the ClusterExtension owner labels,
 * instead of one cluster-wide watch per extension and kind as each extension's ServiceAccount.
 * At 10,000 extensions the per-extension form kept 20,000 cluster-wide watches of ClusterRoles
 * and ClusterRoleBindings open, each of whose events kube-apiserver filtered for every one of
 * them, and their bookmarks and buffers were half of operator-controller's memory and CPU at rest.
 *
 * Each extension gets a {@link DriftView} per kind: the objects labelled with its name, and its
 * handler called with the changes of those objects as its own watch would report them (an object
 * relabelled to another extension leaves the first one's view as a delete).
 *
 * A view made while its kind's informer already holds the cluster (every install after the first)
 * is not synced until the release's objects it lacks arrive, or {@link ARRIVAL_WAIT_MS} passed: an
 * install subscribes right after its apply, before the watch delivered what that apply created,
 * and a view that said "synced, missing" then would queue a repair for nothing. A per-extension
 * watch gets the same from its first list, which comes after the apply.
 *
 * A kind's informer keeps running for {@link LINGER_MS} after its last view closed, and a view
 * made meanwhile uses it (as a view of a synced informer). Where extensions come and go one at a
 * time, each install otherwise started the three informers again: three cluster-wide LISTs and
 * WATCHes on its way to `Installed`, and GETs while its new views had not listed (issue 74).
 * With no view for that long it stops; `stopAll` (leadership ended) stops every one at once.
 * `size` counts the kinds in use, not the ones lingering.
 */
import { OWNER_KIND_LABEL, OWNER_NAME_LABEL } from '../../shared/api/index.ts';
import { OWNER_KIND } from '../applier/index.ts';
import { Informer, clientListWatch, gvkOf, selfCanI, type InformerEventType, type KubeClient, type TypeRef } from '../../shared/kube/index.ts';
import { driftInformer, type DriftInformerOptions } from './own.ts';
import type { DriftFingerprint } from './targets.ts';

/** What a drift watch of one extension, resource and namespace offers (an Informer, or a view of a shared one). */
export interface DriftView {
  readonly hasSynced: boolean;
  /** The cached object with key `ns/name` or `name`, if the extension owns it. */
  get(key: string): Readonly<DriftFingerprint> | undefined;
  waitForSync(signal?: AbortSignal): Promise<void>;
}

/** Receives one extension's changes of a kind, as its own watch would. */
export type ViewHandler = (type: InformerEventType, obj: Readonly<DriftFingerprint>, old: Readonly<DriftFingerprint> | undefined) => void;

/** How long a view made on a synced informer waits for the release objects the cache lacks. */
const ARRIVAL_WAIT_MS = 3_000;

/** How long a kind's informer runs on after its last view closed, for the next extension's view. */
const LINGER_MS = 5 * 60_000;

/** The selector of every object an extension's apply labelled. */
export const SHARED_SELECTOR = `${OWNER_KIND_LABEL}=${OWNER_KIND},${OWNER_NAME_LABEL}`;

/** Construction options of SharedDriftKinds (`onRun` gets each informer's run promise: DriftWatches.settled waits for them). */
interface SharedDriftKindsOptions extends DriftInformerOptions {
  /** operator-controller's own client: it lists and watches `kinds` cluster-wide. */
  client: KubeClient;
  kinds: readonly TypeRef[];
  /** How long an informer runs on with no view (default LINGER_MS; tests shorten it). */
  lingerMs?: number | undefined;
}

interface SharedKind {
  informer: Informer<DriftFingerprint>;
  abort: AbortController;
  /** Per extension, its views of this kind. */
  views: Map<string, Set<SharedView>>;
  /** While it has no view: stops it when it fires. */
  linger: NodeJS.Timeout | undefined;
}

const typeKey = (t: TypeRef): string => `${t.apiVersion}/${t.kind}`;

/** The cluster-scoped kinds whose drift watches may be shared: the ones nearly every bundle has (config/rbac grants them). */
const SHAREABLE: readonly { type: TypeRef; resource: string }[] = [
  { type: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' }, resource: 'customresourcedefinitions' },
  { type: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' }, resource: 'clusterroles' },
  { type: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' }, resource: 'clusterrolebindings' },
];

/**
 * Of the shareable kinds, those `client`'s own identity may list and watch cluster-wide now
 * (SelfSubjectAccessReviews): an operator-controller without those grants (RBAC from before
 * decision 0109) keeps watching them per extension, as each ServiceAccount.
 */
export async function shareableDriftKinds(client: Pick<KubeClient, 'create'>, signal?: AbortSignal): Promise<TypeRef[]> {
  const asks = SHAREABLE.flatMap(({ type, resource }) => ['list', 'watch'].map((verb) => ({ verb, group: gvkOf(type).group, resource })));
  const allowed = await selfCanI(client, asks, signal);
  return SHAREABLE.filter((_, i) => allowed[2 * i] === true && allowed[2 * i + 1] === true).map((k) => k.type);
}

/** See the module comment. The informer of a kind runs while some extension has a view of it, and LINGER_MS after. */
export class SharedDriftKinds {
  readonly #o: SharedDriftKindsOptions;
  readonly #shared: Set<string>;
  readonly #kinds = new Map<string, SharedKind>();

  constructor(options: SharedDriftKindsOptions) {
    this.#o = options;
    this.#shared = new Set(options.kinds.map(typeKey));
  }

  /** True when objects of `type` are watched here rather than per extension. */
  covers(type: TypeRef): boolean {
    return this.#shared.has(typeKey(type));
  }

  /** Informers some extension has a view of (lingering ones aside). */
  get size(): number {
    let n = 0;
    for (const kind of this.#kinds.values()) if (kind.views.size > 0) n++;
    return n;
  }

  /**
   * A view of `extension`'s objects of `type` (a kind this covers); `expected` are the release's
   * names the view waits for when made on a synced cache. Ends with `signal`.
   */
  view(extension: string, type: TypeRef, expected: Iterable<string>, handler: ViewHandler, signal: AbortSignal): DriftView {
    const kind = this.#kindOf(type);
    clearTimeout(kind.linger);
    kind.linger = undefined;
    const view = new SharedView(extension, kind.informer, handler);
    if (kind.informer.hasSynced) view.awaitArrivals(expected);
    const views = kind.views.get(extension) ?? new Set<SharedView>();
    views.add(view);
    kind.views.set(extension, views);
    signal.addEventListener(
      'abort',
      () => {
        view.close();
        views.delete(view);
        if (views.size === 0 && kind.views.get(extension) === views) kind.views.delete(extension);
        if (kind.views.size === 0 && this.#kinds.get(typeKey(type)) === kind) this.#linger(typeKey(type), kind);
      },
      { once: true },
    );
    return view;
  }

  /** Stops every informer, lingering ones too (leadership ended). */
  stopAll(): void {
    for (const kind of this.#kinds.values()) {
      clearTimeout(kind.linger);
      kind.abort.abort();
    }
    this.#kinds.clear();
  }

  /** Stops `kind`'s informer after LINGER_MS unless a view is made before. */
  #linger(key: string, kind: SharedKind): void {
    clearTimeout(kind.linger);
    kind.linger = setTimeout(() => {
      if (kind.views.size > 0 || this.#kinds.get(key) !== kind) return;
      kind.abort.abort();
      this.#kinds.delete(key);
    }, this.#o.lingerMs ?? LINGER_MS);
    kind.linger.unref();
  }

  #kindOf(type: TypeRef): SharedKind {
    const existing = this.#kinds.get(typeKey(type));
    if (existing !== undefined) return existing;
    const o = this.#o;
    const informer = driftInformer('drift-shared', clientListWatch<DriftFingerprint>(o.client, type, { labelSelector: SHARED_SELECTOR }), type, o);
    const kind: SharedKind = { informer, abort: new AbortController(), views: new Map(), linger: undefined };
    informer.addHandler((t, obj, old) => dispatch(kind, t, obj, old));
    this.#kinds.set(typeKey(type), kind);
    o.onRun(informer.run(kind.abort.signal));
    return kind;
  }
}

/**
 * Hands a change to the views of the extension owning the object, and, when its owner label
 * changed, a delete to the views of the one that owned it before.
 */
function dispatch(kind: SharedKind, type: InformerEventType, obj: Readonly<DriftFingerprint>, old: Readonly<DriftFingerprint> | undefined): void {
  const owner = obj.owner;
  const before = old?.owner;
  if (type === 'update' && old !== undefined && before !== owner) {
    if (before !== undefined) for (const v of kind.views.get(before) ?? []) v.deliver('delete', old, old);
    if (owner !== undefined) for (const v of kind.views.get(owner) ?? []) v.deliver('add', obj, undefined);
    return;
  }
  if (owner !== undefined) for (const v of kind.views.get(owner) ?? []) v.deliver(type, obj, old);
}

/** True when `obj` is `extension`'s: its owner labels name that ClusterExtension. Pure. */
export function ownedBy(extension: string, obj: Readonly<DriftFingerprint>): boolean {
  return obj.owner === extension && obj.otherOwnerKind !== true;
}

/**
 * One extension's view of a shared informer: of a kind's informer as operator-controller here, or
 * of one of the extension's own (drift/watches.ts) that another controller may have started first.
 */
export class SharedView implements DriftView {
  readonly #extension: string;
  readonly #informer: DriftView;
  readonly #handler: ViewHandler;
  /** Its objects are those whose owner label names the extension; false: every object of the informer (it selects by that label). */
  readonly #byOwner: boolean;
  /** Release objects the cache lacked when the view was made, until they arrive or the wait ends. */
  #pending = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #waiters: Array<() => void> = [];

  constructor(extension: string, informer: DriftView, handler: ViewHandler, byOwner = true) {
    this.#extension = extension;
    this.#informer = informer;
    this.#handler = handler;
    this.#byOwner = byOwner;
  }

  get hasSynced(): boolean {
    return this.#informer.hasSynced && this.#pending.size === 0;
  }

  get(key: string): Readonly<DriftFingerprint> | undefined {
    const cached = this.#informer.get(key);
    return !this.#byOwner || (cached !== undefined && ownedBy(this.#extension, cached)) ? cached : undefined;
  }

  async waitForSync(signal?: AbortSignal): Promise<void> {
    await this.#informer.waitForSync(signal);
    if (this.#pending.size === 0) return;
    signal?.throwIfAborted();
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => reject(signal?.reason);
      this.#waiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Not synced until each of `expected` the cache lacks arrives, for at most ARRIVAL_WAIT_MS. */
  awaitArrivals(expected: Iterable<string>): void {
    for (const key of expected) if (this.get(key) === undefined) this.#pending.add(key);
    if (this.#pending.size === 0) return;
    this.#timer = setTimeout(() => this.#arrived(), ARRIVAL_WAIT_MS);
    this.#timer.unref();
  }

  deliver(type: InformerEventType, obj: Readonly<DriftFingerprint>, old: Readonly<DriftFingerprint> | undefined): void {
    if (type !== 'delete' && this.#pending.delete(obj.metadata.name ?? '') && this.#pending.size === 0) this.#arrived();
    this.#handler(type, obj, old);
  }

  close(): void {
    clearTimeout(this.#timer);
    this.#pending.clear();
    this.#waiters = [];
  }

  #arrived(): void {
    clearTimeout(this.#timer);
    this.#pending.clear();
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}
