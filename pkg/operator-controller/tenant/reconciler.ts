/**
 * The tenant controller's reconciler (decision 0138): for an allowed Extension, the installer
 * and the ClusterExtension it owns, and the ClusterExtension's status mirrored back; for a
 * refused one, a condition naming the rule and nothing made; for a deleted one, the
 * ClusterExtension uninstalled (CRDs kept, as every uninstall) and then the installer removed.
 *
 * Steps over one state (pkg/shared/controller's shape): finalizer (and teardown), judge (policy,
 * then a package another request or the administrator installed), resolve (the bundle to
 * install, held under Manual upgrades until approved), installer, apply, mirror (always), prune.
 * Every write is a server-side apply or a delete of an object proven the request's by its labels
 * (naming.ts); deletes carry the object's uid as a precondition.
 */
import type { Logger } from 'pino';
import {
  APPROVED_BUNDLE_ANNOTATION,
  CLUSTER_EXTENSION,
  EXTENSION,
  TENANT_BUNDLE_LABEL,
  TENANT_FIELD_MANAGER,
  TENANT_UNINSTALL_FINALIZER,
  TenantUpgrades,
  parseExtension,
  type Extension,
  type ExtensionPolicy,
} from '../../shared/api/index.ts';
import { StepReconciler, addFinalizers, isDeleting, removeFinalizer, type Step, type StepTimer } from '../../shared/controller/index.ts';
import type { Result } from '../../shared/errors/index.ts';
import { parseSemver } from '../../shared/semver/index.ts';
import { isNotFound, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import { extensionRenderOptions, type BundleInstaller, type RenderFeatures, type RenderOptions } from '../render/index.ts';
import { parseVersionRange, rangeContains } from '../resolve/index.ts';
import { bundleLabelValue, desiredClusterExtension, labelledInstaller, requestConfig } from './desired.ts';
import { clusterExtensionName, installerServiceAccountName, ownedBy, ownerSelector, type RequestRef } from './naming.ts';
import { RefusalRule, evaluatePolicies, type Allowed } from './policy.ts';
import type { ResolveRequest, Resolved } from './sources.ts';
import {
  ALLOWED,
  ALLOWED_REASON,
  BLOCKED,
  RETRYING,
  mirrorClusterExtension,
  noLongerAllowedMessage,
  setExtensionCondition,
  setRefused,
} from './status.ts';

/** How long a reconcile that is done waits before looking again (namespace labels are not watched). */
const RESYNC_MS = 5 * 60_000;
/** How soon a request being torn down looks again at its ClusterExtension's uninstall. */
const TEARDOWN_POLL_MS = 2000;

/** What the tenant reconciler reads and writes through. */
export interface TenantPorts {
  /** operator-controller's own identity. */
  client: Pick<KubeClient, 'get' | 'apply' | 'delete' | 'listAll' | 'updateStatus' | 'patch'>;
  /** The parsed ExtensionPolicies (informer). */
  policies: () => ExtensionPolicy[];
  /** The ClusterExtensions (informer). */
  clusterExtensions: { get(name: string): Readonly<KubeObject> | undefined; list(): readonly Readonly<KubeObject>[] };
  resolve: (r: ResolveRequest, signal: AbortSignal) => Promise<Result<Resolved, string>>;
  /** The installer of `image` rendered with `options`; pulled into `owner`'s cache entry. */
  installer: (
    req: { owner: string; image: string; options: RenderOptions; serviceAccount: string },
    signal: AbortSignal,
  ) => Promise<Result<BundleInstaller, string>>;
  /** The switches of operator-controller's rendering gates, as its ClusterExtension controller renders with. */
  renderFeatures: RenderFeatures;
  log: Logger;
}

/** The state the steps share. */
interface TenantState {
  ext: Extension;
  req: RequestRef;
  ceName: string;
  signal: AbortSignal;
  verdict?: Allowed;
  /** The ClusterExtension made for this request, when there is one. */
  ce?: Readonly<KubeObject> | undefined;
  target?: Resolved;
  serviceAccount?: string;
  /** The installer made, when the request names no ServiceAccount. */
  installer?: BundleInstaller;
}

/** The reconciler of Extensions; see the module comment. */
export function createTenantReconciler(ports: TenantPorts, stepTimer?: StepTimer): StepReconciler<Extension, TenantState> {
  return new StepReconciler<Extension, TenantState>({
    client: ports.client,
    type: { apiVersion: EXTENSION.apiVersion, kind: EXTENSION.kind },
    namespaced: true,
    parse: parseExtension,
    state: (ext, ctx) => {
      const req = { namespace: ext.metadata.namespace, name: ext.metadata.name, uid: ext.metadata.uid ?? '' };
      return { ext, req, ceName: clusterExtensionName(req.namespace, req.name), signal: ctx.signal };
    },
    steps: tenantSteps(ports),
    ...(stepTimer === undefined ? {} : { stepTimer }),
  });
}

function tenantSteps(p: TenantPorts): Step<TenantState>[] {
  return [
    { name: 'finalizer', run: (s) => finalizer(p, s) },
    { name: 'judge', run: (s) => judge(p, s) },
    { name: 'resolve', run: (s) => resolveTarget(p, s) },
    { name: 'installer', run: (s) => installer(p, s) },
    { name: 'apply', run: (s) => apply(p, s) },
    { name: 'mirror', run: (s) => mirror(p, s), always: true },
    { name: 'prune', run: (s) => prune(p, s) },
  ];
}

/** The ClusterExtension made for this request, or undefined (none, or one not proven this request's). */
function ownClusterExtension(p: TenantPorts, s: TenantState): Readonly<KubeObject> | undefined {
  const ce = p.clusterExtensions.get(s.ceName);
  return ce !== undefined && ownedBy(ce, s.req) ? ce : undefined;
}

async function finalizer(p: TenantPorts, s: TenantState) {
  if (!isDeleting(s.ext)) {
    addFinalizers(s.ext, [TENANT_UNINSTALL_FINALIZER]);
    return undefined;
  }
  // Teardown: the ClusterExtension first (its uninstall runs as the installer), then the installer.
  const ce = await readOwnClusterExtension(p, s);
  if (ce !== undefined) {
    if (ce.metadata.deletionTimestamp === undefined) {
      await p.client.delete({ ...CLUSTER_EXTENSION, name: s.ceName }, { preconditions: { uid: ce.metadata.uid ?? '' }, signal: s.signal });
    }
    setExtensionCondition(s.ext, 'Progressing', 'True', RETRYING, `uninstalling ClusterExtension ${JSON.stringify(s.ceName)}`);
    return { requeueAfterMs: TEARDOWN_POLL_MS };
  }
  await deleteInstaller(p, s, () => true);
  removeFinalizer(s.ext, TENANT_UNINSTALL_FINALIZER);
  return {};
}

/** Reads the ClusterExtension from the API server (not the informer: a teardown must see its deletion). */
async function readOwnClusterExtension(p: TenantPorts, s: TenantState): Promise<KubeObject | undefined> {
  try {
    const ce = await p.client.get({ ...CLUSTER_EXTENSION, name: s.ceName }, { signal: s.signal });
    return ownedBy(ce, s.req) ? ce : undefined;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** The kinds of an installer, namespaced first. */
const INSTALLER_KINDS = [
  { apiVersion: 'v1', kind: 'ServiceAccount', namespaced: true },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', namespaced: true },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', namespaced: true },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', namespaced: false },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', namespaced: false },
] as const;

/** Deletes the installer objects made for this request that `doomed` picks, each by its uid. */
async function deleteInstaller(p: TenantPorts, s: TenantState, doomed: (o: KubeObject) => boolean): Promise<number> {
  let deleted = 0;
  for (const k of INSTALLER_KINDS) {
    const list = await p.client.listAll(
      { apiVersion: k.apiVersion, kind: k.kind },
      { labelSelector: ownerSelector(s.req), ...(k.namespaced ? { namespace: s.req.namespace } : {}), signal: s.signal },
    );
    for (const o of list.items) {
      if (!ownedBy(o, s.req) || !doomed(o)) continue;
      const ref = { apiVersion: k.apiVersion, kind: k.kind, name: o.metadata.name ?? '', ...(k.namespaced ? { namespace: s.req.namespace } : {}) };
      await p.client.delete(ref, { preconditions: { uid: o.metadata.uid ?? '' }, signal: s.signal }).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
      deleted++;
    }
  }
  return deleted;
}

async function judge(p: TenantPorts, s: TenantState) {
  const { ext } = s;
  const src = ext.spec.source.catalog;
  const ns = await p.client.get({ apiVersion: 'v1', kind: 'Namespace', name: s.req.namespace }, { signal: s.signal });
  const watch = ext.spec.config?.inline['watchNamespace'];
  const verdict = evaluatePolicies(
    {
      namespace: s.req.namespace,
      packageName: src.packageName,
      version: src.version,
      channels: src.channels,
      selector: src.selector,
      watchNamespace: typeof watch === 'string' ? watch : undefined,
    },
    p.policies(),
    ns.metadata.labels ?? {},
  );
  s.ce = ownClusterExtension(p, s);
  if (!verdict.allowed) {
    refuse(s, verdict.rule, verdict.message);
    return { requeueAfterMs: RESYNC_MS };
  }
  const taken = p.clusterExtensions.get(s.ceName);
  if (taken !== undefined && !ownedBy(taken, s.req)) {
    setRefused(ext, RefusalRule.Conflict, `ClusterExtension ${JSON.stringify(s.ceName)} exists and was not made for this request`);
    return { requeueAfterMs: RESYNC_MS };
  }
  const conflict = packageInUse(p, s, verdict);
  if (conflict !== undefined) {
    setRefused(ext, RefusalRule.Conflict, conflict);
    return { requeueAfterMs: RESYNC_MS };
  }
  s.verdict = verdict;
  const sa = ext.spec.serviceAccount?.name;
  s.serviceAccount = sa ?? installerServiceAccountName(s.req.name);
  setExtensionCondition(ext, ALLOWED, 'True', ALLOWED_REASON, `allowed by ExtensionPolicy ${JSON.stringify(verdict.policy)}`);
  ext.status = { ...ext.status, clusterExtensionName: s.ceName, policy: verdict.policy };
  return undefined;
}

/**
 * Refuses the request. One refused after it was installed (its policy removed or narrowed, or
 * the request changed) keeps what is installed: its ClusterExtension is neither deleted nor
 * moved (it is pinned to the installed version), its status is still mirrored, and `Allowed`
 * says that it is no longer allowed, what stays and that deleting the request uninstalls.
 */
function refuse(s: TenantState, rule: RefusalRule, message: string): void {
  const bundle = installedBundleOf(s.ce);
  if (s.ce === undefined || bundle === undefined) {
    setRefused(s.ext, rule, message);
    return;
  }
  mirrorClusterExtension(s.ext, s.ce);
  // The mirror step runs only for an allowed request; this one's status is complete here.
  delete s.verdict;
  setRefused(s.ext, rule, noLongerAllowedMessage(message, bundle.name, s.ceName));
}

/**
 * Why the package cannot be installed for this request while another ClusterExtension has it
 * (its CRDs have one owner): the other's namespace and version, and whether that version is in
 * this request's range at all.
 */
function packageInUse(p: TenantPorts, s: TenantState, verdict: Allowed): string | undefined {
  const pkg = s.ext.spec.source.catalog.packageName;
  for (const other of p.clusterExtensions.list()) {
    if (other.metadata.name === s.ceName) continue;
    const spec = other['spec'] as { source?: { catalog?: { packageName?: string } } } | undefined;
    if (spec?.source?.catalog?.packageName !== pkg) continue;
    const version = (other['status'] as { install?: { bundle?: { version?: string } } } | undefined)?.install?.bundle?.version;
    const tenant = other.metadata.labels?.['olm.operatorframework.io/extension-namespace'];
    const whose =
      tenant === undefined ? `by ClusterExtension ${JSON.stringify(other.metadata.name ?? '')}` : `for namespace ${JSON.stringify(tenant)}`;
    const at = version === undefined ? '' : ` at version ${version}`;
    const range = verdict.versionRange;
    if (version !== undefined && range !== undefined && !inRange(version, range)) {
      return `package ${JSON.stringify(pkg)} is already installed ${whose}${at}, outside this request's range ${JSON.stringify(range)}: one package is installed once per cluster (its CustomResourceDefinitions have one owner)`;
    }
    return `package ${JSON.stringify(pkg)} is already installed ${whose}${at}: one package is installed once per cluster (its CustomResourceDefinitions have one owner)`;
  }
  return undefined;
}

async function resolveTarget(p: TenantPorts, s: TenantState) {
  const verdict = s.verdict as Allowed;
  const src = s.ext.spec.source.catalog;
  const installedBundle = installedBundleOf(s.ce);
  const base = {
    packageName: src.packageName,
    channels: verdict.channels,
    selector: verdict.selector,
    upgradeConstraintPolicy: src.upgradeConstraintPolicy,
    installed: installedBundle,
  };
  const resolved = await p.resolve({ ...base, versionRange: verdict.versionRange }, s.signal);
  if (!resolved.ok) {
    // Outside the policy's range, or not there at all: the request's own range tells which.
    const policyRange = verdict.entry.versionRange;
    const alone = policyRange === undefined ? undefined : await p.resolve({ ...base, versionRange: src.version }, s.signal);
    if (alone?.ok === true) {
      refuse(
        s,
        RefusalRule.Version,
        `version ${alone.value.version} of package ${JSON.stringify(src.packageName)}, the one the request resolves to, is outside the range ${JSON.stringify(policyRange)} that ExtensionPolicy ${JSON.stringify(verdict.policy)} allows`,
      );
      return { requeueAfterMs: RESYNC_MS };
    }
    setExtensionCondition(s.ext, 'Progressing', 'True', RETRYING, resolved.error);
    return { requeueAfterMs: 30_000 };
  }
  s.target = resolved.value;
  // Manual upgrades: the installed bundle stays until the administrator approves the new one on the ClusterExtension.
  if (verdict.upgrades === TenantUpgrades.Manual && installedBundle !== undefined && resolved.value.name !== installedBundle.name) {
    const approved = s.ce?.metadata.annotations?.[APPROVED_BUNDLE_ANNOTATION];
    if (approved !== resolved.value.name) {
      setExtensionCondition(
        s.ext,
        ALLOWED,
        'True',
        ALLOWED_REASON,
        `allowed by ExtensionPolicy ${JSON.stringify(verdict.policy)}; the upgrade to ${resolved.value.name} waits for the administrator's approval (annotation ${APPROVED_BUNDLE_ANNOTATION}=${resolved.value.name} on ClusterExtension ${s.ceName})`,
      );
      const kept = await p.resolve({ ...base, versionRange: installedBundle.version }, s.signal);
      if (!kept.ok) return { requeueAfterMs: RESYNC_MS };
      s.target = kept.value;
    }
  }
  return undefined;
}

async function installer(p: TenantPorts, s: TenantState) {
  const verdict = s.verdict as Allowed;
  const target = s.target as Resolved;
  // The options the ClusterExtension controller will render the same bundle with.
  const config = requestConfig(s.ext, verdict.installMode);
  const options = extensionRenderOptions(
    { namespace: s.req.namespace, config: config === undefined ? undefined : { inline: config } },
    p.renderFeatures,
  );
  const computed = await p.installer({ owner: s.ceName, image: target.image, options, serviceAccount: s.serviceAccount as string }, s.signal);
  if (!computed.ok) {
    setExtensionCondition(s.ext, 'Progressing', 'False', BLOCKED, `bundle ${target.name}: ${computed.error}`);
    return { requeueAfterMs: RESYNC_MS };
  }
  if (s.ext.spec.serviceAccount !== undefined) {
    // The tenant's own ServiceAccount installs only what stays inside its namespace.
    const outside = computed.value.rendered.filter((o) => o.metadata.namespace === undefined || o.metadata.namespace !== s.req.namespace);
    if (outside.length > 0) {
      const first = outside[0] as KubeObject;
      setRefused(
        s.ext,
        RefusalRule.ServiceAccount,
        `bundle ${target.name} installs objects outside namespace ${JSON.stringify(s.req.namespace)} (${first.kind} ${JSON.stringify(first.metadata.name ?? '')}${outside.length > 1 ? ` and ${outside.length - 1} more` : ''}): spec.serviceAccount is used only for a bundle whose objects all live in the namespace; remove it to have an installer made`,
      );
      return { requeueAfterMs: RESYNC_MS };
    }
    return undefined;
  }
  s.installer = computed.value;
  const objects = labelledInstaller(computed.value.objects, s.req, computed.value.bundleName);
  for (const o of objects) {
    const refused = await applyOwned(p, s, o);
    if (refused !== undefined) {
      setExtensionCondition(s.ext, 'Progressing', 'False', BLOCKED, refused);
      return { requeueAfterMs: RESYNC_MS };
    }
  }
  return undefined;
}

/** Applies `o` unless an object of its name exists that was not made for this request (then why not). */
async function applyOwned(p: TenantPorts, s: TenantState, o: KubeObject): Promise<string | undefined> {
  const ref = {
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: o.metadata.name ?? '',
    ...(o.metadata.namespace === undefined ? {} : { namespace: o.metadata.namespace }),
  };
  try {
    const existing = await p.client.get(ref, { signal: s.signal });
    if (!ownedBy(existing, s.req)) {
      return `${o.kind} ${o.metadata.namespace === undefined ? '' : `${o.metadata.namespace}/`}${ref.name} exists and was not made for this request`;
    }
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  await p.client.apply(o, { fieldManager: TENANT_FIELD_MANAGER, force: true, signal: s.signal });
  return undefined;
}

async function apply(p: TenantPorts, s: TenantState) {
  const verdict = s.verdict as Allowed;
  const target = s.target as Resolved;
  const ce = desiredClusterExtension({
    ext: s.ext,
    req: s.req,
    name: s.ceName,
    version: target.version,
    serviceAccount: s.serviceAccount as string,
    installMode: verdict.installMode,
    channels: verdict.channels,
    selector: verdict.selector,
  });
  const refused = await applyOwned(p, s, ce);
  if (refused !== undefined) {
    setRefused(s.ext, RefusalRule.Conflict, refused);
    return { requeueAfterMs: RESYNC_MS };
  }
  return undefined;
}

function mirror(p: TenantPorts, s: TenantState) {
  if (isDeleting(s.ext) || s.verdict === undefined) return undefined;
  const ce = ownClusterExtension(p, s);
  if (ce !== undefined) mirrorClusterExtension(s.ext, ce);
  return undefined;
}

/** Once the ClusterExtension runs the target bundle, the grants of earlier bundles go. */
async function prune(p: TenantPorts, s: TenantState) {
  const installed = (ownClusterExtension(p, s)?.['status'] as { install?: { bundle?: { name?: string } } } | undefined)?.install?.bundle?.name;
  const made = s.installer;
  if (made !== undefined && installed === s.target?.name) {
    const keep = bundleLabelValue(made.bundleName);
    const n = await deleteInstaller(p, s, (o) => o.kind !== 'ServiceAccount' && o.metadata.labels?.[TENANT_BUNDLE_LABEL] !== keep);
    if (n > 0) p.log.info({ extension: `${s.req.namespace}/${s.req.name}`, removed: n, kept: keep }, 'earlier bundles installer grants removed');
  }
  return { requeueAfterMs: RESYNC_MS };
}

/** The bundle a ClusterExtension reports installed, if any. */
function installedBundleOf(ce: Readonly<KubeObject> | undefined): { name: string; version: string; release?: string } | undefined {
  return (ce?.['status'] as { install?: { bundle?: { name: string; version: string; release?: string } } } | undefined)?.install?.bundle;
}

/** Whether `version` is in the Masterminds range `range` (an unparsable one contains nothing). */
function inRange(version: string, range: string): boolean {
  const r = parseVersionRange(range);
  const v = parseSemver(version);
  return r.ok && v.ok && rangeContains(r.value, v.value);
}
