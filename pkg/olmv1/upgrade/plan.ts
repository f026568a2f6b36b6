/**
 * `olmv1 upgrade plan`'s service: what the next upgrade of an installed extension does, decided
 * as operator-controller decides: the resolution (the successors, the pick and why), and for the
 * pick what installing it changes (pkg/operator-controller/upgradeplan: rendered through the
 * render step's options with the gates operator-controller runs with, gates.ts). The installed
 * revision is the one reader's (pkg/operator-controller/revisions), so a BoxcutterRuntime
 * extension's plan compares with its installed ClusterObjectSet. Returns values; prints nothing.
 */
import { parseBundle } from '../../operator-controller/bundle/index.ts';
import type { ClusterMinor } from '../../operator-controller/gating/index.ts';
import type { Release } from '../../operator-controller/release/index.ts';
import { renderFailureToError, renderFeatures, type CertProviderName } from '../../operator-controller/render/index.ts';
import { metadataFor, upgradeSuccessors, type Successor } from '../../operator-controller/resolve/index.ts';
import { createRevisionReader, installed as installedOf } from '../../operator-controller/revisions/index.ts';
import { planChanges, type PlanChanges, type PlanPolicy, type PlanWindow } from '../../operator-controller/upgradeplan/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import { currentVersion } from '../status/index.ts';
import { formatGates, planGates, type PlanGates } from './gates.ts';
import type { ReadExtension, UpgradeDeps, UpgradeTarget } from './ports.ts';

/** What to plan. */
interface PlanRequest extends UpgradeTarget {
  /** --cert-provider: sets the two webhook-provider gates over any source. */
  certProvider?: CertProviderName | undefined;
  /** The occurrences of --feature-gates; undefined: operator-controller's are read (gates.ts). */
  featureGates?: readonly string[] | undefined;
  /** The cluster's version for olm.maxOpenShiftVersion; undefined: the ClusterVersion "version" is read. */
  clusterVersion?: ClusterMinor | undefined;
}

