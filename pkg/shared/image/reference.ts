/**
 * Docker image references (`domain/path[:tag][@algorithm:hex]`) parsed as upstream parses them
 * (`reference.ParseNamed`): fully qualified and canonical (`quay.io/ns/img:1`, not `ns/img:1` or
 * `docker.io/busybox`), with upstream's error texts.
 */
import { TerminalError } from '../errors/index.ts';
import { validateDigest } from './digest.ts';
import { goQuote } from '../../gocompat/gotext/index.ts';

/** A parsed, fully qualified image reference. */
export interface ImageReference {
  /** Registry host with optional port as written, e.g. `quay.io` or `127.0.0.1:5000`. */
  readonly domain: string;
  /** Repository path inside the registry, e.g. `ns/img`. */
  readonly path: string;
  /** `domain/path`. */
  readonly name: string;
  readonly tag?: string;
  /** `algorithm:hex`, validated. */
  readonly digest?: string;
}

const DEFAULT_DOMAIN = 'docker.io';
const LEGACY_DEFAULT_DOMAIN = 'index.docker.io';
const OFFICIAL_REPO_PREFIX = 'library/';
const NAME_TOTAL_LENGTH_MAX = 255;
// Real references are a few hundred characters; the bound keeps regex backtracking cheap.
const INPUT_LENGTH_MAX = 4096;

const ALNUM = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|[-]+)';
const PATH_COMPONENT = `${ALNUM}(?:${SEPARATOR}${ALNUM})*`;
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const IPV6 = '\\[(?:[a-fA-F0-9:]+)\\]';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|${IPV6})(?::[0-9]+)?`;
const REMOTE_NAME = `${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const NAME = `(?:${DOMAIN}/)?${REMOTE_NAME}`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}';

const REFERENCE_RE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const ANCHORED_NAME_RE = new RegExp(`^(?:(${DOMAIN})/)?(${REMOTE_NAME})$`);
const IDENTIFIER_RE = /^[a-f0-9]{64}$/;

/**
 * Parses `s` with the docker grammar after adding the default domain where the docker client
 * would (`reference.ParseNormalizedNamed`). Throws a plain Error with upstream's cause text.
 */
export function parseNormalized(s: string): ImageReference {
  if (IDENTIFIER_RE.test(s)) {
    throw new Error(`invalid repository name (${s}), cannot specify 64-byte hexadecimal strings`);
  }
  const [domain, remainder] = splitDockerDomain(s);
  const tagSep = remainder.indexOf(':');
  const remoteName = tagSep >= 0 ? remainder.slice(0, tagSep) : remainder;
  if (remoteName.toLowerCase() !== remoteName) {
    throw new Error('invalid reference format: repository name must be lowercase');
  }
  return parseStrict(`${domain}/${remainder}`);
}

/** `reference.Parse`: the grammar alone, no normalisation. */
function parseStrict(s: string): ImageReference {
  const m = s.length <= INPUT_LENGTH_MAX ? REFERENCE_RE.exec(s) : null;
  if (m === null) {
    if (s === '') throw new Error('repository name must have at least one component');
    if (s.length <= INPUT_LENGTH_MAX && REFERENCE_RE.test(s.toLowerCase())) {
      throw new Error('repository name must be lowercase');
    }
    throw new Error('invalid reference format');
  }
  const nameMatch = ANCHORED_NAME_RE.exec(m[1] ?? '');
  const domain = nameMatch?.[1] ?? '';
  const path = nameMatch?.[2] ?? m[1] ?? '';
  if (path.length > NAME_TOTAL_LENGTH_MAX) {
    throw new Error(`repository name must not be more than ${NAME_TOTAL_LENGTH_MAX} characters`);
  }
  const digest = m[3];
  if (digest !== undefined) {
    const problem = validateDigest(digest);
    if (problem !== undefined) throw new Error(problem);
  }
  return {
    domain,
    path,
    name: domain === '' ? path : `${domain}/${path}`,
    ...(m[2] !== undefined ? { tag: m[2] } : {}),
    ...(digest !== undefined ? { digest } : {}),
  };
}

function splitDockerDomain(name: string): [string, string] {
  const i = name.indexOf('/');
  let domain: string;
  let remainder: string;
  const first = i >= 0 ? name.slice(0, i) : '';
  if (i === -1 || (!/[.:]/.test(first) && first !== 'localhost')) {
    domain = DEFAULT_DOMAIN;
    remainder = name;
  } else {
    domain = first;
    remainder = name.slice(i + 1);
  }
  if (domain === LEGACY_DEFAULT_DOMAIN) domain = DEFAULT_DOMAIN;
  if (domain === DEFAULT_DOMAIN && !remainder.includes('/')) {
    remainder = OFFICIAL_REPO_PREFIX + remainder;
  }
  return [domain, remainder];
}

/** The reference as a string: `name[:tag][@digest]`. */
export function formatReference(ref: ImageReference): string {
  let s = ref.name;
  if (ref.tag !== undefined) s += `:${ref.tag}`;
  if (ref.digest !== undefined) s += `@${ref.digest}`;
  return s;
}

/** The short name the docker CLI shows (`docker.io/library/x` is `x`, `docker.io/ns/x` is `ns/x`). */
export function familiarReference(ref: ImageReference): string {
  const full = formatReference(ref);
  if (ref.domain !== DEFAULT_DOMAIN) return full;
  let rest = full.slice(DEFAULT_DOMAIN.length + 1);
  const parts = ref.path.split('/');
  if (parts.length === 2 && parts[0] === 'library') rest = rest.slice(OFFICIAL_REPO_PREFIX.length);
  return rest;
}

/**
 * Parses an image reference that must be fully qualified and canonical.
 *
 * @throws TerminalError `error parsing image reference "<s>": <cause>` when `s` does not
 *   parse or is not in canonical form (cause `repository name must be canonical`).
 */
export function parseImageReference(s: string): ImageReference {
  try {
    const ref = parseNormalized(s);
    if (formatReference(ref) !== s) throw new Error('repository name must be canonical');
    return ref;
  } catch (err) {
    const cause = err instanceof Error ? err.message : String(err);
    throw new TerminalError(`error parsing image reference ${goQuote(s)}: ${cause}`, { cause: err });
  }
}

/**
 * Checks that `ref` names exactly one image: a tag or a digest, not neither, not both.
 *
 * @throws TerminalError `error creating reference: Docker reference <ref> has neither a tag
 *   nor a digest` or `error creating reference: Docker references with both a tag and digest
 *   are currently not supported`.
 */
export function requireTagOrDigest(ref: ImageReference): void {
  let cause: string | undefined;
  if (ref.tag === undefined && ref.digest === undefined) {
    cause = `Docker reference ${familiarReference(ref)} has neither a tag nor a digest`;
  } else if (ref.tag !== undefined && ref.digest !== undefined) {
    cause = 'Docker references with both a tag and digest are currently not supported';
  }
  if (cause !== undefined) throw new TerminalError(`error creating reference: ${cause}`);
}

/** The canonical digest reference `<domain>/<path>@<digest>` (tag dropped). */
export function canonicalReference(ref: ImageReference, digest: string): string {
  return `${ref.name}@${digest}`;
}

/** A copy of `ref` pinned to `digest`, without its tag. */
export function withDigest(ref: ImageReference, digest: string): ImageReference {
  return { domain: ref.domain, path: ref.path, name: ref.name, digest };
}
