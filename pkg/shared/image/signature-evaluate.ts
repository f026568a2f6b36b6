/**
 * Whether a policy lets an image be pulled (containers/image's PolicyContext.IsRunningImageAllowed):
 * every requirement of the matching scope must accept; signedBy accepts when one signature is
 * made by a trusted key, signs this manifest digest and claims an acceptable identity. Reading
 * keys and signatures is injected.
 */
import { familiarReference, type ImageReference } from './reference.ts';
import { identityMatches } from './signature-identity.ts';
import { readGpgKeys, verifySimpleSigning } from './signature-gpg.ts';
import type { Policy, Requirement, SigstoreKeySource } from './signature-policy.ts';
import {
  SIGSTORE_SIGNATURE_ANNOTATION,
  SIGSTORE_SIGNATURE_MIME_TYPE,
  readSigstorePublicKey,
  verifySigstorePayload,
  type SigstoreAttachment,
} from './signature-sigstore.ts';
import { requirementsFor } from './signature-scope.ts';

/** The image being pulled: the reference as written (tag or digest) and its manifest digest. */
export interface PolicyImage {
  ref: ImageReference;
  digest: string;
}

export interface EvaluateDeps {
  /** A key file's bytes (signedBy keyPath/keyPaths). */
  readKey(path: string): Promise<Uint8Array>;
  /** The image's "simple signing" signatures (none: empty). */
  signatures(image: PolicyImage): Promise<Uint8Array[]>;
  /** The layers of the image's sigstore attachment manifest (none, or attachments not enabled: empty). */
  sigstoreAttachments(image: PolicyImage): Promise<SigstoreAttachment[]>;
}

type PolicyDecision = { allowed: true; scope: string } | { allowed: false; scope: string; requirement: string; reason: string };

/** Evaluates `policy` for `image`. Infrastructure failures (unreadable signature store) reject with their message. */
export async function evaluatePolicy(policy: Policy, image: PolicyImage, deps: EvaluateDeps): Promise<PolicyDecision> {
  const { scope, requirements } = requirementsFor(policy, image.ref);
  for (const req of requirements) {
    const reason = await refusal(req, image, deps);
    if (reason !== undefined) return { allowed: false, scope, requirement: describe(req), reason };
  }
  return { allowed: true, scope };
}

/** A short description of a requirement for Events and logs: its type and key source. */
function describe(req: Requirement): string {
  if (req.type === 'sigstoreSigned') {
    const source = req.keys === undefined ? (req.certificates ?? 'no keys') : keySource(req.keys);
    return `sigstoreSigned (${source}${req.rekor ? ', rekor' : ''}, signedIdentity ${req.signedIdentity.type})`;
  }
  if (req.type !== 'signedBy') return req.type;
  return `signedBy (${req.keyType}, ${keySource(req.keys)}, signedIdentity ${req.signedIdentity.type})`;
}

function keySource(keys: SigstoreKeySource): string {
  switch (keys.kind) {
    case 'path':
      return `keyPath ${keys.path}`;
    case 'paths':
      return `keyPaths ${keys.paths.join(',')}`;
    case 'data':
      return 'keyData';
    case 'datas':
      return 'keyDatas';
  }
}

/** Why `req` refuses `image` (undefined: accepted). Texts are containers/image's. */
async function refusal(req: Requirement, image: PolicyImage, deps: EvaluateDeps): Promise<string | undefined> {
  switch (req.type) {
    case 'insecureAcceptAnything':
      return undefined;
    case 'reject':
      return `Running image docker://${familiarReference(image.ref)} is rejected by policy.`;
    case 'signedBaseLayer':
      return 'signedBaseLayer not implemented yet!';
    case 'sigstoreSigned':
      return sigstoreRefusal(req, image, deps);
    case 'signedBy':
      return signedByRefusal(req, image, deps);
  }
}