/** The plan, as `olmv1 upgrade plan -o json` prints it and the console shows it. */
export interface UpgradePlan {
  extension: string;
  package: string;
  /** `objectSet`: the ClusterObjectSet of the installed revision, when the extension's revisions are ClusterObjectSets (BoxcutterRuntime). */
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

/**
 * No plan: the extension or its revisions cannot be read, nothing is installed, or the pick
 * cannot be pulled or rendered. `registrySettings`: the registry settings are wrong (the
 * CLI's usage error).
 */
interface UpgradeFailure {
  ok: false;
  error: string;
  registrySettings?: true;
}

/** A plan (which may say the resolution fails: `plan.error`), or no plan. */
export type UpgradePlanResult = { ok: true; plan: UpgradePlan } | UpgradeFailure;

/** The resolution part of a plan, plus what the comparison needs. */
interface Resolved {
  plan: UpgradePlan;
  /** The installed revision, in Helm's terms (what upgradeplan compares with). */
  release: Release;
  ce: ReadExtension;
}

const failed = (error: string): UpgradeFailure => ({ ok: false, error });

/** The plan for `request` (see the module comment). */
export async function planUpgrade(deps: UpgradeDeps, request: PlanRequest): Promise<UpgradePlanResult> {
  const resolved = await resolveUpgrade(deps, request);
  if (!resolved.ok) return resolved;
  return addChanges(deps, request, resolved.value);
}

/**
 * Reads the extension and its installed revision and resolves: the candidates and the pick. A
 * failed resolution is part of the plan (`error`, pick null).
 */
export async function resolveUpgrade(deps: UpgradeDeps, o: UpgradeTarget): Promise<{ ok: true; value: Resolved } | UpgradeFailure> {
  let ce: ReadExtension;
  try {
    ce = await deps.resolver.extension(o.extension);
  } catch (e) {
    return failed(errorMessage(e));
  }
  let release: Release | undefined;
  try {
    const reader = createRevisionReader({ client: deps.client, namespace: o.systemNamespace });
    release = installedOf(await reader.revisions(o.extension))?.record;
  } catch (e) {
    return failed(`error reading the release records of ${JSON.stringify(o.extension)} in ${o.systemNamespace}: ${errorMessage(e)}`);
  }
  if (release === undefined) {
    return failed(`ClusterExtension ${JSON.stringify(o.extension)} has no deployed release: nothing is installed to upgrade from`);
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
  const done = (p: UpgradePlan) => ({ ok: true as const, value: { plan: p, release, ce } });
  const input = await deps.resolver.input(src, installed);
  if (!input.ok) return done({ ...plan, error: input.error });
  plan.successors = upgradeSuccessors(input.value);
  const checked = await deps.resolver.resolve(o.extension, src.selector, input.value);
  const result = checked.result;
  if (checked.note !== undefined) plan.dependencyNote = checked.note;
  if (!result.ok) {
    const hints = await deps.resolver.hints(input.value, src.selector, result.error);
    return done({ ...plan, error: result.error, ...(hints.length === 0 ? {} : { hints }) });
  }
  const { bundle, versionRelease, catalog, deprecation } = result.value;
  const version = metadataFor(bundle.name, versionRelease).version;
  // As the update policy step tells a move: another bundle name.
  plan.upToDate = bundle.name === b.name;
  plan.pick = { bundle: bundle.name, version, image: bundle.image, catalog, reason: pickReason(plan, bundle.name, version) };
  if (!plan.upToDate) {
    // Best effort: a user who may not list ClusterExtensions still gets the rest of the plan.
    const self = { name: o.extension, packageName: src.packageName, installed };
    const hold = await deps.resolver.dependentsHold(self, bundle).catch(() => undefined);
    if (hold !== undefined) plan.dependencyHold = hold;
  }
  plan.deprecations = (deps.resolver.deprecation(deprecation, plan.selection.channels, bundle.name)?.entries ?? []).map(
    (e) => `${e.reference.schema.replace(/^olm\./, '')}${e.reference.name === undefined ? '' : ` ${e.reference.name}`}: ${e.message}`,
  );
  return done(plan);
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
 * with the gates operator-controller runs with (gates.ts): the plan's `changes`, `policy`,
 * `window` and `gates`.
 */
async function addChanges(deps: UpgradeDeps, o: PlanRequest, r: Resolved): Promise<UpgradePlanResult> {
  const pick = r.plan.pick;
  if (pick === null || r.plan.upToDate) return { ok: true, plan: r.plan };
  if (deps.bundles === undefined) return failed('fetching bundle images is not available');
  try {
    await deps.bundles.checkSettings();
  } catch (e) {
    return { ok: false, error: errorMessage(e), registrySettings: true };
  }
  const gates = await planGates(deps.client, o.systemNamespace, o, r.release.manifest.objects(), deps.gateParser);
  if (!gates.ok) return failed(gates.error);
  deps.progress?.(`pulling bundle image ${pick.image} of ${pick.bundle}...`);
  let files;
  try {
    files = await deps.bundles.fetch(pick.image);
  } catch (e) {
    return failed(`error pulling bundle image ${JSON.stringify(pick.image)}: ${errorMessage(e)}`);
  }
  const bundle = parseBundle(files);
  if (!bundle.ok) return failed(`bundle ${pick.bundle}: ${bundle.error}`);
  const ports = {
    client: deps.client,
    schemas: deps.schemas,
    clusterVersion: () => currentVersion(deps.client, o.clusterVersion),
  };
  const planned = await planChanges(ports, {
    ce: r.ce,
    release: r.release,
    pick,
    bundle: bundle.value,
    features: renderFeatures(gates.value.values),
    now: deps.now(),
    onRendered: () => deps.progress?.('comparing with the deployed release...'),
  });
  if (!planned.ok) {
    const message = renderFailureToError(planned.error).message;
    return failed(`bundle ${pick.bundle} does not render: ${message}\n${formatGates(gates.value)}`);
  }
  const { changes, policy, window } = planned.value;
  return {
    ok: true,
    plan: {
      ...r.plan,
      changes,
      policy: { ...policy, approveCommand: `olmv1 upgrade approve ${o.extension} ${pick.version}` },
      ...(window === undefined ? {} : { window }),
      gates: gates.value,
    },
  };
}
