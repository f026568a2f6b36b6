/**
 * Whether the identity a signature claims (`critical.identity.docker-reference`) is acceptable
 * for the pulled reference, per a signedIdentity rule (containers/image's
 * policy_reference_match.go). A claim that does not parse never matches.
 */
import { formatReference, parseNormalized, type ImageReference } from './reference.ts';
import type { IdentityMatch } from './signature-policy.ts';

function parse(s: string): ImageReference | undefined {
  try {
    return parseNormalized(s);
  } catch {
    return undefined;
  }
}

function nameOnly(r: ImageReference): boolean {
  return r.tag === undefined && r.digest === undefined;
}

function exact(a: ImageReference, b: ImageReference): boolean {
  return !nameOnly(a) && !nameOnly(b) && formatReference(a) === formatReference(b);
}

// containers/image's order: a claim of a bare repository is never accepted (no default tag is
// added to it); a tagged reference, with or without a digest, must be claimed exactly; a
// digest-only one by its repository (the digest itself is checked against the manifest).
function repoDigestOrExact(intended: ImageReference, signature: ImageReference): boolean {
  if (nameOnly(signature)) return false;
  if (intended.tag !== undefined) return exact(intended, signature);
  if (intended.digest !== undefined) return signature.name === intended.name;
  return false;
}

/** Whether `signed` (the signature's claim) satisfies `rule` for `intended` (the pulled reference). */
export function identityMatches(rule: IdentityMatch, intended: ImageReference, signed: string): boolean {
  const signature = parse(signed);
  if (signature === undefined) return false;
  switch (rule.type) {
    case 'matchExact':
      return exact(intended, signature);
    case 'matchRepoDigestOrExact':
      return repoDigestOrExact(intended, signature);
    case 'matchRepository':
      return signature.name === intended.name;
    case 'exactReference': {
      const want = parse(rule.dockerReference);
      return want !== undefined && exact(want, signature);
    }
    case 'exactRepository': {
      const want = parse(rule.dockerRepository);
      return want !== undefined && signature.name === want.name;
    }
    case 'remapIdentity': {
      const remapped = remap(intended, rule.prefix, rule.signedPrefix);
      return remapped !== undefined && repoDigestOrExact(remapped, signature);
    }
  }
}

/** `intended` with `prefix` replaced by `signedPrefix` when the prefix matches on a name boundary. */
function remap(intended: ImageReference, prefix: string, signedPrefix: string): ImageReference | undefined {
  const s = formatReference(intended);
  if (!s.startsWith(prefix)) return intended;
  const next = s.charAt(prefix.length);
  const boundary = s.length === prefix.length || next === '/' || next === ':' || next === '@';
  if (!boundary) return intended;
  return parse(signedPrefix + s.slice(prefix.length));
}
