/**
 * What `olmv1 upgrade plan|approve` compute, as operator-controller decides: the resolution of
 * resolve-cluster.ts, the candidates, and for the pick its objects (rendered and pruned as the
 * render step does) compared with the deployed release, the live CRDs, `olm.maxOpenShiftVersion`
 * the update policy and the maintenance window. Everything is read as the CLI's user.
 */
import { describeObject, pruneUnknownFields, withOwnerLabels } from '../../pkg/operator-controller/applier/index.ts';
import { parseBundle, type KubeObject } from '../../pkg/operator-controller/bundle/index.ts';
import { bundleProperties } from '../../pkg/operator-controller/bundlepull/index.ts';
import {
  checkCrdChanges,
  crdNames,
  formatCrdUpgradeError,
  storedObjectsOptIn,
  STORED_OBJECTS_ANNOTATION,
  storedObjectsVerdict,
  type StoredVerdict,
} from '../../pkg/operator-controller/crdupgrade/index.ts';
import { evaluateGate, type ClusterMinor } from '../../pkg/operator-controller/gating/index.ts';
import { deployedRelease, type Release } from '../../pkg/operator-controller/release/index.ts';
import { createRevisionReader } from '../../pkg/operator-controller/revisions/index.ts';
import { render, renderFailureToError, renderedClusterProxy, type CertProviderName } from '../../pkg/operator-controller/render/index.ts';
import { metadataFor, upgradeSuccessors, type Successor } from '../../pkg/operator-controller/resolve/index.ts';
import {
  formatPermissionDelta,
  objectDiff,
  permissionDelta,
  type ObjectDiff,
  type PermissionDelta,
} from '../../pkg/operator-controller/upgradeplan/index.ts';
import { decideUpgrade, policySetting } from '../../pkg/operator-controller/upgradepolicy/index.ts';
import { formatOpening, MAINTENANCE_WINDOW_ANNOTATION, windowAt, windowSetting } from '../../pkg/operator-controller/maintenance/index.ts';
import { APPROVED_BUNDLE_ANNOTATION, CrdUpgradeSafetyEnforcement } from '../../pkg/shared/api/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import type { ImageLimits } from '../../pkg/shared/image/index.ts';
import { createOpenApiSchemas, isNotFound, type KubeContext } from '../../pkg/shared/kube/index.ts';
import { type CommandIO, EXIT } from './io.ts';
import { loadRegistryAccess, type RegistryAccess } from './registry-access.ts';
import { CommandError, type BundleSourceDeps } from './render.ts';
import {
  clusterResolutionHints,
  clusterDependentsHold,
  clusterResolve,
  clusterResolveInput,
  readClusterExtension,
  relevantDeprecation,
  type ResolveClusterDeps,
} from './resolve-cluster.ts';
import type { ClusterVersionInfo } from './status-report.ts';
import { currentVersion } from './status.ts';

/** What the upgrade commands need (composed in commands.ts). */
export interface UpgradeDeps extends ResolveClusterDeps, BundleSourceDeps {}

/** Where and how to plan. */
export interface PlanOptions {
  extension: string;
  systemNamespace: string;
  catalogdUrl: URL | undefined;
  certProvider: CertProviderName | undefined;
  registryValues: { authfile?: string; 'ca-file'?: string };
  imageLimits: ImageLimits;
  /** --cluster-version; else the ClusterVersion "version" is read. */
  clusterVersion: ClusterMinor | undefined;
}

