/**
 * Names and labels of the release record Secrets, in upstream's "chunked secrets" shape
 * (decision 0074): one index Secret per revision named after Helm's
 * storage key, extra chunk Secrets named after the key and a hash of their bytes, and the
 * system labels queries select on.
 */
import { createHash } from 'node:crypto';
import { PACKAGE_NAME_ANNOTATION } from '../../shared/api/index.ts';
import { dns1123SubdomainErrors } from '../../shared/k8sname/index.ts';
import type { Release } from './types.ts';

/** `owner` label value of every record Secret (upstream's driver owner string). */
export const RECORD_OWNER = 'operator-controller';
/** Secret type of the index Secret of a revision. */
export const INDEX_SECRET_TYPE = 'operatorframework.io/index.v1';
/** Secret type of an extra chunk Secret. */
export const CHUNK_SECRET_TYPE = 'operatorframework.io/chunk.v1';

/** System label keys (the only ones queries select on). */
export const Label = {
  name: 'name',
  owner: 'owner',
  status: 'status',
  version: 'version',
  key: 'key',
  type: 'type',
  createdAt: 'createdAt',
  modifiedAt: 'modifiedAt',
} as const;

/** Keys of the bundle identity, stored as labels when the value is a valid label value, else as annotations. */
export const BundleKey = {
  name: 'olm.operatorframework.io/bundle-name',
  package: PACKAGE_NAME_ANNOTATION,
  version: 'olm.operatorframework.io/bundle-version',
  reference: 'olm.operatorframework.io/bundle-reference',
  release: 'olm.operatorframework.io/bundle-release',
} as const;

const KEY_PREFIX = 'sh.helm.release.v1.';

/** Helm's storage key of a revision, also the index Secret's name: `sh.helm.release.v1.<extension>.v<revision>`. */
export function releaseKey(extension: string, revision: number): string {
  return `${KEY_PREFIX}${extension}.v${revision}`;
}

/**
 * The `key` label value of the Secrets of the revision stored under `key`: the key itself
 * when it is a valid label value (at most 63 characters), else the first 63 hex digits of its
 * SHA-256, as later revisions of upstream's driver write it (the one upstream uses fails for
 * names over 41 characters). Every key label we write or select on goes through here.
 */
export function keyLabelValue(key: string): string {
  if (key.length <= 63) return key;
  return createHash('sha256').update(key).digest('hex').slice(0, 63);
}

/** True when `key` is the storage key of some revision of `extension` (and not of a longer name that starts alike). */
export function isKeyOf(key: string, extension: string): boolean {
  const prefix = `${KEY_PREFIX}${extension}.v`;
  return key.startsWith(prefix) && /^[1-9]\d*$/.test(key.slice(prefix.length));
}

const FNV64_OFFSET = 0xcbf29ce484222325n;
const FNV64_PRIME = 0x100000001b3n;
const MASK64 = 0xffffffffffffffffn;

/** 64-bit FNV-1a of `bytes`, as Go's `hash/fnv.New64a`. */
export function fnv64a(bytes: Uint8Array): bigint {
  let h = FNV64_OFFSET;
  for (const b of bytes) {
    h ^= BigInt(b);
    h = (h * FNV64_PRIME) & MASK64;
  }
  return h;
}

// RFC 4648 base32 bit packing with a lower-case alphabet whose digits are 1-6, so every
// character is valid in a Secret name.
const BASE32_ALPHABET = 'abcdefghijklmnopqrstuvwxyz123456';

/** Base32 (alphabet a-z1-6, no padding) of the 8 big-endian bytes of `hash`: always 13 characters. */
export function base32Hash(hash: bigint): string {
  // 64 bits in 13 groups of 5: the last group holds the 4 lowest bits followed by one zero bit.
  let bits = (hash & MASK64) << 1n;
  let out = '';
  for (let i = 0; i < 13; i++) {
    out = (BASE32_ALPHABET[Number(bits & 31n)] ?? '') + out;
    bits >>= 5n;
  }
  return out;
}

/** Name of the extra chunk Secret holding `piece` of the revision stored under `key`. */
export function chunkSecretName(key: string, piece: Uint8Array): string {
  return `${key}-${base32Hash(fnv64a(piece))}`;
}

/**
 * True when `name` has the shape of a chunk of the revision stored under `key` (chunkSecretName:
 * `<key>-` and 13 characters of the hash alphabet). Another extension's records never match:
 * their names end in `.v<revision>`, whose dot is not in the alphabet.
 */
export function isChunkNameOf(name: string, key: string): boolean {
  return name.length === key.length + 14 && name.startsWith(`${key}-`) && /^[a-z1-6]{13}$/.test(name.slice(key.length + 1));
}

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** True when `value` is a valid Kubernetes label value (at most 63 characters, alphanumeric ends). */
export function isLabelValue(value: string): boolean {
  return value.length <= 63 && LABEL_VALUE.test(value);
}

/** A bundle's identity as stored on the index Secret. */
interface BundleIdentity {
  package: string;
  name: string;
  version: string;
  release?: string | undefined;
  image: string;
}

/**
 * Splits the bundle identity into labels (valid label values) and annotations (the rest, e.g.
 * image references and versions with `+`). `bundle-release` is written only when defined, so
 * a reader can tell "unset" from "empty".
 */
export function bundleMetadata(bundle: BundleIdentity): { labels: Record<string, string>; annotations: Record<string, string> } {
  const entries: [string, string | undefined][] = [
    [BundleKey.name, bundle.name],
    [BundleKey.package, bundle.package],
    [BundleKey.version, bundle.version],
    [BundleKey.reference, bundle.image],
    [BundleKey.release, bundle.release],
  ];
  const labels: Record<string, string> = {};
  const annotations: Record<string, string> = {};
  for (const [key, value] of entries) {
    if (value === undefined) continue;
    if (isLabelValue(value)) labels[key] = value;
    else annotations[key] = value;
  }
  return { labels, annotations };
}

/** A label selector string from equality requirements. */
export function selector(requirements: Record<string, string>): string {
  return Object.entries(requirements)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** The key (index Secret name) of `release`, once its identity is checked. */
export function keyOf(release: Release): string {
  checkExtension(release.extension);
  if (!Number.isSafeInteger(release.revision) || release.revision < 1) {
    throw new Error(`release ${JSON.stringify(release.extension)} has invalid revision ${release.revision}`);
  }
  return releaseKey(release.extension, release.revision);
}

/**
 * True when `extension` can name release records: it is a Secret-name part and the `name` label
 * value, so both rules apply. No record of any other name can exist.
 */
export function isReleaseName(extension: string): boolean {
  return extension !== '' && isLabelValue(extension) && dns1123SubdomainErrors(extension).length === 0;
}

/** Throws unless `extension` can name release records ({@link isReleaseName}). */
export function checkExtension(extension: string): void {
  if (!isReleaseName(extension)) {
    throw new Error(`invalid release name ${JSON.stringify(extension)}: must be a DNS-1123 subdomain of at most 63 characters`);
  }
}
