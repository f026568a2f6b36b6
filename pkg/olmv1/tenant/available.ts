/**
 * What serves a tenant's namespace (issue 73, decision 0138): the packages and versions the
 * ExtensionPolicies selecting the namespace allow, intersected with what the catalogs serve.
 * `availablePackages` is pure (the policies, the namespace's labels and each package's content
 * from the catalogs); `readAvailable` reads them as the caller (a tenant may: the roles in
 * config/tenant-extensions let every authenticated user read policies and ClusterCatalogs).
 */
import { CLUSTER_CATALOG, EXTENSION_POLICY, parseExtensionPolicy, type ExtensionPolicy } from '../../shared/api/index.ts';
import { goSorted } from '../../gocompat/gotext/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import type { KubeContext } from '../../shared/kube/index.ts';
import { compareSemver, formatSemver, parseSemver } from '../../shared/semver/index.ts';
import { selectedCatalogs, type CatalogSource } from '../../operator-controller/dependencyview/index.ts';
import {
  bundleVersionRelease,
  parseLabelSelector,
  parseVersionRange,
  rangeContains,
  type CatalogInput,
} from '../../operator-controller/resolve/index.ts';

/** One package a policy allows the namespace, with the versions the allowed catalogs serve for it. */
export interface AvailablePackage {
  packageName: string;
  /** The policy allowing it. */
  policy: string;
  /** The policy's range; undefined: any version. */
  versionRange: string | undefined;
  /** The policy's channels; empty: every channel. */
  channels: string[];
  /** The catalogs allowed; undefined: every catalog. */
  catalogs: string[] | undefined;
  installModes: string[];
  upgrades: string;
  /** The versions served within the range and channels, newest first, with the catalogs serving each. */
  versions: { version: string; catalogs: string[] }[];
  /** Catalogs that could not be read for this package (their error), so an empty list is not taken for "nothing served". */
  unread: string[];
}

/** The policies (parsed, name order) whose namespace selector picks a namespace with `labels`. */
function selectingPolicies(policies: readonly ExtensionPolicy[], labels: Readonly<Record<string, string>>): ExtensionPolicy[] {
  return [...policies]
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0))
    .filter((p) => {
      const matcher = parseLabelSelector(p.spec.namespaceSelector);
      return matcher.ok && matcher.value(labels);
    });
}

/**
 * For each package of each policy selecting the namespace, the versions `content` (each
 * package's partition in every available catalog) serves within the policy's range, channels
 * and catalogs.
 */
export function availablePackages(
  policies: readonly ExtensionPolicy[],
  labels: Readonly<Record<string, string>>,
  content: ReadonlyMap<string, readonly CatalogInput[]>,
): AvailablePackage[] {
  const out: AvailablePackage[] = [];
  for (const policy of selectingPolicies(policies, labels)) {
    for (const entry of policy.spec.packages) {
      const range = entry.versionRange === undefined || entry.versionRange.trim() === '' ? undefined : parseVersionRange(entry.versionRange);
      const channels = entry.channels ?? [];
      const catalogs = policy.spec.catalogs;
      const versions = new Map<string, Set<string>>();
      const unread: string[] = [];
      for (const input of content.get(entry.name) ?? []) {
        if (catalogs !== undefined && !catalogs.includes(input.name)) continue;
        if ('error' in input) {
          unread.push(`${input.name}: ${input.error}`);
          continue;
        }
        const dc = input.package;
        if (dc === null) continue;
        const inChannels = new Set(dc.channels.filter((c) => channels.includes(c.name)).flatMap((c) => c.entries.map((e) => e.name)));
        for (const bundle of dc.bundles) {
          if (bundle.package !== entry.name || (channels.length > 0 && !inChannels.has(bundle.name))) continue;
          const vr = bundleVersionRelease(bundle);
          if (!vr.ok) continue;
          const version = vr.value.version;
          if (range !== undefined && (!range.ok || !rangeContains(range.value, version))) continue;
          const text = formatSemver(version);
          versions.set(text, (versions.get(text) ?? new Set()).add(input.name));
        }
      }
      out.push({
        packageName: entry.name,
        policy: policy.metadata.name,
        versionRange: range === undefined ? undefined : entry.versionRange,
        channels: [...channels],
        catalogs: catalogs === undefined ? undefined : [...catalogs],
        installModes: [...policy.spec.installModes],
        upgrades: policy.spec.upgrades,
        versions: newestFirst([...versions.keys()]).map((v) => ({ version: v, catalogs: goSorted([...(versions.get(v) ?? [])]) })),
        unread,
      });
    }
  }
  return out;
}

function newestFirst(versions: string[]): string[] {
  const parsed = versions.map((v) => ({ v, s: parseSemver(v) }));
  return parsed.sort((a, b) => (a.s.ok && b.s.ok ? compareSemver(b.s.value, a.s.value) : a.v < b.v ? 1 : -1)).map((x) => x.v);
}

/** A failure to read what `readAvailable` needs, as the caller's message. */
interface AvailableReadFailure {
  what: string;
  message: string;
}

/**
 * The packages available to `namespace`, read as `kube`'s identity: the namespace's labels, the
 * ExtensionPolicies, and each allowed package's content from the available ClusterCatalogs
 * (through `source`). A read the identity may not make is a failure value naming it.
 */
export async function readAvailable(
  kube: Pick<KubeContext, 'client'>,
  source: Omit<CatalogSource, 'catalogs'>,
  namespace: string,
  signal?: AbortSignal,
): Promise<{ ok: true; value: AvailablePackage[] } | { ok: false; error: AvailableReadFailure }> {
  const read = async <T>(what: string, f: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: AvailableReadFailure }> => {
    try {
      return { ok: true, value: await f() };
    } catch (e) {
      return { ok: false, error: { what, message: errorMessage(e) } };
    }
  };
  const ns = await read(`namespace ${namespace}`, () => kube.client.get({ apiVersion: 'v1', kind: 'Namespace', name: namespace }, { signal }));
  if (!ns.ok) return ns;
  const listed = await read('ExtensionPolicies', () =>
    kube.client.listAll({ apiVersion: EXTENSION_POLICY.apiVersion, kind: EXTENSION_POLICY.kind }, { signal }),
  );
  if (!listed.ok) return listed;
  const policies = listed.value.items.flatMap((o) => {
    const p = parseExtensionPolicy(o);
    return p.ok ? [p.value] : [];
  });
  const labels = ns.value.metadata.labels ?? {};
  const wanted = new Set(selectingPolicies(policies, labels).flatMap((p) => p.spec.packages.map((e) => e.name)));
  const content = new Map<string, CatalogInput[]>();
  if (wanted.size > 0) {
    const catalogs = await read('ClusterCatalogs', () => kube.client.listAll(CLUSTER_CATALOG, { signal }));
    if (!catalogs.ok) return catalogs;
    const items = catalogs.value.items;
    for (const name of wanted) {
      const selected = await selectedCatalogs({ ...source, catalogs: { list: () => items } }, undefined, name, signal);
      content.set(name, selected.ok ? selected.value.inputs : [{ name: '(catalogs)', error: selected.error }]);
    }
  }
  return { ok: true, value: availablePackages(policies, labels, content) };
}