/** The plan, as `-o json` prints it. */
export interface UpgradePlan {
  extension: string;
  package: string;
  /** `objectSet`: the ClusterObjectSet of the deployed revision, when the extension's revisions are ClusterObjectSets (BoxcutterRuntime). */
  installed: { bundle: string; version: string; revision: number; objectSet?: string };
  selection: { channels: string[]; versionRange: string; upgradeConstraintPolicy: string };
  successors: Successor[];
  /** Null when the resolution fails (`error`). */
  pick: { bundle: string; version: string; image: string; catalog: string; reason: string } | null;
  upToDate: boolean;
  error?: string;
  /** With `error`: what the catalogs offer instead (operator-controller's ResolutionFailed Event adds the same lines). */
  hints?: string[];
  /** `<schema> <name>: <message>` of the package, the selected channels and the picked bundle. */
  deprecations: string[];
  changes?: PlanChanges;
  policy?: PlanPolicy;
  /** When the maintenance window lets the move go (decision 0122); absent when no window is known to apply. */
  window?: PlanWindow;
  /** Why operator-controller holds the move: it would break another installed extension (decision 0104). */
  dependencyHold?: string;
  /** What of the cluster could not be read for the dependency checks (decision 0104), when something could not. */
  dependencyNote?: string;
}

/** What the update policy does with the picked bundle (pkg/operator-controller/upgradepolicy decides). */
interface PlanPolicy {
  /** Automatic, Manual or AutomaticPatch (an unreadable annotation value counts as Manual). */
  policy: string;
  /** `install`: operator-controller installs it now; `hold`: it waits for an approval naming it. */
  decision: 'install' | 'hold';
  reason: string;
  /** The approved-bundle annotation, '' when absent. */
  approvedBundle: string;
  approveCommand: string;
}

/** What the maintenance window does with the picked bundle (pkg/operator-controller/maintenance decides, as the window step does). */
interface PlanWindow {
  /** The window as written in the annotation; '' when it is operator-controller's --maintenance-window (read from the condition). */
  window: string;
  source: 'annotation' | 'operator-controller';
  /** `install`: the window does not stop it (open, or the upgrade is approved); `hold`: it waits. */
  decision: 'install' | 'hold';
  /** The next opening (RFC 3339, UTC) when the window holds it, else null. */
  opensAt: string | null;
  reason: string;
}

/** What installing the picked bundle changes. */
export interface PlanChanges {
  objects: ObjectDiff;
  permissions: PermissionDelta & { summary: string };
  crdUpgradeSafety: {
    enforcement: string;
    /**
     * `storedObjects`: for a refused change, the stored objects' verdict, failing objects and their errors (decision 0129);
     * they decide only with the stored-object opt-in (decision 0120).
     */
    crds: { name: string; verdict: 'new' | 'safe' | 'unsafe'; violations: string[]; storedObjects?: string[] }[];
  };
  maxOpenShiftVersion: { installed: string | null; next: string | null; cluster: string | null; verdict: string };
  droppedFields: { object: string; paths: string[] }[];
}

/** The resolution part of a plan, plus what the render needs. */
interface Resolved {
  plan: UpgradePlan;
  release: Release;
  ce: Awaited<ReturnType<typeof readClusterExtension>>;
}

/**
 * Resolves for the extension: its candidates and the pick. A failed resolution is part of the
 * plan (`error`, pick null).
 * @throws CommandError (exit 1) when the extension or its release cannot be read, or nothing is installed.
 */