async function signedByRefusal(req: Extract<Requirement, { type: 'signedBy' }>, image: PolicyImage, deps: EvaluateDeps): Promise<string | undefined> {
  if (req.keyType !== 'GPGKeys') return `"Unimplemented "keyType" value "${req.keyType}"`;
  let signatures: Uint8Array[];
  try {
    signatures = await deps.signatures(image);
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  const rejections: string[] = [];
  for (const sig of signatures) {
    const reason = await signatureRefusal(req, image, sig, deps);
    if (reason === undefined) return undefined;
    rejections.push(reason);
  }
  if (rejections.length === 0) return 'A signature was required, but no signature exists';
  if (rejections.length === 1) return rejections[0];
  return `None of the signatures were accepted, reasons: ${rejections.join('; ')}`;
}

async function signatureRefusal(
  req: Extract<Requirement, { type: 'signedBy' }>,
  image: PolicyImage,
  sig: Uint8Array,
  deps: EvaluateDeps,
): Promise<string | undefined> {
  try {
    const blobs =
      req.keys.kind === 'data'
        ? [req.keys.data]
        : await Promise.all((req.keys.kind === 'path' ? [req.keys.path] : req.keys.paths).map((p) => deps.readKey(p)));
    const keys = (await Promise.all(blobs.map((b) => readGpgKeys(b)))).flat();
    if (keys.length === 0) return 'No public keys imported';
    const claims = await verifySimpleSigning(sig, keys);
    if (claims.dockerManifestDigest !== image.digest) return `Signature for digest ${claims.dockerManifestDigest} does not match`;
    if (!identityMatches(req.signedIdentity, image.ref, claims.dockerReference))
      return `Signature for identity ${claims.dockerReference} is not accepted`;
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * sigstoreSigned as policy_eval_sigstore.go: lookaside signatures count as non-sigstore ones,
 * attachment layers of another media type as non-signature attachments; one accepted signature
 * suffices. Certificate roots (fulcio, pki) and Rekor SETs are not verified here: such a
 * requirement refuses every image rather than accepting unverified ones (decision 0116).
 */
async function sigstoreRefusal(
  req: Extract<Requirement, { type: 'sigstoreSigned' }>,
  image: PolicyImage,
  deps: EvaluateDeps,
): Promise<string | undefined> {
  if (req.keys === undefined) return `sigstoreSigned with ${req.certificates ?? 'certificates'} is not supported by this implementation`;
  if (req.rekor) return 'sigstoreSigned with a Rekor public key is not supported by this implementation';
  let simple: Uint8Array[];
  let attachments: SigstoreAttachment[];
  try {
    simple = await deps.signatures(image);
    attachments = await deps.sigstoreAttachments(image);
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  const signatures = attachments.filter((a) => a.mimeType === SIGSTORE_SIGNATURE_MIME_TYPE);
  const rejections: string[] = [];
  for (const sig of signatures) {
    const reason = await sigstoreSignatureRefusal(req, req.keys, image, sig, deps);
    if (reason === undefined) return undefined;
    rejections.push(reason);
  }
  if (rejections.length === 0) {
    const others = attachments.length - signatures.length;
    if (simple.length === 0 && others === 0) return 'A signature was required, but no signature exists';
    return `A signature was required, but no signature exists (${simple.length} non-sigstore signatures, ${others} sigstore non-signature attachments)`;
  }
  if (rejections.length === 1) return rejections[0];
  return `None of the signatures were accepted, reasons: ${rejections.join('; ')}`;
}

async function sigstoreSignatureRefusal(
  req: Extract<Requirement, { type: 'sigstoreSigned' }>,
  keys: SigstoreKeySource,
  image: PolicyImage,
  sig: SigstoreAttachment,
  deps: EvaluateDeps,
): Promise<string | undefined> {
  try {
    const pems =
      keys.kind === 'data'
        ? [keys.data]
        : keys.kind === 'datas'
          ? keys.datas
          : await Promise.all((keys.kind === 'path' ? [keys.path] : keys.paths).map((p) => deps.readKey(p)));
    const publicKeys = pems.map((pem) => readSigstorePublicKey(pem));
    const base64Signature = sig.annotations[SIGSTORE_SIGNATURE_ANNOTATION];
    if (base64Signature === undefined) return `missing ${SIGSTORE_SIGNATURE_ANNOTATION} annotation`;
    const claims = verifySigstorePayload(publicKeys, sig.payload, base64Signature);
    if (claims.dockerManifestDigest !== image.digest) return `Signature for digest ${claims.dockerManifestDigest} does not match`;
    if (!identityMatches(req.signedIdentity, image.ref, claims.dockerReference))
      return `Signature for identity ${JSON.stringify(claims.dockerReference)} is not accepted`;
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
