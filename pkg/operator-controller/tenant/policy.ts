/**
 * Whether the cluster's ExtensionPolicies allow a tenant's request (decision 0138), a pure
 * function of the request, the policies and its namespace's labels. A request is allowed when
 * one policy selecting its namespace allows all of it: its package, version, channels, catalog
 * and install mode. Otherwise the refusal names the rule broken, taken from the policy that
 * allowed the most of it (policies in name order, rules in the order above), so the tenant
 * learns the first thing to change or to ask for.
 *
 * What cannot be judged without the catalogs is passed on as a constraint the resolution
 * applies: a version range the request states loosely (`>=1.0.0`) is intersected with the
 * policy's (`versionRange`), a request naming no channel gets the policy's channels, and the
 * catalogs the policy names narrow the request's catalog selector.
 */
import { CATALOG_NAME_LABEL, TenantInstallMode, type ExtensionPolicy, type PolicyPackage } from '../../shared/api/index.ts';
import { goSorted } from '../../gocompat/gotext/index.ts';
import { parseSemver } from '../../shared/semver/index.ts';
import { parseLabelSelector, parseVersionRange, rangeContains, type LabelSelector } from '../resolve/index.ts';

/** Reasons of the `Allowed` condition of a refused request: the rule broken. */
export const RefusalRule = {
  /** No ExtensionPolicy selects the request's namespace. */
  Namespace: 'NamespaceNotAllowed',
  /** No policy selecting the namespace lists the package. */
  Package: 'PackageNotAllowed',
  /** The version asked for is outside the policy's range. */
  Version: 'VersionNotAllowed',
  /** A channel asked for is not among the policy's. */
  Channel: 'ChannelNotAllowed',
  /** A catalog the request selects by name is not among the policy's. */
  Catalog: 'CatalogNotAllowed',
  /** The watch namespace asks for an install mode the policy does not allow. */
  InstallMode: 'InstallModeNotAllowed',
  /** The ServiceAccount the request names cannot install this bundle (objects outside the namespace). */
  ServiceAccount: 'ServiceAccountNotAllowed',
  /** The package is installed for another request already (its CRDs have one owner). */
  Conflict: 'PackageInUse',
} as const;

/** One of RefusalRule's values. */
export type RefusalRule = (typeof RefusalRule)[keyof typeof RefusalRule];

/** What a request asks for, as the policy judges it. */
export interface TenantRequest {
  namespace: string;
  packageName: string;
  /** `spec.source.catalog.version` (a Masterminds range); absent or empty: any. */
  version?: string | undefined;
  channels?: readonly string[] | undefined;
  /** `spec.source.catalog.selector` over ClusterCatalogs. */
  selector?: LabelSelector | undefined;
  /** `spec.config.inline.watchNamespace`: absent or the namespace: own; `""`: all; another: single. */
  watchNamespace?: string | undefined;
}

/** A request one policy allows, with the constraints its resolution must apply. */
export interface Allowed {
  allowed: true;
  /** The policy's name. */
  policy: string;
  installMode: TenantInstallMode;
  upgrades: 'Automatic' | 'Manual';
  /** The versions to resolve within: the request's range and the policy's, both; undefined: any. */
  versionRange: string | undefined;
  /** The channels to resolve within; empty: every channel. */
  channels: string[];
  /** The catalog selector to resolve with: the request's, narrowed to the policy's catalogs. */
  selector: LabelSelector | undefined;
  /** The package's entry in the policy. */
  entry: PolicyPackage;
}

/** A refused request: the rule broken and a message for the tenant. */
interface Refused {
  allowed: false;
  rule: RefusalRule;
  message: string;
}

/** What `evaluatePolicies` decides. */
type PolicyVerdict = Allowed | Refused;

/** The install mode a request's watch namespace asks for. */
export function requestedInstallMode(req: Pick<TenantRequest, 'namespace' | 'watchNamespace'>): TenantInstallMode {
  if (req.watchNamespace === undefined || req.watchNamespace === req.namespace) return TenantInstallMode.OwnNamespace;
  return req.watchNamespace === '' ? TenantInstallMode.AllNamespaces : TenantInstallMode.SingleNamespace;
}

/** See the module comment. `namespaceLabels` are the request namespace's labels. */
export function evaluatePolicies(
  req: TenantRequest,
  policies: readonly ExtensionPolicy[],
  namespaceLabels: Readonly<Record<string, string>>,
): PolicyVerdict {
  const selecting = [...policies]
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0))
    .filter((p) => {
      const matcher = parseLabelSelector(p.spec.namespaceSelector);
      return matcher.ok && matcher.value(namespaceLabels);
    });
  if (selecting.length === 0) {
    return refuse(RefusalRule.Namespace, `no ExtensionPolicy allows installing into namespace ${JSON.stringify(req.namespace)}`);
  }
  // The refusal of the policy that got furthest: rules are checked in RULE_ORDER.
  let best: { refused: Refused; depth: number } | undefined;
  for (const policy of selecting) {
    const verdict = evaluateOne(req, policy);
    if (verdict.allowed) return verdict;
    const depth = RULE_ORDER.indexOf(verdict.rule);
    if (best === undefined || depth > best.depth) best = { refused: verdict, depth };
  }
  return (best as { refused: Refused }).refused;
}

const RULE_ORDER: readonly RefusalRule[] = [
  RefusalRule.Package,
  RefusalRule.Version,
  RefusalRule.Channel,
  RefusalRule.Catalog,
  RefusalRule.InstallMode,
];

