/**
 * The resolution benchmark's dependency case (decision 0104): the largest package's bundles
 * each declare three requirements (a package range, an API, and an `all` of a package and a CEL
 * rule with `semver_compare`) on another package of the catalog, which is installed among 200
 * installed extensions (their bundles' catalog properties) beside the served APIs. Resolution
 * then checks the winner's requirements against them; the check is built per resolution, as
 * the resolve step does, over the cache of parsed requirements it keeps. Target: at most twice the time of the same resolution without.
 */
import {
  DEFAULT_LIMITS,
  RequirementCache,
  dependencyChecker,
  installedCandidate,
  servedApisCandidate,
  type Candidate,
} from '../../pkg/operator-controller/dependencies/index.ts';
import type { Bundle, DeclarativeConfig, Property } from '../../pkg/shared/fbc/types.ts';

/** How many other packages are installed. */
const INSTALLED = 200;

function versionOf(b: Bundle): string {
  const v = b.properties.find((p) => p.type === 'olm.package')?.value;
  return v !== null && typeof v === 'object' && !Array.isArray(v) && typeof v['version'] === 'string' ? v['version'] : '0.0.0';
}

/** The partition with requirements added to every bundle, and what the cluster has that meets them. */
export function withDependencies(cfg: DeclarativeConfig, partition: DeclarativeConfig): { partition: DeclarativeConfig; candidates: Candidate[] } {
  const own = partition.packages[0]?.name;
  const installed = new Map<string, Bundle>();
  for (const b of cfg.bundles) {
    if (b.package === own) continue;
    if (!installed.has(b.package) && installed.size >= INSTALLED) continue;
    installed.set(b.package, b);
  }
  const [dep] = installed.values();
  if (dep === undefined) throw new Error('the catalog has a single package');
  const api = { group: `${dep.package}.bench.example`, version: 'v1', kind: 'Dependency' };
  const requires: Property[] = [
    { type: 'olm.package.required', value: { packageName: dep.package, versionRange: '>=0.0.1' } },
    { type: 'olm.gvk.required', value: api },
    {
      type: 'olm.constraint',
      value: {
        failureMessage: 'needs the dependency at 0.0.1 or later',
        all: {
          constraints: [
            { package: { packageName: dep.package, versionRange: '>=0.0.1' } },
            { cel: { rule: `properties.exists(p, p.type == "olm.package" && semver_compare(p.value.version, "0.0.1") >= 0)` } },
          ],
        },
      },
    },
  ];
  const candidates = [
    servedApisCandidate([api]),
    ...[...installed.values()].map((b) =>
      installedCandidate({ name: b.package, packageName: b.package, version: versionOf(b), properties: b.properties }),
    ),
  ];
  return { partition: { ...partition, bundles: partition.bundles.map((b) => ({ ...b, properties: [...b.properties, ...requires] })) }, candidates };
}

/**
 * The resolver's check over `candidates`, built as the resolve step builds it for each
 * resolution, over one cache of parsed requirements (the step keeps one for its lifetime).
 */
export function checkOver(candidates: readonly Candidate[], cache: RequirementCache): (bundle: Bundle) => string | undefined {
  return dependencyChecker(candidates, DEFAULT_LIMITS, cache).check;
}
