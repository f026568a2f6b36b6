/**
 * What `olmv1 catalog list|search` shows of a package (pure): default channel, channels with
 * their highest version, deprecations, and whether the bundle a new ClusterExtension would get
 * can be installed at all.
 */
import type { Bundle, DeclarativeConfig } from '../../pkg/shared/fbc/index.ts';
import {
  DEPENDENCY_PROPERTY_TYPES,
  bundleVersionRelease,
  compareVersionRelease,
  metadataFor,
  resolve,
  type VersionRelease,
} from '../../pkg/operator-controller/resolve/index.ts';
import { installability, type Verdict } from './catalog-installability.ts';

/** One channel: its name and its highest-versioned bundle (undefined when no entry has a version). */
interface ChannelRow {
  name: string;
  head?: { bundle: string; version: string } | undefined;
}

/** One package of one catalog. */
export interface PackageRow {
  catalog: string;
  package: string;
  defaultChannel: string;
  /** Channels in name order. */
  channels: ChannelRow[];
  /** Deprecation messages, `package: ...`, `channel NAME: ...`, `bundle NAME: ...`. */
  deprecations: string[];
  /**
   * The bundle a ClusterExtension naming only this package would resolve to, with the
   * verdict on it; without a bundle, `verdict` is `no` with the resolver's message.
   */
  installable: { bundle?: string | undefined; version?: string | undefined; verdict: Verdict };
}

function versionOf(bundle: Bundle): VersionRelease | undefined {
  const vr = bundleVersionRelease(bundle);
  return vr.ok ? vr.value : undefined;
}

function channelRows(partition: DeclarativeConfig): ChannelRow[] {
  const bundles = new Map(partition.bundles.map((b) => [b.name, b]));
  const rows: ChannelRow[] = [];
  for (const channel of partition.channels) {
    let best: { bundle: string; vr: VersionRelease } | undefined;
    for (const entry of channel.entries) {
      const bundle = bundles.get(entry.name);
      const vr = bundle === undefined ? undefined : versionOf(bundle);
      if (vr !== undefined && (best === undefined || compareVersionRelease(vr, best.vr) > 0)) best = { bundle: entry.name, vr };
    }
    rows.push({ name: channel.name, head: best && { bundle: best.bundle, version: metadataFor(best.bundle, best.vr).version } });
  }
  return rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function deprecationTexts(partition: DeclarativeConfig): string[] {
  const out: string[] = [];
  for (const d of partition.deprecations) {
    for (const e of d.entries) {
      const what =
        e.reference.schema === 'olm.package'
          ? 'package'
          : e.reference.schema === 'olm.channel'
            ? `channel ${e.reference.name ?? ''}`
            : `bundle ${e.reference.name ?? ''}`;
      out.push(`${what}: ${e.message}`);
    }
  }
  return out;
}

/**
 * The bundle operator-controller would pick for a ClusterExtension with only
 * `packageName` set (all channels, no range, nothing installed), by pkg/operator-controller/resolve itself. The
 * dependency refusal is left to {@link installability}, which words it for this listing, so
 * dependency properties are hidden from the resolver here.
 */
function freshResolution(partition: DeclarativeConfig, packageName: string): { bundle: Bundle; version: string } | { error: string } {
  const withoutDeps: DeclarativeConfig = {
    ...partition,
    bundles: partition.bundles.map((b) => ({ ...b, properties: b.properties.filter((p) => !DEPENDENCY_PROPERTY_TYPES.includes(p.type)) })),
  };
  const r = resolve({ packageName, catalogs: [{ name: 'catalog', priority: 0, package: withoutDeps }] });
  if (!r.ok) return { error: r.error };
  const original = partition.bundles.find((b) => b.name === r.value.bundle.name) ?? r.value.bundle;
  return { bundle: original, version: metadataFor(original.name, r.value.versionRelease).version };
}

/** Describes the package `partition` holds (one package's partition, as `packagePartition` gives). */
export function describePackage(catalog: string, packageName: string, partition: DeclarativeConfig): PackageRow {
  const pkg = partition.packages.find((p) => p.name === packageName);
  const fresh = freshResolution(partition, packageName);
  const installable =
    'error' in fresh
      ? { verdict: { kind: 'no', reason: fresh.error, evidence: 'properties-only', unjudged: [] } satisfies Verdict }
      : { bundle: fresh.bundle.name, version: fresh.version, verdict: installability(fresh.bundle) };
  return {
    catalog,
    package: packageName,
    defaultChannel: pkg?.defaultChannel ?? '',
    channels: channelRows(partition),
    deprecations: deprecationTexts(partition),
    installable,
  };
}

/** One version of a package, for `--list-versions`. */
export interface VersionRow {
  version: string;
  bundle: string;
  /** The channels listing the bundle, in name order. */
  channels: string[];
}

/** Every bundle of the package `partition` holds with its version and channels, highest version first (bundles without a version left out). */
export function packageVersions(partition: DeclarativeConfig): VersionRow[] {
  const rows: { row: VersionRow; vr: VersionRelease }[] = [];
  for (const bundle of partition.bundles) {
    const vr = versionOf(bundle);
    if (vr === undefined) continue;
    const channels = partition.channels.filter((c) => c.entries.some((e) => e.name === bundle.name)).map((c) => c.name);
    rows.push({ row: { version: metadataFor(bundle.name, vr).version, bundle: bundle.name, channels: channels.sort() }, vr });
  }
  return rows.sort((a, b) => compareVersionRelease(b.vr, a.vr) || (a.row.bundle < b.row.bundle ? -1 : 1)).map((r) => r.row);
}

/**
 * Whether a package matches `olmv1 catalog search TEXT`: TEXT, case-insensitive, in the
 * package name or description, or in the display name, keywords or description of a bundle's
 * `olm.csv.metadata`.
 */
export function matchesSearch(packageName: string, partition: DeclarativeConfig, text: string): boolean {
  const needle = text.toLowerCase();
  const has = (s: unknown): boolean => typeof s === 'string' && s.toLowerCase().includes(needle);
  if (has(packageName)) return true;
  if (partition.packages.some((p) => has(p.description))) return true;
  for (const b of partition.bundles) {
    const meta = b.properties.find((p) => p.type === 'olm.csv.metadata')?.value;
    if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) continue;
    const keywords = Array.isArray(meta['keywords']) ? meta['keywords'] : [];
    if (has(meta['displayName']) || has(meta['description']) || keywords.some(has)) return true;
  }
  return false;
}
