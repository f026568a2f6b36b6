/**
 * The release's SBOM (SPDX 2.3 JSON): the npm packages of package-lock.json the image holds
 * (its runtime stage runs `npm ci --omit=dev`: every package not marked `dev`, but the optional
 * ones whose `os`/`cpu` exclude the image's platform) and, when listed, the base's Debian
 * packages. Pure and deterministic: the same inputs give the same bytes.
 */

/** The subset of package-lock.json (lockfileVersion 2 or 3) read here. */
interface PackageLock {
  name?: string;
  version?: string;
  packages?: Record<string, LockEntry>;
}

interface LockEntry {
  name?: string;
  version?: string;
  license?: string;
  resolved?: string;
  integrity?: string;
  dev?: boolean;
  optional?: boolean;
  link?: boolean;
  os?: string[];
  cpu?: string[];
}

/** A Debian package of the base (`dpkg-query -W` name and version). */
export interface DebianPackage {
  name: string;
  version: string;
}

/** What {@link renderSbom} describes. */
interface SbomInput {
  /** The release version (e.g. `v1.2.3`). */
  version: string;
  /** The image's digest reference, `<repo>@sha256:<hex>`. */
  imageRef: string;
  /** package-lock.json's text. */
  packageLock: string;
  /** The base's Debian packages; empty when unknown. */
  debianPackages: readonly DebianPackage[];
  /** The document's creation time (ISO 8601, seconds): the commit's time keeps it reproducible. */
  created: string;
  /** Node's platform and architecture of the image (default linux, x64). */
  platform?: { os: string; cpu: string };
}

/** A platform list (`os`/`cpu` of a lock entry) admits `value`: no list, listed, or not negated. */
function admits(list: string[] | undefined, value: string): boolean {
  if (list === undefined || list.length === 0) return true;
  if (list.includes(`!${value}`)) return false;
  return list.includes(value) || list.every((x) => x.startsWith('!'));
}

/** The npm packages the image's `npm ci --omit=dev` installs: `[name, version, entry]`, sorted. */
export function imageNpmPackages(
  packageLock: string,
  platform = { os: 'linux', cpu: 'x64' },
): Array<{ name: string; version: string; entry: LockEntry }> {
  const lock = JSON.parse(packageLock) as PackageLock;
  if (lock.packages === undefined) throw new Error('package-lock.json has no "packages" (lockfileVersion 2 or later is needed)');
  const out = new Map<string, { name: string; version: string; entry: LockEntry }>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev === true || entry.link === true) continue;
    if (entry.optional === true && !(admits(entry.os, platform.os) && admits(entry.cpu, platform.cpu))) continue;
    const name = entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const version = entry.version ?? 'NOASSERTION';
    out.set(`${name}@${version}`, { name, version, entry });
  }
  return [...out.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
}

/** SPDX ids admit letters, digits, `.` and `-`. */
function spdxId(prefix: string, name: string, version: string): string {
  return `SPDXRef-${prefix}-${`${name}-${version}`.replace(/[^A-Za-z0-9.-]/g, '-')}`;
}

/** The SBOM's JSON text (pure). */
export function renderSbom(input: SbomInput): string {
  const lock = JSON.parse(input.packageLock) as PackageLock;
  const at = input.imageRef.lastIndexOf('@');
  const digest = input.imageRef.slice(at + 1);
  if (at < 0 || !/^sha256:[0-9a-f]{64}$/.test(digest)) throw new Error(`not a digest reference: ${input.imageRef}`);
  const imageId = 'SPDXRef-image';
  const npm = imageNpmPackages(input.packageLock, input.platform);
  const packages = [
    {
      SPDXID: imageId,
      name: lock.name ?? 'olmv1',
      versionInfo: input.version,
      downloadLocation: 'NOASSERTION',
      filesAnalyzed: false,
      checksums: [{ algorithm: 'SHA256', checksumValue: digest.slice('sha256:'.length) }],
      externalRefs: [
        {
          referenceCategory: 'PACKAGE-MANAGER',
          referenceType: 'purl',
          referenceLocator: `pkg:oci/${encodeURIComponent(lock.name ?? 'olmv1')}@${encodeURIComponent(digest)}?repository_url=${encodeURIComponent(input.imageRef.slice(0, at))}`,
        },
      ],
      primaryPackagePurpose: 'CONTAINER',
    },
    ...npm.map((p) => ({
      SPDXID: spdxId('npm', p.name, p.version),
      name: p.name,
      versionInfo: p.version,
      downloadLocation: p.entry.resolved ?? 'NOASSERTION',
      filesAnalyzed: false,
      licenseDeclared: p.entry.license ?? 'NOASSERTION',
      externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: npmPurl(p.name, p.version) }],
    })),
    ...[...input.debianPackages]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((p) => ({
        SPDXID: spdxId('deb', p.name, p.version),
        name: p.name,
        versionInfo: p.version,
        downloadLocation: 'NOASSERTION',
        filesAnalyzed: false,
        externalRefs: [
          {
            referenceCategory: 'PACKAGE-MANAGER',
            referenceType: 'purl',
            referenceLocator: `pkg:deb/debian/${encodeURIComponent(p.name)}@${encodeURIComponent(p.version)}`,
          },
        ],
      })),
  ];
  const doc = {
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: `${lock.name ?? 'olmv1'}-${input.version}`,
    documentNamespace: `https://olmv1.invalid/spdx/${encodeURIComponent(input.version)}/${digest.slice('sha256:'.length)}`,
    creationInfo: { created: input.created, creators: ['Tool: olmv1-release'] },
    documentDescribes: [imageId],
    packages,
    relationships: packages.slice(1).map((p) => ({ spdxElementId: imageId, relationshipType: 'CONTAINS', relatedSpdxElement: p.SPDXID })),
  };
  return JSON.stringify(doc, null, 2) + '\n';
}

/** `pkg:npm/<scope>/<name>@<version>` (the scope's `@` encoded, as the purl spec has it). */
function npmPurl(name: string, version: string): string {
  const slash = name.startsWith('@') ? name.indexOf('/') : -1;
  const path = slash < 0 ? encodeURIComponent(name) : `${encodeURIComponent(name.slice(0, slash))}/${encodeURIComponent(name.slice(slash + 1))}`;
  return `pkg:npm/${path}@${encodeURIComponent(version)}`;
}

/** The installed packages of a dpkg status file (`/var/lib/dpkg/status`; pure). */
export function parseDpkgStatus(status: string): DebianPackage[] {
  const out: DebianPackage[] = [];
  for (const stanza of status.split(/\n\s*\n/)) {
    const field = (name: string): string | undefined => new RegExp(`^${name}:\\s*(.+)$`, 'm').exec(stanza)?.[1]?.trim();
    const name = field('Package');
    const version = field('Version');
    if (name === undefined || version === undefined || !/\binstalled$/.test(field('Status') ?? '')) continue;
    out.push({ name, version });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