export async function resolvePlan(kube: KubeContext, deps: UpgradeDeps, o: PlanOptions): Promise<Resolved> {
  const ce = await readClusterExtension(kube, o.extension);
  const release = await readDeployed(kube, o.systemNamespace, o.extension);
  if (release === undefined) {
    throw new CommandError(
      `ClusterExtension ${JSON.stringify(o.extension)} has no deployed release: nothing is installed to upgrade from`,
      EXIT.failed,
    );
  }
  const src = ce.source;
  const b = release.bundle;
  const installed = { name: b.name, version: b.version, release: b.release ?? null };
  const plan: UpgradePlan = {
    extension: o.extension,
    package: src.packageName,
    installed: {
      bundle: b.name,
      version: b.version,
      revision: release.revision,
      ...(release.objectSet === undefined ? {} : { objectSet: release.objectSet }),
    },
    selection: {
      channels: src.channels ?? [],
      versionRange: src.version ?? '',
      upgradeConstraintPolicy: src.upgradeConstraintPolicy ?? 'CatalogProvided',
    },
    successors: [],
    pick: null,
    upToDate: false,
    deprecations: [],
  };
  const input = await clusterResolveInput(kube, deps, o.catalogdUrl, src, installed);
  if (!input.ok) return { plan: { ...plan, error: input.error }, release, ce };
  plan.successors = upgradeSuccessors(input.value);
  const checked = await clusterResolve(kube, deps, o.catalogdUrl, o.extension, src.selector, input.value);
  const result = checked.result;
  if (checked.note !== undefined) plan.dependencyNote = checked.note;
  if (!result.ok) {
    const hints = await clusterResolutionHints(kube, deps, o.catalogdUrl, input.value, src.selector, result.error);
    return { plan: { ...plan, error: result.error, ...(hints.length === 0 ? {} : { hints }) }, release, ce };
  }
  const { bundle, versionRelease, catalog, deprecation } = result.value;
  const version = metadataFor(bundle.name, versionRelease).version;
  // As the update policy step tells a move: another bundle name.
  plan.upToDate = bundle.name === b.name;
  plan.pick = { bundle: bundle.name, version, image: bundle.image, catalog, reason: pickReason(plan, bundle.name, version) };
  if (!plan.upToDate) {
    // Best effort: a user who may not list ClusterExtensions still gets the rest of the plan.
    const self = { name: o.extension, packageName: src.packageName, installed };
    const hold = await clusterDependentsHold(kube, deps, o.catalogdUrl, self, bundle).catch(() => undefined);
    if (hold !== undefined) plan.dependencyHold = hold;
  }
  plan.deprecations = (relevantDeprecation(deprecation, plan.selection.channels, bundle.name)?.entries ?? []).map(
    (e) => `${e.reference.schema.replace(/^olm\./, '')}${e.reference.name === undefined ? '' : ` ${e.reference.name}`}: ${e.message}`,
  );
  return { plan, release, ce };
}

/**
 * The deployed revision of `name`: from its ClusterObjectSets when it has any (BoxcutterRuntime),
 * else from its release records in `systemNamespace`; undefined when none is deployed.
 * @throws CommandError (exit 1) when they cannot be read.
 */
async function readDeployed(kube: KubeContext, systemNamespace: string, name: string): Promise<Release | undefined> {
  try {
    return deployedRelease(await createRevisionReader({ client: kube.client, namespace: systemNamespace }).history(name));
  } catch (e) {
    throw new CommandError(`error reading the release records of ${JSON.stringify(name)} in ${systemNamespace}: ${errorMessage(e)}`, EXIT.failed);
  }
}

/** Why the resolver picks what it picks, in the terms of the plan's successor list. */
export function pickReason(plan: Pick<UpgradePlan, 'successors' | 'selection'>, bundle: string, version: string): string {
  const allowed = plan.successors.filter((s) => s.inRange);
  const range = plan.selection.versionRange === '' ? '' : ` within version range ${JSON.stringify(plan.selection.versionRange)}`;
  const offered = plan.successors.find((s) => s.bundle === bundle);
  if (offered === undefined) {
    if (allowed.length === 0 && plan.successors.length > 0) return `up to date: the catalogs offer successors, but none${range}`;
    return 'up to date: the catalogs offer no successor of the installed bundle';
  }
  const deprecated = offered.deprecated ? ' (deprecated: every successor allowed is deprecated)' : '';
  const edge = offered.edge === 'SelfCertified' ? 'upgradeConstraintPolicy SelfCertified (any higher version)' : `its ${offered.edge} edge`;
  const n = new Set(allowed.map((s) => s.bundle)).size;
  return `${version} is the highest of ${n} successor${n === 1 ? '' : 's'}${range}, reached by ${edge}${deprecated}`;
}

/**
 * Pulls, renders and compares the picked bundle: the plan's `changes` and `policy`.
 * @throws CommandError (exit 1) when the bundle cannot be pulled or rendered.
 */
