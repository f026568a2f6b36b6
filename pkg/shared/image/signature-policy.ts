/**
 * containers-policy.json(5) parsed as strictly as containers/image's signature/policy_config.go:
 * unknown keys, unknown requirement types, empty requirement lists, and signedBy without
 * exactly one key source are errors (never a silent "accept anything"). Pure: text in, a
 * Policy or an error text out.
 */
import { err, ok, type Result } from '../errors/index.ts';

/** How a signature's claimed identity must relate to the pulled reference (policy_reference_match.go). */
export type IdentityMatch =
  | { type: 'matchExact' }
  | { type: 'matchRepoDigestOrExact' }
  | { type: 'matchRepository' }
  | { type: 'exactReference'; dockerReference: string }
  | { type: 'exactRepository'; dockerRepository: string }
  | { type: 'remapIdentity'; prefix: string; signedPrefix: string };

/** Where signedBy's keys come from: exactly one of keyPath, keyPaths, keyData. */
type KeySource = { kind: 'path'; path: string } | { kind: 'paths'; paths: string[] } | { kind: 'data'; data: Buffer };

/** Where sigstoreSigned's public keys come from: exactly one of keyPath, keyPaths, keyData, keyDatas. */
export type SigstoreKeySource = KeySource | { kind: 'datas'; datas: Buffer[] };

export type Requirement =
  | { type: 'insecureAcceptAnything' }
  | { type: 'reject' }
  | { type: 'signedBy'; keyType: string; keys: KeySource; signedIdentity: IdentityMatch }
  | { type: 'signedBaseLayer' }
  | {
      type: 'sigstoreSigned';
      /** The public keys (PEM); undefined when the policy uses `fulcio` or `pki` instead. */
      keys: SigstoreKeySource | undefined;
      /** The certificate-based source (`fulcio`, `pki`) when used: not verified here, refused. */
      certificates: 'fulcio' | 'pki' | undefined;
      /** A Rekor public key is configured (its SET would have to be verified): refused here. */
      rekor: boolean;
      signedIdentity: IdentityMatch;
    };

export interface Policy {
  default: Requirement[];
  /** Transport name → scope (`""` is the transport's default) → requirements. */
  transports: Map<string, Map<string, Requirement[]>>;
}

/** GPG key types containers/image accepts in a policy (only GPGKeys is evaluated, as upstream). */
const KEY_TYPES = new Set(['GPGKeys', 'signedByGPGKeys', 'X509Certificates', 'signedByX509CAs']);

class PolicyFormatError extends Error {}

function fail(message: string): never {
  throw new PolicyFormatError(message);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function object(v: unknown, what: string): Record<string, unknown> {
  if (!isObject(v)) fail(`${what} is not a JSON object`);
  return v;
}

/** Rejects keys outside `allowed` (containers/image's ParanoidUnmarshalJSONObject). */
function onlyKeys(o: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(o)) if (!allowed.includes(key)) fail(`Unknown key "${key}"`);
}

function str(v: unknown, field: string): string {
  if (typeof v !== 'string') fail(`Field "${field}" is not a string`);
  return v;
}

/**
 * Parses a policy file's text. Errors read as containers/image's `invalid policy in "<file>": ...`.
 */
export function parsePolicy(text: string, file: string): Result<Policy, string> {
  try {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (e) {
      fail(e instanceof Error ? e.message : String(e));
    }
    const top = object(data, 'policy');
    onlyKeys(top, ['default', 'transports']);
    if (top.default === undefined || top.default === null) fail('Default policy is missing');
    const policy: Policy = { default: requirements(top.default), transports: new Map() };
    if (top.transports !== undefined && top.transports !== null) {
      for (const [transport, scopes] of Object.entries(object(top.transports, 'transports'))) {
        const byScope = new Map<string, Requirement[]>();
        for (const [scope, reqs] of Object.entries(object(scopes, `transport "${transport}"`))) {
          byScope.set(scope, requirements(reqs));
        }
        policy.transports.set(transport, byScope);
      }
    }
    return ok(policy);
  } catch (e) {
    if (e instanceof PolicyFormatError) return err(`invalid policy in ${JSON.stringify(file)}: ${e.message}`);
    throw e;
  }
}

function requirements(v: unknown): Requirement[] {
  if (!Array.isArray(v)) fail('List of verification policy requirements is not a JSON array');
  if (v.length === 0) fail('List of verification policy requirements must not be empty');
  return v.map(requirement);
}

function requirement(v: unknown): Requirement {
  const o = object(v, 'policy requirement');
  const type = o.type;
  switch (type) {
    case 'insecureAcceptAnything':
    case 'reject':
      onlyKeys(o, ['type']);
      return { type };
    case 'signedBy':
      return signedBy(o);
    case 'signedBaseLayer':
      onlyKeys(o, ['type', 'baseLayerIdentity']);
      if (o.baseLayerIdentity === undefined) fail('Field "baseLayerIdentity" is missing');
      identity(o.baseLayerIdentity);
      return { type };
    case 'sigstoreSigned':
      return sigstoreSigned(o);
    default:
      fail(`Unknown policy requirement type ${JSON.stringify(typeof type === 'string' ? type : '')}`);
  }
}

