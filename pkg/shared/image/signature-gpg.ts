/**
 * Verifying a "simple signing" signature (an OpenPGP signed message whose content is the JSON
 * `{critical: {type, image: {docker-manifest-digest}, identity: {docker-reference}}, optional}`)
 * with the `openpgp` library, as containers/image's openpgp mechanism and simple.go do. Error
 * texts are containers/image's.
 */
import * as openpgp from 'openpgp';

/** The verified, parsed claims of a signature. */
interface SimpleSigningClaims {
  dockerManifestDigest: string;
  dockerReference: string;
}

/** The keys of a key file or keyData: binary keyring, else armored. */
export async function readGpgKeys(data: Uint8Array): Promise<openpgp.PublicKey[]> {
  try {
    return await openpgp.readKeys({ binaryKeys: data });
  } catch (binaryError) {
    try {
      return await openpgp.readKeys({ armoredKeys: Buffer.from(data).toString('utf8') });
    } catch {
      throw binaryError;
    }
  }
}

function fingerprint(key: openpgp.PublicKey): string {
  return key.getFingerprint().toUpperCase();
}

/**
 * Verifies `signature` against `keys` and returns its claims.
 * @throws Error with containers/image's text for each way a signature is refused.
 */
export async function verifySimpleSigning(signature: Uint8Array, keys: openpgp.PublicKey[]): Promise<SimpleSigningClaims> {
  const message = await openpgp.readMessage({ binaryMessage: signature });
  const signerIds = message.getSigningKeyIDs();
  const signer = keys.find((k) => signerIds.some((id) => k.getKeys(id).length > 0));
  if (signer === undefined) {
    const id = signerIds[0]?.toHex() ?? '0';
    throw new Error(`Key not found for key ID ${id} in signature`);
  }
  const verified = await openpgp.verify({ message, verificationKeys: keys, format: 'binary' });
  const first = verified.signatures[0];
  if (first === undefined) throw new Error('not signed');
  try {
    await first.verified;
  } catch (e) {
    throw new Error(`signature error: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  if (!keys.some((k) => fingerprint(k) === fingerprint(signer))) throw new Error(`Signature by key ${fingerprint(signer)} is not accepted`);
  return parseClaims(Buffer.from(verified.data as Uint8Array).toString('utf8'));
}

function object(v: unknown, exact: readonly string[]): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('Invalid signature: JSON object expected');
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!exact.includes(k)) throw new Error(`Invalid signature: Unexpected key "${k}"`);
  for (const k of exact) if (!(k in o)) throw new Error(`Invalid signature: Key "${k}" missing in a JSON object`);
  return o;
}

/** The simple-signing payload, parsed as strictly as simple.go (exact critical fields). */
function parseClaims(text: string): SimpleSigningClaims {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new Error(`Invalid signature: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  const top = object(data, ['critical', 'optional']);
  const critical = object(top.critical, ['type', 'image', 'identity']);
  if (critical.type !== 'atomic container signature') throw new Error(`Invalid signature: Unrecognized signature type ${String(critical.type)}`);
  const image = object(critical.image, ['docker-manifest-digest']);
  const identity = object(critical.identity, ['docker-reference']);
  const digest = image['docker-manifest-digest'];
  const reference = identity['docker-reference'];
  if (typeof digest !== 'string' || !/^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/.test(digest)) {
    throw new Error(`Invalid signature: invalid docker-manifest-digest value ${JSON.stringify(String(digest))}`);
  }
  if (typeof reference !== 'string') throw new Error('Invalid signature: docker-reference is not a string');
  return { dockerManifestDigest: digest, dockerReference: reference };
}
