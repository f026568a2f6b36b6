/**
 * Validation of image pull specs as `reference.ParseNormalizedNamed` does it: familiar names
 * normalised to `docker.io/library/...`, lowercase names, tags `[\w][\w.-]{0,127}`, digests of
 * an available algorithm and length. Error texts are upstream's.
 */

const ALPHA_NUMERIC = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|[-]*)';
const NAME_COMPONENT = `${ALPHA_NUMERIC}(?:(?:${SEPARATOR}${ALPHA_NUMERIC})+)?`;
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `${DOMAIN_COMPONENT}(?:(?:\\.${DOMAIN_COMPONENT})+)?(?::[0-9]+)?`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}';
const NAME = `(?:${DOMAIN}/)?${NAME_COMPONENT}(?:(?:/${NAME_COMPONENT})+)?`;
const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const IDENTIFIER = /^[a-f0-9]{64}$/;
const GO_DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;
const NAME_TOTAL_LENGTH_MAX = 255;

// go-digest algorithms linked into opm, with their hex lengths.
const DIGEST_HEX_LENGTH = new Map([
  ['sha256', 64],
  ['sha384', 96],
  ['sha512', 128],
]);

function splitDockerDomain(name: string): [string, string] {
  const i = name.indexOf('/');
  let domain: string;
  let remainder: string;
  if (i === -1 || (!/[.:]/.test(name.slice(0, i)) && name.slice(0, i) !== 'localhost')) {
    [domain, remainder] = ['docker.io', name];
  } else {
    [domain, remainder] = [name.slice(0, i), name.slice(i + 1)];
  }
  if (domain === 'index.docker.io') domain = 'docker.io';
  if (domain === 'docker.io' && !remainder.includes('/')) remainder = `library/${remainder}`;
  return [domain, remainder];
}

// go-digest `Digest.Validate`.
function digestError(d: string): string | undefined {
  const i = d.indexOf(':');
  if (i <= 0 || i + 1 === d.length) return 'invalid checksum digest format';
  const hexLength = DIGEST_HEX_LENGTH.get(d.slice(0, i));
  if (hexLength === undefined) return GO_DIGEST.test(d) ? 'unsupported digest algorithm' : 'invalid checksum digest format';
  const encoded = d.slice(i + 1);
  if (encoded.length !== hexLength) return 'invalid checksum digest length';
  return /^[a-f0-9]+$/.test(encoded) ? undefined : 'invalid checksum digest format';
}

/**
 * Returns why `ref` is not a valid normalized image reference (`ParseNormalizedNamed`), e.g.
 * `invalid reference format`, or undefined when it is valid.
 */
export function imageReferenceError(ref: string): string | undefined {
  if (IDENTIFIER.test(ref)) return `invalid repository name (${ref}), cannot specify 64-byte hexadecimal strings`;
  const [domain, remainder] = splitDockerDomain(ref);
  const tagSep = remainder.indexOf(':');
  const remoteName = tagSep > -1 ? remainder.slice(0, tagSep) : remainder;
  if (remoteName.toLowerCase() !== remoteName) return 'invalid reference format: repository name must be lowercase';
  const full = `${domain}/${remainder}`;
  const m = REFERENCE.exec(full);
  if (m === null) {
    if (full === '') return 'repository name must have at least one component';
    if (REFERENCE.test(full.toLowerCase())) return 'repository name must be lowercase';
    return 'invalid reference format';
  }
  if ((m[1] ?? '').length > NAME_TOTAL_LENGTH_MAX) return `repository name must not be more than ${NAME_TOTAL_LENGTH_MAX} characters`;
  if (m[3] !== undefined) return digestError(m[3]);
  return undefined;
}
