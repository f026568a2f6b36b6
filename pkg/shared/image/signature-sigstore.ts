/**
 * sigstore ("cosign") signatures with public keys, as containers/image verifies them
 * (signature/policy_eval_sigstore.go, signature/internal/sigstore_payload.go): the signature is
 * the base64 `dev.cosignproject.cosign/signature` annotation of an attachment layer whose bytes
 * are the payload; it must verify with one of the trusted PEM public keys (ECDSA with SHA-256,
 * RSA PKCS#1 v1.5 with SHA-256, or Ed25519, as sigstore's LoadVerifier picks), and the payload,
 * parsed strictly, must name this manifest digest and an acceptable identity. The cryptography
 * is node:crypto's; nothing here is hand-written.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';

/** The media type of a sigstore signature attachment layer. */
export const SIGSTORE_SIGNATURE_MIME_TYPE = 'application/vnd.dev.cosign.simplesigning.v1+json';
/** The annotation holding the base64 signature. */
export const SIGSTORE_SIGNATURE_ANNOTATION = 'dev.cosignproject.cosign/signature';

/** One layer of a `sha256-<hex>.sig` attachment manifest: its media type, bytes and annotations. */
export interface SigstoreAttachment {
  mimeType: string;
  payload: Uint8Array;
  annotations: Record<string, string>;
}

/** What a verified payload claims. */
interface SigstoreClaims {
  dockerManifestDigest: string;
  dockerReference: string;
}

const SIGNATURE_TYPE = 'cosign container image signature';

/**
 * Parses PEM public keys (`PUBLIC KEY`, or PKCS#1 `RSA PUBLIC KEY`).
 * @throws Error `parsing public key: ...`
 */
export function readSigstorePublicKey(pem: Uint8Array): KeyObject {
  try {
    const text = Buffer.from(pem).toString('utf8');
    if (!/-----BEGIN [A-Z ]*PUBLIC KEY-----/.test(text)) throw new Error('PEM decoding failed');
    return createPublicKey({ key: text, format: 'pem' });
  } catch (e) {
    throw new Error(`parsing public key: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

/** sigstore's verifier failure text for `key` (the Go library's, for the same outcomes). */
function verifyOne(key: KeyObject, payload: Uint8Array, signature: Buffer): string | undefined {
  switch (key.asymmetricKeyType) {
    case 'ec':
      return safeVerify('sha256', payload, key, signature) ? undefined : 'invalid signature when validating ASN.1 encoded signature';
    case 'rsa':
      return safeVerify('sha256', payload, key, signature) ? undefined : 'crypto/rsa: verification error';
    case 'ed25519':
      return safeVerify(null, payload, key, signature) ? undefined : 'failed to verify signature';
    default:
      throw new Error(`creating verifier: unsupported public key type ${key.asymmetricKeyType ?? 'unknown'}`);
  }
}

function safeVerify(algorithm: string | null, payload: Uint8Array, key: KeyObject, signature: Buffer): boolean {
  try {
    return verify(algorithm, payload, key, signature);
  } catch {
    return false; // a malformed signature is a failed verification
  }
}

/**
 * Verifies `base64Signature` over `payload` with any of `keys` and returns the payload's claims.
 * @throws Error with containers/image's texts (`cryptographic signature verification failed: ...`,
 *   `base64 decoding: ...`, payload format errors).
 */
export function verifySigstorePayload(keys: readonly KeyObject[], payload: Uint8Array, base64Signature: string): SigstoreClaims {
  if (keys.length === 0) throw new Error('Need at least one public key to verify the sigstore payload, but got 0');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64Signature) || base64Signature.length % 4 !== 0) {
    throw new Error('base64 decoding: illegal base64 data');
  }
  const signature = Buffer.from(base64Signature, 'base64');
  const failures: string[] = [];
  for (const key of keys) {
    const failure = verifyOne(key, payload, signature);
    if (failure === undefined) return parseSigstorePayload(payload);
    failures.push(failure);
  }
  throw new Error(`cryptographic signature verification failed: ${failures.join(', ')}`);
}

class PayloadFormatError extends Error {}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Exactly `fields`, no others (containers/image's ParanoidUnmarshalJSONObjectExactFields). */
function exactFields(v: unknown, fields: readonly string[]): Record<string, unknown> {
  if (!isObject(v)) throw new PayloadFormatError('JSON object expected');
  for (const key of Object.keys(v)) if (!fields.includes(key)) throw new PayloadFormatError(`Unknown key "${key}"`);
  for (const key of fields) if (!(key in v)) throw new PayloadFormatError(`Key "${key}" missing in a JSON object`);
  return v;
}

function stringField(v: unknown, field: string): string {
  if (typeof v !== 'string') throw new PayloadFormatError(`Field "${field}" is not a string`);
  return v;
}

/** The strict payload parse: `critical` (type, image digest, identity) and `optional` (ignored but typed). */
function parseSigstorePayload(payload: Uint8Array): SigstoreClaims {
  try {
    let doc: unknown;
    try {
      doc = JSON.parse(Buffer.from(payload).toString('utf8'));
    } catch (e) {
      throw new PayloadFormatError(e instanceof Error ? e.message : String(e));
    }
    const top = exactFields(doc, ['critical', 'optional']);
    if (top.optional !== null) {
      if (!isObject(top.optional)) throw new PayloadFormatError('JSON object expected');
      const ts = top.optional.timestamp;
      if (ts !== undefined && (typeof ts !== 'number' || !Number.isInteger(ts))) {
        throw new PayloadFormatError('Field optional.timestamp is not is not an integer');
      }
      if (top.optional.creator !== undefined) stringField(top.optional.creator, 'creator');
    }
    const critical = exactFields(top.critical, ['type', 'image', 'identity']);
    const type = stringField(critical.type, 'type');
    if (type !== SIGNATURE_TYPE) throw new PayloadFormatError(`Unrecognized signature type ${type}`);
    const image = exactFields(critical.image, ['docker-manifest-digest']);
    const identity = exactFields(critical.identity, ['docker-reference']);
    return {
      dockerManifestDigest: stringField(image['docker-manifest-digest'], 'docker-manifest-digest'),
      dockerReference: stringField(identity['docker-reference'], 'docker-reference'),
    };
  } catch (e) {
    if (e instanceof PayloadFormatError) throw new Error(e.message, { cause: e });
    throw e;
  }
}
