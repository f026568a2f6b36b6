/**
 * `olmv1 install` as a namespace's admin (issue 73, decision 0138) as a service: the request for a
 * package in the namespace (an Extension), judged by the cluster's ExtensionPolicies and installed
 * by operator-controller's tenant controller, then followed until it is Installed or refused (the
 * rule broken and its message). Whether a caller installs this way is asked of the API server
 * (`installsAsTenant`). Expected failures are values in the command's words; nothing is printed.
 * A request a ClusterCatalog marked Community may serve needs the acknowledgement a cluster-wide
 * install needs (`--accept-community`, decision 0148): the tenant controller resolves it later,
 * so every catalog the request selects that serves the package counts (`ports.servedBy`, as
 * `catalogsServing` reads them).
 */
import { EXTENSION } from '../../shared/api/index.ts';
import { isAlreadyExists, selfCanI, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import { pollUntilDone, type PollClock } from '../../shared/poll/index.ts';
import { catalogBadge, catalogSource, communityRefusal, describeObject, type ExtensionRequest } from '../install/index.ts';

/** What a tenant's install asks for. */
interface TenantInstallRequest {
  request: ExtensionRequest;
  /** `request.serviceAccount` is the namespace's own (named by the caller), not an installer to make. */
  existingServiceAccount: boolean;
  dryRun: boolean;
  wait: boolean;
  timeoutMs: number;
  /** The user acknowledged that a catalog marked Community may serve the package (`--accept-community`); without it such a request is refused. */
  acceptCommunity: boolean;
}

/** The Extension a tenant's install creates. */
export function tenantRequest(r: Pick<TenantInstallRequest, 'request' | 'existingServiceAccount'>): KubeObject {
  const req = r.request;
  return {
    apiVersion: EXTENSION.apiVersion,
    kind: EXTENSION.kind,
    metadata: { name: req.name, namespace: req.namespace },
    spec: {
      source: { sourceType: 'Catalog', catalog: catalogSource(req) },
      ...(r.existingServiceAccount ? { serviceAccount: { name: req.serviceAccount } } : {}),
      ...(req.watchNamespace === undefined ? {} : { config: { configType: 'Inline', inline: { watchNamespace: req.watchNamespace } } }),
    },
  };
}

/** Where a tenant's request stands. */
type TenantState =
  | { state: 'installed'; bundle: string; version: string }
  | { state: 'refused'; rule: string; message: string }
  | { state: 'waiting'; progress: string };

interface Cond {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

/** The state of the Extension `obj` for its current generation. */
export function tenantState(obj: KubeObject): TenantState {
  const status = (obj['status'] ?? {}) as { conditions?: Cond[]; install?: { bundle?: { name?: string; version?: string } } };
  const generation = obj.metadata.generation;
  const find = (type: string) => (status.conditions ?? []).find((c) => c.type === type);
  const current = (c: Cond | undefined) => c !== undefined && (generation === undefined || c.observedGeneration === generation);
  const allowed = find('Allowed');
  if (current(allowed) && allowed?.status === 'False') return { state: 'refused', rule: allowed.reason ?? '', message: allowed.message ?? '' };
  const installed = find('Installed');
  const progressing = find('Progressing');
  if (current(installed) && installed?.status === 'True' && current(progressing) && progressing?.reason === 'Succeeded') {
    return { state: 'installed', bundle: status.install?.bundle?.name ?? '', version: status.install?.bundle?.version ?? '' };
  }
  const progress = !current(allowed) ? 'waiting for operator-controller' : `${progressing?.reason ?? ''}: ${progressing?.message ?? ''}`;
  return { state: 'waiting', progress };
}

/** What a tenant's install tells as it goes. */
export type TenantInstallEvent = { type: 'created'; object: KubeObject } | { type: 'waiting'; what: string; progress: string };

/** What it did: the request (written unless a dry run) and, after a wait, the bundle installed; or why not. */
type TenantInstallResult =
  | { ok: true; object: KubeObject; dryRun: boolean; installed?: { bundle: string; version: string }; community?: string }
  | { ok: false; error: string };

/**
 * Why a request for `packageName` that the ClusterCatalogs `serving` may serve needs an
 * acknowledgement (the first marked Community: its display name and the refusal), or undefined.
 * The one check of `olmv1 install --tenant` and the console's Namespace page.
 */
export function tenantCommunityRefusal(serving: readonly KubeObject[], packageName: string): { catalog: string; message: string } | undefined {
  for (const c of serving) {
    const badge = catalogBadge(c.metadata.name ?? '', c.metadata.annotations);
    const message = communityRefusal(badge, packageName, 'may resolve to');
    if (message !== undefined) return { catalog: badge.displayName, message };
  }
  return undefined;
}

/**
 * Creates the request as `ports.client`'s user and, when asked, waits until it is Installed or
 * refused. `ports.servedBy` answers the ClusterCatalogs the request selects that serve (or may
 * serve: unreadable) its package, for the community check.
 */
export async function requestTenantInstall(
  ports: {
    client: KubeClient;
    clock: PollClock;
    servedBy: (request: ExtensionRequest) => Promise<KubeObject[]>;
    onEvent?: (e: TenantInstallEvent) => void;
  },
  r: TenantInstallRequest,
): Promise<TenantInstallResult> {
  const obj = tenantRequest(r);
  const community = tenantCommunityRefusal(await ports.servedBy(r.request), r.request.packageName)?.message;
  const warned = community === undefined ? {} : { community };
  if (r.dryRun) return { ok: true, object: obj, dryRun: true, ...warned };
  if (community !== undefined && !r.acceptCommunity) return { ok: false, error: community };
  try {
    await ports.client.create(obj);
  } catch (err) {
    if (!isAlreadyExists(err)) return { ok: false, error: `creating ${describeObject(obj)}: ${(err as Error).message}` };
    return { ok: false, error: `${describeObject(obj)} exists already: change it with kubectl, or delete it first` };
  }
  ports.onEvent?.({ type: 'created', object: obj });
  if (!r.wait) return { ok: true, object: obj, dryRun: false, ...warned };
  const { name, namespace } = r.request;
  const what = `Extension ${namespace}/${name}`;
  const ref = { apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind, name, namespace };
  const state = await pollUntilDone(
    r.timeoutMs,
    async () => tenantState(await ports.client.get(ref)),
    (s) => (s.state === 'waiting' ? s.progress : undefined),
    (progress) => ports.onEvent?.({ type: 'waiting', what: `waiting for ${what}`, progress }),
    ports.clock,
  );
  if (state.state === 'refused') return { ok: false, error: `${what} is refused (${state.rule}): ${state.message}` };
  if (state.state === 'waiting') return { ok: false, error: `${what} is not installed after ${Math.round(r.timeoutMs / 1000)} s: ${state.progress}` };
  return { ok: true, object: obj, dryRun: false, installed: { bundle: state.bundle, version: state.version }, ...warned };
}

/**
 * Whether the caller installs in `namespace` as a tenant: it may not create ClusterExtensions but
 * may create Extensions there (a namespace's admin under config/tenant-extensions). False when
 * the reviews cannot be made.
 */
export async function installsAsTenant(client: KubeClient, namespace: string): Promise<boolean> {
  try {
    const [cluster, tenant] = await selfCanI(client, [
      { verb: 'create', group: 'olm.operatorframework.io', resource: 'clusterextensions' },
      { verb: 'create', group: 'olm.operatorframework.io', resource: 'extensions', namespace },
    ]);
    return cluster !== true && tenant === true;
  } catch {
    return false;
  }
}
