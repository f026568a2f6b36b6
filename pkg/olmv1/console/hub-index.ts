/**
 * The console's hub index (pure): one compact tile per package of a catalog and, on demand, a
 * package's detail (channels, upgrade graph, provided APIs, dependencies, links, maintainers).
 * Catalog content is hostile input: only strings, numbers and http(s) links leave this module;
 * icons are kept only with an allowed image media type.
 */
import type { Bundle, DeclarativeConfig, JsonValue } from '../../shared/fbc/index.ts';
import { compareSemver, parseBlangRange, parseSemver, type SemVersion } from '../../shared/semver/index.ts';

/** The image media types an icon may have; anything else is dropped. */
const ICON_MEDIA_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/svg+xml', 'image/webp']);

/** One package as a hub tile. */
export interface HubTile {
  catalog: string;
  name: string;
  displayName: string;
  provider: string;
  /** The first paragraph of the description, at most 240 characters. */
  description: string;
  /** Whether the console serves an icon for it (at /api/icons/CATALOG/NAME). */
  hasIcon: boolean;
  defaultChannel: string;
  /** The highest version of the default channel's head (or of any bundle). */
  version: string;
  categories: string[];
  /** The CSV's capability level (e.g. "Basic Install"). */
  capabilities: string;
  /** Infrastructure features (operators.openshift.io/infrastructure-features and the features.operators.openshift.io annotations). */
  infrastructure: string[];
  /** Supported install modes, e.g. AllNamespaces. */
  installModes: string[];
  keywords: string[];
  /** Architectures its head bundle supports (CSV labels `operatorframework.io/arch.ARCH: supported`; none: amd64, as OLM classic assumes). */
  arch: string[];
  /** Operating systems it supports (`operatorframework.io/os.OS: supported`; none: linux). */
  os: string[];
  /** The CSV's `support` annotation (who supports it), '' when none. */
  support: string;
  /** The package's deprecation message, if deprecated. */
  deprecated?: string | undefined;
}

/** One bundle of a channel in the upgrade graph. */
interface GraphEntry {
  name: string;
  version: string;
  replaces?: string | undefined;
  skips: string[];
  skipRange?: string | undefined;
  /** Names of the entries of this channel that skipRange covers. */
  skipRangeCovers: string[];
  deprecated?: string | undefined;
}

/** One channel: its entries in ascending version order and its head. */
export interface ChannelView {
  name: string;
  head: string;
  deprecated?: string | undefined;
  entries: GraphEntry[];
}

/** A package page's data. */
export interface PackageDetail extends HubTile {
  /** The Markdown description (rendered safely by the page). */
  longDescription: string;
  channels: ChannelView[];
  providedApis: string[];
  required: string[];
  links: { name: string; url: string }[];
  maintainers: { name: string; email: string }[];
  /** The CSV's operatorframework.io/suggested-namespace (or its suggested-namespace-template's name), '' when none. */
  suggestedNamespace: string;
}

/** The decoded icon of a package, when its media type is allowed. */
export function packageIcon(dc: DeclarativeConfig, pkg: string): { mediatype: string; data: Buffer } | undefined {
  const icon = dc.packages.find((p) => p.name === pkg)?.icon;
  if (icon === undefined || typeof icon.base64data !== 'string' || !ICON_MEDIA_TYPES.has(String(icon.mediatype).toLowerCase())) return undefined;
  const data = Buffer.from(icon.base64data, 'base64');
  return data.length === 0 ? undefined : { mediatype: String(icon.mediatype).toLowerCase(), data };
}

/** The tile of package `pkg` in catalog `catalog` from its partition `dc`. */
export function hubTile(catalog: string, pkg: string, dc: DeclarativeConfig): HubTile {
  const p = dc.packages.find((x) => x.name === pkg);
  const head = headBundle(dc, pkg, p?.defaultChannel ?? '');
  const meta = objectOf(head === undefined ? undefined : property(head, 'olm.csv.metadata'));
  const ann = objectOf(meta.annotations);
  const description = str(ann.description) || firstParagraph(str(meta.description) || str(p?.description));
  const deprecated = dc.deprecations.flatMap((d) => (d.package === pkg ? d.entries : [])).find((e) => e.reference.schema === 'olm.package')?.message;
  const labels = objectOf(meta.labels);
  return {
    catalog,
    name: pkg,
    displayName: str(meta.displayName) || pkg,
    provider: clip(str(objectOf(meta.provider).name), MAX_VALUE),
    description: clip(description, 240),
    hasIcon: packageIcon(dc, pkg) !== undefined,
    defaultChannel: str(p?.defaultChannel),
    version: head === undefined ? '' : bundleVersion(head),
    categories: list(str(ann.categories))
      .slice(0, MAX_VALUES)
      .map((c) => clip(c, MAX_VALUE)),
    capabilities: clip(str(ann.capabilities) || str(meta.capabilities), MAX_VALUE),
    infrastructure: infrastructure(ann),
    installModes: arrayOf(meta.installModes).flatMap((m) => (objectOf(m).supported === true ? [str(objectOf(m).type)] : [])),
    keywords: arrayOf(meta.keywords)
      .map(str)
      .filter((k) => k !== ''),
    arch: supported(labels, 'arch', 'amd64'),
    os: supported(labels, 'os', 'linux'),
    support: clip(str(ann.support), MAX_VALUE),
    ...(deprecated === undefined ? {} : { deprecated: str(deprecated) || 'deprecated' }),
  };
}