function evaluateOne(req: TenantRequest, policy: ExtensionPolicy): PolicyVerdict {
  const name = policy.metadata.name;
  const of = `ExtensionPolicy ${JSON.stringify(name)}`;
  const entry = policy.spec.packages.find((p) => p.name === req.packageName);
  if (entry === undefined) {
    const listed = goSorted(policy.spec.packages.map((p) => p.name)).join(', ');
    return refuse(
      RefusalRule.Package,
      `package ${JSON.stringify(req.packageName)} is not allowed in namespace ${JSON.stringify(req.namespace)}: ${of} allows ${listed}`,
    );
  }
  const version = versionVerdict(req.version, entry.versionRange);
  if (typeof version !== 'object') {
    return refuse(
      RefusalRule.Version,
      `version ${JSON.stringify(req.version ?? '')} of package ${JSON.stringify(req.packageName)} is outside the range ${JSON.stringify(entry.versionRange ?? '')} that ${of} allows`,
    );
  }
  const allowedChannels = entry.channels ?? [];
  const asked = req.channels ?? [];
  const outside = allowedChannels.length === 0 ? [] : asked.filter((c) => !allowedChannels.includes(c));
  if (outside.length > 0) {
    return refuse(
      RefusalRule.Channel,
      `channel ${JSON.stringify(outside[0])} of package ${JSON.stringify(req.packageName)} is not allowed: ${of} allows channels ${allowedChannels.join(', ')}`,
    );
  }
  const catalogs = policy.spec.catalogs;
  const named = catalogs === undefined ? [] : namedCatalogs(req.selector).filter((c) => !catalogs.includes(c));
  if (catalogs !== undefined && named.length > 0) {
    return refuse(
      RefusalRule.Catalog,
      `catalog ${JSON.stringify(named[0])} is not allowed: ${of} allows installing from ${catalogs.length === 0 ? 'no catalog' : catalogs.join(', ')}`,
    );
  }
  const mode = requestedInstallMode(req);
  if (!policy.spec.installModes.includes(mode)) {
    return refuse(
      RefusalRule.InstallMode,
      `install mode ${mode} (watchNamespace ${JSON.stringify(req.watchNamespace ?? req.namespace)}) is not allowed: ${of} allows ${policy.spec.installModes.join(', ')}`,
    );
  }
  return {
    allowed: true,
    policy: name,
    installMode: mode,
    upgrades: policy.spec.upgrades,
    versionRange: version.range,
    channels: asked.length > 0 ? [...asked] : [...allowedChannels],
    selector: narrowSelector(req.selector, catalogs),
    entry,
  };
}

function refuse(rule: RefusalRule, message: string): Refused {
  return { allowed: false, rule, message };
}

/**
 * The range to resolve within, or 'outside' when the request names one exact version the
 * policy's range excludes (or a range that does not parse: the API server's rule refuses
 * those, so this is defensive).
 */
function versionVerdict(requested: string | undefined, allowed: string | undefined): { range: string | undefined } | 'outside' {
  const req = requested?.trim() ?? '';
  const pol = allowed?.trim() ?? '';
  if (pol === '') return { range: req === '' ? undefined : req };
  if (req === '') return { range: pol };
  const policyRange = parseVersionRange(pol);
  if (!policyRange.ok) return 'outside';
  const exact = exactVersion(req);
  if (exact !== undefined) {
    const v = parseSemver(exact);
    return v.ok && rangeContains(policyRange.value, v.value) ? { range: req } : 'outside';
  }
  return { range: intersectRanges(req, pol) };
}

/** `1.2.3` or `=1.2.3` (optionally `v`-prefixed): the one version asked for, else undefined. */
function exactVersion(range: string): string | undefined {
  const m = /^=?\s*v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)$/.exec(range);
  return m?.[1];
}

/**
 * Both ranges at once, in the grammar ClusterExtension's version uses: every OR group of one
 * AND every OR group of the other (`a || b` and `c` give `a, c || b, c`).
 */
export function intersectRanges(a: string, b: string): string {
  const groupsA = a.split('||').map((g) => g.trim());
  const groupsB = b.split('||').map((g) => g.trim());
  const out: string[] = [];
  for (const ga of groupsA) for (const gb of groupsB) out.push(`${ga}, ${gb}`);
  return out.join(' || ');
}

/** The catalog names a selector requires by the name label (`matchLabels`, or `In` expressions). */
function namedCatalogs(selector: LabelSelector | undefined): string[] {
  if (selector === undefined) return [];
  const names: string[] = [];
  const label = selector.matchLabels?.[CATALOG_NAME_LABEL];
  if (label !== undefined) names.push(label);
  for (const e of selector.matchExpressions ?? []) if (e.key === CATALOG_NAME_LABEL && e.operator === 'In') names.push(...(e.values ?? []));
  return names;
}

/** The request's selector, further limited to `catalogs` by their name label (unchanged when the policy names none). */
function narrowSelector(selector: LabelSelector | undefined, catalogs: readonly string[] | undefined): LabelSelector | undefined {
  if (catalogs === undefined) return selector;
  const values = [...catalogs].sort();
  return {
    ...(selector?.matchLabels === undefined || selector.matchLabels === null ? {} : { matchLabels: { ...selector.matchLabels } }),
    matchExpressions: [...(selector?.matchExpressions ?? []).map((e) => ({ ...e })), { key: CATALOG_NAME_LABEL, operator: 'In', values }],
  };
}