function signedBy(o: Record<string, unknown>): Requirement {
  onlyKeys(o, ['type', 'keyType', 'keyPath', 'keyPaths', 'keyData', 'signedIdentity']);
  const keyType = str(o.keyType ?? '', 'keyType');
  if (!KEY_TYPES.has(keyType)) fail(`invalid keyType ${JSON.stringify(keyType)}`);
  const sources = ['keyPath', 'keyPaths', 'keyData'].filter((k) => o[k] !== undefined);
  if (sources.length === 0) fail('Exactly one of keyPath, keyPaths and keyData must be specified, none of them present');
  if (sources.length > 1) fail('Exactly one of keyPath, keyPaths and keyData must be specified, more than one present');
  let keys: KeySource;
  if (o.keyPath !== undefined) {
    keys = { kind: 'path', path: str(o.keyPath, 'keyPath') };
    if (keys.path === '') fail('exactly one of keyPath, keyPaths and keyData must be specified');
  } else if (o.keyPaths !== undefined) {
    if (!Array.isArray(o.keyPaths)) fail('Field "keyPaths" is not a JSON array');
    keys = { kind: 'paths', paths: o.keyPaths.map((p) => str(p, 'keyPaths')) };
  } else {
    const b64 = str(o.keyData, 'keyData');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) fail('illegal base64 data in "keyData"');
    keys = { kind: 'data', data: Buffer.from(b64, 'base64') };
  }
  const signedIdentity: IdentityMatch = o.signedIdentity === undefined ? { type: 'matchRepoDigestOrExact' } : identity(o.signedIdentity);
  return { type: 'signedBy', keyType, keys, signedIdentity };
}

function base64Field(v: unknown, field: string): Buffer {
  const b64 = str(v, field);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) fail(`illegal base64 data in "${field}"`);
  return Buffer.from(b64, 'base64');
}

function nonEmptyList(v: unknown, field: string): unknown[] {
  if (!Array.isArray(v)) fail(`Field "${field}" is not a JSON array`);
  if (v.length === 0) fail(`"${field}" contains no entries`);
  return v;
}

/** containers/image's policy_config_sigstore.go rules: one key source, Rekor rules, fulcio/pki shapes. */
function sigstoreSigned(o: Record<string, unknown>): Requirement {
  onlyKeys(o, [
    'type',
    'keyPath',
    'keyPaths',
    'keyData',
    'keyDatas',
    'fulcio',
    'pki',
    'rekorPublicKeyPath',
    'rekorPublicKeyPaths',
    'rekorPublicKeyData',
    'rekorPublicKeyDatas',
    'signedIdentity',
  ]);
  const signedIdentity: IdentityMatch =
    o.signedIdentity === undefined || o.signedIdentity === null ? { type: 'matchRepoDigestOrExact' } : identity(o.signedIdentity);
  let keys: SigstoreKeySource | undefined;
  let sources = 0;
  if (o.keyPath !== undefined && o.keyPath !== '') {
    sources++;
    keys = { kind: 'path', path: str(o.keyPath, 'keyPath') };
  }
  if (o.keyPaths !== undefined && o.keyPaths !== null) {
    sources++;
    keys = { kind: 'paths', paths: nonEmptyList(o.keyPaths, 'keyPaths').map((p) => str(p, 'keyPaths')) };
  }
  if (o.keyData !== undefined && o.keyData !== null) {
    sources++;
    keys = { kind: 'data', data: base64Field(o.keyData, 'keyData') };
  }
  if (o.keyDatas !== undefined && o.keyDatas !== null) {
    sources++;
    keys = { kind: 'datas', datas: nonEmptyList(o.keyDatas, 'keyDatas').map((d) => base64Field(d, 'keyDatas')) };
  }
  let certificates: 'fulcio' | 'pki' | undefined;
  for (const kind of ['fulcio', 'pki'] as const) {
    if (o[kind] === undefined || o[kind] === null) continue;
    object(o[kind], kind);
    sources++;
    certificates = kind;
  }
  if (sources !== 1) fail('exactly one of keyPath, keyPaths, keyData, keyDatas, fulcio, and pki must be specified');
  const rekorSources = ['rekorPublicKeyPath', 'rekorPublicKeyPaths', 'rekorPublicKeyData', 'rekorPublicKeyDatas'].filter(
    (k) => o[k] !== undefined && o[k] !== null && o[k] !== '',
  ).length;
  if (rekorSources > 1)
    fail('at most one of rekorPublickeyPath, rekorPublicKeyPaths, rekorPublickeyData and rekorPublicKeyDatas can be used simultaneously');
  if (certificates === 'fulcio' && rekorSources === 0)
    fail('At least one of rekorPublickeyPath, rekorPublicKeyPaths, rekorPublickeyData and rekorPublicKeyDatas must be specified if fulcio is used');
  if (certificates === 'pki' && rekorSources > 0)
    fail('rekorPublickeyPath, rekorPublicKeyPaths, rekorPublickeyData and rekorPublicKeyDatas are not supported for pki');
  return { type: 'sigstoreSigned', keys: certificates === undefined ? keys : undefined, certificates, rekor: rekorSources > 0, signedIdentity };
}

function identity(v: unknown): IdentityMatch {
  const o = object(v, 'signedIdentity');
  const type = o.type;
  switch (type) {
    case 'matchExact':
    case 'matchRepoDigestOrExact':
    case 'matchRepository':
      onlyKeys(o, ['type']);
      return { type };
    case 'exactReference': {
      onlyKeys(o, ['type', 'dockerReference']);
      return { type, dockerReference: str(o.dockerReference, 'dockerReference') };
    }
    case 'exactRepository':
      onlyKeys(o, ['type', 'dockerRepository']);
      return { type, dockerRepository: str(o.dockerRepository, 'dockerRepository') };
    case 'remapIdentity':
      onlyKeys(o, ['type', 'prefix', 'signedPrefix']);
      return { type, prefix: str(o.prefix, 'prefix'), signedPrefix: str(o.signedPrefix, 'signedPrefix') };
    default:
      fail(`Unknown policy reference match type ${JSON.stringify(typeof type === 'string' ? type : '')}`);
  }
}
