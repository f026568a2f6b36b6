/**
 * What `olmv1 upgrade plan|approve` compute, as operator-controller decides: the resolution of
 * resolve-cluster.ts, the candidates and the pick; for the pick, what installing it changes is
 * pkg/operator-controller/upgradeplan's (rendered as the render step renders, with the gates
 * operator-controller runs with: upgrade-gates.ts). Everything is read as the CLI's user.
 */
import { parseBundle } from '../../pkg/operator-controller/bundle/index.ts';
import { deployedRelease, type Release } from '../../pkg/operator-controller/release/index.ts';
import { createRevisionReader } from '../../pkg/operator-controller/revisions/index.ts';
import { renderFailureToError, renderFeatures, type CertProviderName } from '../../pkg/operator-controller/render/index.ts';
import { metadataFor, upgradeSuccessors, type Successor } from '../../pkg/operator-controller/resolve/index.ts';
import { planChanges, type PlanChanges, type PlanPolicy, type PlanWindow } from '../../pkg/operator-controller/upgradeplan/index.ts';
import type { ClusterMinor } from '../../pkg/operator-controller/gating/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import type { ImageLimits } from '../../pkg/shared/image/index.ts';
import { createOpenApiSchemas, type KubeContext } from '../../pkg/shared/kube/index.ts';
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
import { currentVersion } from '../../pkg/olmv1/status/index.ts';
import { formatGates, planGates, type PlanGates } from './upgrade-gates.ts';

/** What the upgrade commands need (composed in commands.ts). */
export interface UpgradeDeps extends ResolveClusterDeps, BundleSourceDeps {}

/** Where and how to plan. */
export interface PlanOptions {
  extension: string;
  systemNamespace: string;
  catalogdUrl: URL | undefined;
  certProvider: CertProviderName | undefined;
  /** The occurrences of --feature-gates; undefined: operator-controller's are read (upgrade-gates.ts). */
  featureGates?: string[] | undefined;
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
  policy?: PlanPolicy & { approveCommand: string };
  /** When the maintenance window lets the move go (decision 0122); absent when no window is known to apply. */
  window?: PlanWindow;
  /** Why operator-controller holds the move: it would break another installed extension (decision 0104). */
  dependencyHold?: string;
  /** What of the cluster could not be read for the dependency checks (decision 0104), when something could not. */
  dependencyNote?: string;
  /** With `changes`: the feature gates the pick was rendered with and where they come from (decision 0137). */
  gates?: PlanGates;
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
 * Pulls the picked bundle and has it rendered and compared (pkg/operator-controller/upgradeplan)
 * with the gates operator-controller runs with (upgrade-gates.ts): the plan's `changes`,
 * `policy`, `window` and `gates`.
 * @throws CommandError (exit 1) when the bundle cannot be pulled or rendered.
 */
export async function addChanges(kube: KubeContext, deps: UpgradeDeps, o: PlanOptions, r: Resolved, io: CommandIO): Promise<UpgradePlan> {
  const pick = r.plan.pick;
  if (pick === null || r.plan.upToDate) return r.plan;
  if (deps.fetchBundle === undefined) throw new CommandError('fetching bundle images is not available', EXIT.failed);
  let access: RegistryAccess;
  try {
    access = await loadRegistryAccess(o.registryValues, deps.defaultAuthFile);
  } catch (e) {
    throw new CommandError(errorMessage(e), EXIT.usage);
  }
  const gates = await planGates(kube.client, o.systemNamespace, o, r.release.manifest.objects());
  io.stderr.write(`pulling bundle image ${pick.image} of ${pick.bundle}...\n`);
  let files;
  try {
    files = await deps.fetchBundle(pick.image, { ...access, limits: o.imageLimits });
  } catch (e) {
    throw new CommandError(`error pulling bundle image ${JSON.stringify(pick.image)}: ${errorMessage(e)}`, EXIT.failed);
  }
  const bundle = parseBundle(files);
  if (!bundle.ok) throw new CommandError(`bundle ${pick.bundle}: ${bundle.error}`, EXIT.failed);
  const ports = {
    client: kube.client,
    schemas: createOpenApiSchemas(kube.transport),
    clusterVersion: () => currentVersion(kube.client, o.clusterVersion),
  };
  const planned = await planChanges(ports, {
    ce: r.ce,
    release: r.release,
    pick,
    bundle: bundle.value,
    features: renderFeatures(gates.values),
    now: Date.now(),
    onRendered: () => io.stderr.write('comparing with the deployed release...\n'),
  });
  if (!planned.ok) {
    const message = renderFailureToError(planned.error).message;
    throw new CommandError(`bundle ${pick.bundle} does not render: ${message}\n${formatGates(gates)}`, EXIT.failed);
  }
  const { changes, policy, window } = planned.value;
  return {
    ...r.plan,
    changes,
    policy: { ...policy, approveCommand: `olmv1 upgrade approve ${o.extension} ${pick.version}` },
    ...(window === undefined ? {} : { window }),
    gates,
  };
}