export async function planChanges(kube: KubeContext, deps: UpgradeDeps, o: PlanOptions, r: Resolved, io: CommandIO): Promise<UpgradePlan> {
  const pick = r.plan.pick;
  if (pick === null || r.plan.upToDate) return r.plan;
  if (deps.fetchBundle === undefined) throw new CommandError('fetching bundle images is not available', EXIT.failed);
  let access: RegistryAccess;
  try {
    access = await loadRegistryAccess(o.registryValues, deps.defaultAuthFile);
  } catch (e) {
    throw new CommandError(errorMessage(e), EXIT.usage);
  }
  io.stderr.write(`pulling bundle image ${pick.image} of ${pick.bundle}...\n`);
  let files;
  try {
    files = await deps.fetchBundle(pick.image, { ...access, limits: o.imageLimits });
  } catch (e) {
    throw new CommandError(`error pulling bundle image ${JSON.stringify(pick.image)}: ${errorMessage(e)}`, EXIT.failed);
  }
  const bundle = parseBundle(files);
  if (!bundle.ok) throw new CommandError(`bundle ${pick.bundle}: ${bundle.error}`, EXIT.failed);
  const spec = r.ce.extension.spec;
  const installedObjects = r.release.manifest.objects();
  const certProvider = o.certProvider ?? inferCertProvider(installedObjects);
  const rendered = render(bundle.value, {
    installNamespace: spec.namespace,
    ...(spec.config === undefined ? {} : { config: spec.config.inline }),
    ...(certProvider === undefined ? {} : { certProvider }),
    singleOwnNamespaceSupport: true,
    deploymentConfigSupport: true,
    // The cluster-wide proxy the controller sets, as the deployed release has it (decision 0132).
    clusterProxy: renderedClusterProxy(installedObjects),
  });
  if (!rendered.ok) throw new CommandError(`bundle ${pick.bundle} does not render: ${renderFailureToError(rendered.error).message}`, EXIT.failed);
  io.stderr.write('comparing with the deployed release...\n');
  const schemas = createOpenApiSchemas(kube.transport);
  const objects: KubeObject[] = [];
  const droppedFields: PlanChanges['droppedFields'] = [];
  for (const obj of withOwnerLabels(rendered.value, o.extension)) {
    let schema;
    try {
      schema = await schemas.schemaFor(obj.apiVersion, obj.kind);
    } catch (e) {
      throw new CommandError(`error reading the API schema of ${obj.apiVersion} ${obj.kind}: ${errorMessage(e)}`, EXIT.failed);
    }
    const pruned = pruneUnknownFields(obj, schema);
    objects.push(pruned.object);
    if (pruned.dropped.length > 0) droppedFields.push({ object: describeObject(obj), paths: pruned.dropped });
  }
  const delta = permissionDelta(installedObjects, objects);
  const changes: PlanChanges = {
    objects: objectDiff(installedObjects, objects),
    permissions: { ...delta, summary: formatPermissionDelta(delta) },
    crdUpgradeSafety: await crdVerdicts(
      kube,
      objects,
      spec.install?.preflight?.crdUpgradeSafety.enforcement ?? CrdUpgradeSafetyEnforcement.Strict,
      storedObjectsOptIn(r.ce.object.metadata.annotations),
    ),
    maxOpenShiftVersion: maxVersionVerdict(
      o.extension,
      r.release,
      pick.bundle,
      bundleProperties(bundle.value),
      await currentVersion(kube.client, o.clusterVersion),
    ),
    droppedFields,
  };
  const setting = policySetting(r.ce.object.metadata.annotations);
  const decision = decideUpgrade(setting, {
    from: r.release.bundle,
    to: { name: pick.bundle, version: pick.version },
    gainedPermissions: formatPermissionDelta({ gained: delta.gained, lost: [] }),
  });
  const policy = {
    policy: setting.policy,
    decision: decision.proceed ? ('install' as const) : ('hold' as const),
    reason: decision.proceed
      ? decision.approved
        ? `approved: the approval names ${pick.bundle}`
        : `allowed by the update policy ${setting.policy}`
      : decision.reasons.join('; '),
    approvedBundle: setting.approvedBundle,
  };
  const window = planWindow(r.ce.object, pick.bundle, Date.now());
  return {
    ...r.plan,
    changes,
    policy: { ...policy, approveCommand: `olmv1 upgrade approve ${o.extension} ${pick.version}` },
    ...(window === undefined ? {} : { window }),
  };
}

