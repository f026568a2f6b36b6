/**
 * Whether a policy lets an image be pulled (containers/image's PolicyContext.IsRunningImageAllowed):
 * every requirement of the matching scope must accept; signedBy accepts when one signature is
 * made by a trusted key, signs this manifest digest and claims an acceptable identity. Reading
 * keys and signatures is injected.
 */
import { familiarReference, type ImageReference } from './reference.ts';
import { identityMatches } from './signature-identity.ts';
import { readGpgKeys, verifySimpleSigning } from './signature-gpg.ts';
import type { Policy, Requirement } from './signature-policy.ts';
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
  if (req.type !== 'signedBy') return req.type;
  const keys = req.keys;
  const source = keys.kind === 'path' ? `keyPath ${keys.path}` : keys.kind === 'paths' ? `keyPaths ${keys.paths.join(',')}` : 'keyData';
  return `signedBy (${req.keyType}, ${source}, signedIdentity ${req.signedIdentity.type})`;
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
      // Deliberately refused rather than skipped (docs/decisions/0116-signature-policy.md).
      return 'sigstoreSigned signatures are not supported by this implementation';
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