/** The detail of package `pkg`. */
export function packageDetail(catalog: string, pkg: string, dc: DeclarativeConfig): PackageDetail {
  const tile = hubTile(catalog, pkg, dc);
  const p = dc.packages.find((x) => x.name === pkg);
  const head = headBundle(dc, pkg, p?.defaultChannel ?? '');
  const meta = objectOf(head === undefined ? undefined : property(head, 'olm.csv.metadata'));
  const deprecations = dc.deprecations.flatMap((d) => (d.package === pkg ? d.entries : []));
  const deprecatedAs = (schema: string, name: string): string | undefined =>
    deprecations.find((e) => e.reference.schema === schema && e.reference.name === name)?.message;
  const bundles = new Map(dc.bundles.filter((b) => b.package === pkg).map((b) => [b.name, b]));
  const channels: ChannelView[] = dc.channels
    .filter((c) => c.package === pkg)
    .map((c) => {
      const entries = c.entries.map((e) => {
        const version = bundles.get(e.name) === undefined ? '' : bundleVersion(bundles.get(e.name) as Bundle);
        return { e, version, sv: parseSemver(version) };
      });
      entries.sort((a, b) => (a.sv.ok && b.sv.ok ? compareSemver(a.sv.value, b.sv.value) : a.e.name < b.e.name ? -1 : 1));
      const replaced = new Set(c.entries.flatMap((e) => [...(e.replaces === undefined ? [] : [e.replaces]), ...(e.skips ?? [])]));
      const heads = entries.filter((x) => !replaced.has(x.e.name));
      const headName = (heads.at(-1) ?? entries.at(-1))?.e.name ?? '';
      return {
        name: c.name,
        head: headName,
        deprecated: deprecatedAs('olm.channel', c.name),
        entries: entries.map(({ e, version }) => ({
          name: e.name,
          version,
          replaces: e.replaces,
          skips: e.skips ?? [],
          skipRange: e.skipRange,
          skipRangeCovers: covered(e.skipRange, e.name, entries),
          deprecated: deprecatedAs('olm.bundle', e.name),
        })),
      };
    })
    .sort((a, b) => (a.name === tile.defaultChannel ? -1 : b.name === tile.defaultChannel ? 1 : a.name < b.name ? -1 : 1));
  const props = head?.properties ?? [];
  const gvk = (v: JsonValue): string => {
    const o = objectOf(v);
    return `${str(o.kind)} (${[str(o.group), str(o.version)].filter((s) => s !== '').join('/')})`;
  };
  return {
    ...tile,
    longDescription: clip(str(meta.description) || str(p?.description), 100_000),
    channels,
    providedApis: props.filter((x) => x.type === 'olm.gvk').map((x) => gvk(x.value)),
    required: props.flatMap((x) => {
      const o = objectOf(x.value);
      if (x.type === 'olm.package.required') return [`package ${str(o.packageName)} ${str(o.versionRange)}`.trim()];
      if (x.type === 'olm.gvk.required') return [`API ${gvk(x.value)}`];
      return [];
    }),
    links: arrayOf(meta.links).flatMap((l) => {
      const url = safeUrl(str(objectOf(l).url));
      return url === undefined ? [] : [{ name: str(objectOf(l).name) || url, url }];
    }),
    maintainers: arrayOf(meta.maintainers).map((m) => ({ name: str(objectOf(m).name), email: str(objectOf(m).email) })),
    suggestedNamespace: suggestedNamespace(objectOf(meta.annotations)),
  };
}

/** The namespace the CSV suggests installing into: its suggested-namespace annotation, else its template's metadata.name; '' when neither is a DNS label. */
function suggestedNamespace(ann: Record<string, JsonValue>): string {
  let name = str(ann['operatorframework.io/suggested-namespace']);
  if (name === '') {
    try {
      const template: unknown = JSON.parse(str(ann['operatorframework.io/suggested-namespace-template']) || '{}');
      name = str(objectOf(objectOf(template as JsonValue).metadata).name);
    } catch {
      // Not JSON: no suggestion.
    }
  }
  return name.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name) ? name : '';
}