/** The UpgradeAvailable reason operator-controller's window step sets (steps-window.ts). */
const OUTSIDE_WINDOW_REASON = 'OutsideMaintenanceWindow';

/**
 * What the maintenance-window step would do with a move to `bundle` at `now`: the extension's
 * annotation decides here as there; without one, operator-controller's --maintenance-window
 * (which the CLI cannot read) is known from the condition the step set, when it holds this bundle.
 */
export function planWindow(ce: KubeObject, bundle: string, now: number): PlanWindow | undefined {
  const annotations = ce.metadata.annotations;
  const approved = (annotations?.[APPROVED_BUNDLE_ANNOTATION] ?? '').trim() === bundle;
  const approvedReason = 'approved: an approved upgrade goes whatever the maintenance window';
  if ((annotations?.[MAINTENANCE_WINDOW_ANNOTATION]?.trim() ?? '') === '') {
    const conditions = (ce as { status?: { conditions?: { type?: string; reason?: string; message?: string }[] } }).status?.conditions ?? [];
    const held = conditions.find((c) => c.type === 'UpgradeAvailable' && c.reason === OUTSIDE_WINDOW_REASON);
    if (held === undefined || !(held.message ?? '').includes(`bundle ${JSON.stringify(bundle)}`)) return undefined;
    const base = { window: '', source: 'operator-controller' as const };
    if (approved) return { ...base, decision: 'install', opensAt: null, reason: approvedReason };
    const opensAt = /it opens at (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)/.exec(held.message ?? '')?.[1] ?? null;
    return { ...base, decision: 'hold', opensAt, reason: held.message ?? '' };
  }
  const setting = windowSetting(annotations);
  const text = annotations?.[MAINTENANCE_WINDOW_ANNOTATION]?.trim() ?? '';
  const base = { window: text, source: 'annotation' as const, opensAt: null };
  if (setting.kind === 'none')
    return { ...base, decision: 'install', reason: "no maintenance window (None: whatever operator-controller's default)" };
  if (approved) return { ...base, decision: 'install', reason: approvedReason };
  if (setting.kind === 'invalid') return { ...base, decision: 'hold', reason: `the annotation is not a maintenance window: ${setting.error}` };
  const verdict = windowAt(setting.window, now);
  if (verdict.open) return { ...base, decision: 'install', reason: 'the window is open now' };
  if (verdict.opensAt === undefined) return { ...base, decision: 'hold', reason: 'the window does not open within 28 years' };
  return {
    ...base,
    decision: 'hold',
    opensAt: new Date(verdict.opensAt).toISOString().replace(/\.000Z$/, 'Z'),
    reason: `outside the window: it opens at ${formatOpening(setting.window, verdict.opensAt)}`,
  };
}

/** The certificate provider the deployed release was rendered with, told by its objects. */
export function inferCertProvider(manifest: readonly KubeObject[]): CertProviderName | undefined {
  if (manifest.some((o) => o.apiVersion.startsWith('cert-manager.io/'))) return 'cert-manager';
  if (manifest.some((o) => o.kind === 'Service' && o.metadata.annotations?.['service.beta.openshift.io/serving-cert-secret-name'] !== undefined))
    return 'openshift-service-ca';
  return undefined;
}

/**
 * Each CRD of `objects` against the live one, as the preflight step would judge it
 * (pkg/operator-controller/crdupgrade): the stored objects of a refused change are read always,
 * to name those that fail (decision 0129); with `optIn` (decision 0120) they decide.
 */
