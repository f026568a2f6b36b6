/**
 * Bundle resolution, across one or several catalogs: which bundle of which catalog a
 * ClusterExtension gets. Pure: catalogs are fetched by the caller and passed in.
 */
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { bestInCatalog, isEmptyPartition, type CandidateFilter, type CatalogBest, type InstalledEdges } from './candidates.ts';
import {
  dependencyNotSupported,
  getPackageFailed,
  installedVersionFailed,
  resolutionFailed,
  resolvedVersionFailed,
  upgradeEdgesFailed,
  versionRangeInvalid,
} from './messages.ts';
import { compareVersionRelease, parseExplicitVersionRelease, parseLegacyVersionRelease, type VersionRelease } from './release.ts';
import type { InstalledBundle, PassedOver, Resolution, ResolveInput } from './types.ts';
import { parseVersionRange, type VersionRange } from './version-range.ts';

/** Bundle property types that declare dependencies; a resolved bundle must have none. */
export const DEPENDENCY_PROPERTY_TYPES: readonly string[] = ['olm.package.required', 'olm.gvk.required', 'olm.constraint'];

interface Found {
  readonly catalog: string;
  readonly priority: number;
  readonly best: CatalogBest;
}

/**
 * Checks `spec.source.catalog.version` the way resolution does before anything else, so a
 * caller can report E-range before listing or fetching catalogs. `""` is valid (no filter).
 */
export function checkVersionRange(versionRange: string): Result<VersionRange | undefined, string> {
  if (versionRange === '') return ok(undefined);
  const parsed = parseVersionRange(versionRange);
  return parsed.ok ? parsed : err(versionRangeInvalid(versionRange, parsed.error));
}

function installedEdges(installed: InstalledBundle): Result<InstalledEdges, string> {
  const explicit = installed.release !== null && installed.release !== undefined;
  const vr = explicit ? parseExplicitVersionRelease(installed.version, installed.release ?? '') : parseLegacyVersionRelease(installed.version);
  if (!vr.ok) return err(upgradeEdgesFailed(installedVersionFailed(explicit, vr.error)));
  return ok({ name: installed.name, versionRelease: vr.value });
}

function belowInstalled(vr: VersionRelease, installed: InstalledBundle): boolean {
  const edges = installedEdges(installed);
  return edges.ok && compareVersionRelease(vr, edges.value.versionRelease) < 0;
}

// Step 5: the strictly highest priority wins; a tie at the top keeps everyone (an error).
function byPriority(found: Found[]): Found[] {
  if (found.length <= 1) return found;
  const sorted = [...found].sort((a, b) => b.priority - a.priority);
  const [first, second] = sorted;
  return first !== undefined && second !== undefined && first.priority !== second.priority ? [first] : found;
}

/** How many bundles with unmet dependencies a resolution passes over before it gives up. */
const MAX_PASSED_OVER = 64;

// Steps 3-7 for one round: each catalog's best offer (bundles in `excluded` left out), then
// deprecation and priority. Returns the winner, the finalists when there is none, or an error.
function pickWinner(
  input: ResolveInput,
  filter: CandidateFilter,
  excluded: ReadonlyMap<string, ReadonlySet<string>>,
): Result<{ winner: Found | undefined; finalists: Found[] }, string> {
  const installed = input.installed ?? undefined;
  const followEdges = installed !== undefined && input.upgradeConstraintPolicy !== 'SelfCertified';
  let edges: Result<InstalledEdges, string> | undefined;
  let found: Found[] = [];
  let foundDeprecated = false;
  for (const catalog of input.catalogs) {
    if ('error' in catalog) return err(getPackageFailed(input.packageName, catalog.name, catalog.error));
    const fbc = catalog.package;
    if (fbc === null || isEmptyPartition(fbc)) continue;
    if (followEdges && installed !== undefined) {
      edges ??= installedEdges(installed);
      if (!edges.ok) return edges;
    }
    const best = bestInCatalog(fbc, { ...filter, installed: edges?.ok === true ? edges.value : undefined, excluded: excluded.get(catalog.name) });
    if (best === undefined) continue;
    // Step 4.7: keep only non-deprecated offers when there are any.
    if (found.length > 0) {
      if (best.deprecated && !foundDeprecated) continue;
      if (!best.deprecated && foundDeprecated) found = [];
    }
    foundDeprecated = best.deprecated;
    found.push({ catalog: catalog.name, priority: catalog.priority, best });
  }
  const finalists = byPriority(found);
  return ok({ winner: finalists.length === 1 ? finalists[0] : undefined, finalists });
}

/**
 * Resolves one package across catalogs, step by step as upstream (error codes: messages.ts):
 * the version range first; catalogs in order, a fetch failure or an unparsable installed
 * version ending the run; each catalog's best candidate, non-deprecated beating deprecated,
 * then strictly higher priority. A winner declaring dependencies is refused as upstream
 * unless `input.dependencies` is given (decision 0104): then one with unmet dependencies is
 * passed over for the next best. Returns the error text exactly as Progressing shows it.
 */
export function resolve(input: ResolveInput): Result<Resolution, string> {
  const range = checkVersionRange(input.versionRange ?? '');
  if (!range.ok) return range;
  const channels = input.channels ?? [];
  const filter: CandidateFilter = {
    channels: channels.length > 0 ? new Set(channels) : undefined,
    range: range.value,
    installed: undefined,
    skipRanges: new Map(),
    bundleReleaseSupport: input.bundleReleaseSupport,
  };
  const excluded = new Map<string, Set<string>>();
  const passedOver: PassedOver[] = [];
  for (;;) {
    const round = pickWinner(input, filter, excluded);
    if (!round.ok) return round;
    const { winner, finalists } = round.value;
    if (winner === undefined) {
      const first = passedOver[0];
      if (first !== undefined && finalists.length === 0) return err(first.reason);
      return err(
        resolutionFailed({
          packageName: input.packageName,
          versionRange: input.versionRange ?? '',
          channels,
          installedVersion: input.installed?.version,
          catalogs: finalists.map((f) => f.catalog),
        }),
      );
    }
    const { bundle, versionRelease, deprecation } = winner.best;
    if (!versionRelease.ok) return err(resolvedVersionFailed(bundle.name, versionRelease.error));
    const dependency = bundle.properties.find((p) => DEPENDENCY_PROPERTY_TYPES.includes(p.type));
    if (input.dependencies === undefined && dependency !== undefined) return err(dependencyNotSupported(bundle.name, dependency.type));
    if (input.dependencies !== undefined) {
      const reason = input.dependencies(bundle);
      if (reason !== undefined) {
        passedOver.push({ bundle: bundle.name, catalog: winner.catalog, reason });
        if (passedOver.length >= MAX_PASSED_OVER) return err(passedOver[0]?.reason ?? reason);
        const names = excluded.get(winner.catalog) ?? new Set<string>();
        names.add(bundle.name);
        excluded.set(winner.catalog, names);
        continue;
      }
    }
    // A fallback never goes below what is installed: a dependency lost by the installed bundle
    // is reported, not answered with a downgrade (SelfCertified would otherwise allow one).
    const first = passedOver[0];
    if (first !== undefined && input.installed != null && belowInstalled(versionRelease.value, input.installed)) return err(first.reason);
    return ok({ bundle, versionRelease: versionRelease.value, catalog: winner.catalog, deprecation, passedOver });
  }
}