/** `url` when it is an absolute http(s) URL, else undefined (no javascript:, data:, relative). */
export function safeUrl(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const u = new URL(url);
  return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
}

function covered(range: string | undefined, self: string, entries: { e: { name: string }; sv: { ok: boolean; value?: SemVersion } }[]): string[] {
  if (range === undefined || range === '') return [];
  const r = parseBlangRange(range);
  if (!r.ok) return [];
  return entries.flatMap((x) => (x.e.name !== self && x.sv.ok && x.sv.value !== undefined && r.value.contains(x.sv.value) ? [x.e.name] : []));
}

function headBundle(dc: DeclarativeConfig, pkg: string, defaultChannel: string): Bundle | undefined {
  const bundles = dc.bundles.filter((b) => b.package === pkg);
  const inDefault = new Set(dc.channels.find((c) => c.package === pkg && c.name === defaultChannel)?.entries.map((e) => e.name) ?? []);
  const pool = bundles.some((b) => inDefault.has(b.name)) ? bundles.filter((b) => inDefault.has(b.name)) : bundles;
  let best: { b: Bundle; v: SemVersion } | undefined;
  for (const b of pool) {
    const v = parseSemver(bundleVersion(b));
    if (v.ok && (best === undefined || compareSemver(v.value, best.v) > 0)) best = { b, v: v.value };
  }
  return best?.b ?? pool[0];
}

function bundleVersion(b: Bundle): string {
  return str(objectOf(property(b, 'olm.package')).version);
}

function property(b: Bundle, type: string): JsonValue | undefined {
  return b.properties.find((p) => p.type === type)?.value;
}

/** At most this many values of one filter per package, each at most MAX_VALUE characters: catalog content is hostile. */
const MAX_VALUES = 16;
const MAX_VALUE = 60;

/** The `operatorframework.io/KIND.NAME: supported` labels' NAMEs, or `fallback` when there are none (OLM classic's defaults). */
function supported(labels: Record<string, JsonValue>, kind: 'arch' | 'os', fallback: string): string[] {
  const prefix = `operatorframework.io/${kind}.`;
  const out = Object.entries(labels).flatMap(([k, v]) =>
    k.startsWith(prefix) && v === 'supported' && /^[a-z0-9][a-z0-9_.-]{0,31}$/.test(k.slice(prefix.length)) ? [k.slice(prefix.length)] : [],
  );
  return out.length === 0 ? [fallback] : [...new Set(out)].sort().slice(0, MAX_VALUES);
}

function infrastructure(ann: Record<string, JsonValue>): string[] {
  const out = new Set<string>();
  const legacy = str(ann['operators.openshift.io/infrastructure-features']);
  if (legacy !== '') {
    try {
      const parsed: unknown = JSON.parse(legacy);
      if (Array.isArray(parsed)) for (const f of parsed) if (typeof f === 'string' && f !== '') out.add(f);
    } catch {
      // Not JSON: ignored, as the OperatorHub ignores it.
    }
  }
  for (const [k, v] of Object.entries(ann)) {
    const m = /^features\.operators\.openshift\.io\/(.+)$/.exec(k);
    // `disconnected` -> `Disconnected`, `token-auth-aws` -> `Token Auth Aws`: the legacy list's spelling.
    if (m?.[1] !== undefined && v === 'true')
      out.add(
        m[1]
          .split('-')
          .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
          .join(' '),
      );
  }
  const seen = new Set<string>();
  return [...out]
    .sort()
    .filter((f) => !seen.has(f.toLowerCase()) && seen.add(f.toLowerCase()))
    .slice(0, MAX_VALUES)
    .map((f) => clip(f, MAX_VALUE));
}

function objectOf(v: JsonValue | undefined): Record<string, JsonValue> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {};
}

function arrayOf(v: JsonValue | undefined): JsonValue[] {
  return Array.isArray(v) ? v : [];
}

function str(v: JsonValue | undefined): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}

function list(s: string): string[] {
  return s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
}

function firstParagraph(s: string): string {
  return (s.trim().split(/\n\s*\n/)[0] ?? '').replace(/\s+/g, ' ');
}

function clip(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

/** The image of the package's head bundle (the newest of its default channel), '' when none. */
export function headBundleImage(dc: DeclarativeConfig, pkg: string): string {
  const p = dc.packages.find((x) => x.name === pkg);
  return headBundle(dc, pkg, p?.defaultChannel ?? '')?.image ?? '';
}