async function crdVerdicts(
  kube: KubeContext,
  objects: readonly KubeObject[],
  enforcement: string,
  optIn: boolean,
): Promise<PlanChanges['crdUpgradeSafety']> {
  const live = new Map<string, KubeObject>();
  for (const name of crdNames(objects)) {
    try {
      live.set(name, await kube.client.get({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name }));
    } catch (e) {
      if (!isNotFound(e)) throw new CommandError(`error reading CustomResourceDefinition ${JSON.stringify(name)}: ${errorMessage(e)}`, EXIT.failed);
    }
  }
  const crds: PlanChanges['crdUpgradeSafety']['crds'] = [];
  for (const c of checkCrdChanges(objects, live)) {
    const installed = live.get(c.name);
    const proposed = objects.find((o) => o.kind === 'CustomResourceDefinition' && o.metadata.name === c.name);
    const scanned =
      c.violations.length > 0 && installed !== undefined && proposed !== undefined
        ? await storedObjectsVerdict(kube.client, installed, proposed, c.violations, AbortSignal.timeout(120_000))
        : undefined;
    // Without the opt-in only a scan that ran is shown (what cannot decide does not matter then).
    const stored = optIn || scanned?.scan !== undefined ? scanned : undefined;
    crds.push({
      name: c.name,
      verdict: !c.installed ? 'new' : c.violations.length === 0 || (optIn && stored?.letThrough === true) ? 'safe' : 'unsafe',
      violations: c.violations.length === 0 ? [] : formatCrdUpgradeError(c.name, c.violations).split('\n'),
      ...(stored === undefined ? {} : { storedObjects: storedLines(stored, optIn) }),
    });
  }
  return { enforcement, crds };
}

/** The stored-object verdict, then each failing object named with every error kept for it. */
function storedLines(v: StoredVerdict, optIn: boolean): string[] {
  const head = `stored objects: ${v.text}`;
  const lines = [
    !v.letThrough
      ? head
      : optIn
        ? `${head} (let through by the stored-object check)`
        : `${head} (the annotation ${STORED_OBJECTS_ANNOTATION}=true would let it through)`,
  ];
  for (const f of v.scan?.failing ?? []) {
    for (const e of f.errors) lines.push(`  ${f.object} (${f.version}): ${e.text}`);
    for (const u of f.unchecked) lines.push(`  ${f.object} (${f.version}): ${u}`);
  }
  return lines;
}

/** What the installed and the picked bundle's `olm.maxOpenShiftVersion` mean for the cluster's next minor upgrade. */
export function maxVersionVerdict(
  extension: string,
  release: Pick<Release, 'bundle' | 'properties'>,
  nextBundle: string,
  nextProperties: readonly unknown[],
  cluster: ClusterVersionInfo,
): PlanChanges['maxOpenShiftVersion'] {
  // Without a cluster version, 0.0 stands in only to read the declared maximums (never a verdict).
  const current: ClusterMinor = cluster.ok ? cluster.current : { major: 0n, minor: 0n };
  const before = evaluateGate(current, [{ extension, bundle: release.bundle.name, properties: release.properties }]);
  const after = evaluateGate(current, [{ extension, bundle: nextBundle, properties: nextProperties }]);
  const installed = before.maxVersions[extension] ?? null;
  const next = after.maxVersions[extension] ?? null;
  const declared = (max: string | null): string => (max === null ? 'declares no olm.maxOpenShiftVersion' : `declares olm.maxOpenShiftVersion ${max}`);
  let verdict = `the installed bundle ${declared(installed)}; ${nextBundle} ${declared(next)}`;
  if (after.errors.length > 0) verdict += `; ${after.errors.join('; ')}`;
  if (!cluster.ok) return { installed, next, cluster: null, verdict: `${verdict} (cluster version unknown: ${cluster.error})` };
  const state = (g: typeof before): string => (g.upgradeable ? 'allows' : g.errors.length > 0 ? 'leaves undecided' : 'blocks');
  verdict += `; the cluster's upgrade from ${after.current} to ${after.next}: now ${state(before)}, after the upgrade ${state(after)}`;
  return { installed, next, cluster: after.current, verdict };
}
