/** Content digests (`algorithm:hex`): validation with go-digest's texts, hashing, verification of blobs. */
import { createHash, type Hash } from 'node:crypto';

/** Hex length of each supported algorithm. */
const HEX_LENGTH: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };
const DIGEST_RE = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;

/**
 * Why `digest` is not a valid digest, in go-digest's words (`invalid checksum digest format`,
 * `invalid checksum digest length`, `unsupported digest algorithm`), or undefined when valid.
 */
export function validateDigest(digest: string): string | undefined {
  const i = digest.indexOf(':');
  if (i <= 0 || i + 1 === digest.length) return 'invalid checksum digest format';
  const algorithm = digest.slice(0, i);
  const encoded = digest.slice(i + 1);
  const length = HEX_LENGTH[algorithm];
  if (length === undefined) {
    return DIGEST_RE.test(digest) ? 'unsupported digest algorithm' : 'invalid checksum digest format';
  }
  if (encoded.length !== length) return 'invalid checksum digest length';
  if (!/^[a-f0-9]+$/.test(encoded)) return 'invalid checksum digest format';
  return undefined;
}

/** True when `digest` is a valid digest of a supported algorithm. */
export function isDigest(digest: string): boolean {
  return validateDigest(digest) === undefined;
}

/** A hash for the algorithm of `digest` (which must be valid). */
function hashFor(digest: string): Hash {
  return createHash(digest.slice(0, digest.indexOf(':')));
}

/** `sha256:<hex>` of `data`. */
export function sha256Digest(data: Uint8Array): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** The digest of `data` computed with the algorithm of `expected`. */
function digestLike(expected: string, data: Uint8Array): string {
  const algorithm = expected.slice(0, expected.indexOf(':'));
  return `${algorithm}:${hashFor(expected).update(data).digest('hex')}`;
}

/** Content that does not match its digest or size: the blob is corrupt or truncated. */
export class BlobMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlobMismatchError';
  }
}

/** What a blob is expected to be: its digest and, when known, its size in bytes. */
export interface BlobExpectation {
  digest: string;
  size?: number;
}

/**
 * Passes `source` through unchanged while hashing and counting it. Throws (from the iteration)
 * `size mismatch for <what>: ...` as soon as more than `size` bytes arrive or when the stream
 * ends short, and `digest mismatch for <what>: expected <d>, got <d>` at the end. Consumers
 * must iterate to the end for the check to run.
 */
export async function* verifyStream(source: AsyncIterable<Buffer>, expected: BlobExpectation, what: string): AsyncGenerator<Buffer> {
  const problem = validateDigest(expected.digest);
  if (problem !== undefined) throw new Error(`invalid digest ${expected.digest} for ${what}: ${problem}`);
  const hash = hashFor(expected.digest);
  let seen = 0;
  for await (const chunk of source) {
    seen += chunk.length;
    if (expected.size !== undefined && seen > expected.size) {
      throw new BlobMismatchError(`size mismatch for ${what}: expected ${expected.size} bytes, got more`);
    }
    hash.update(chunk);
    yield chunk;
  }
  if (expected.size !== undefined && seen !== expected.size) {
    throw new BlobMismatchError(`size mismatch for ${what}: expected ${expected.size} bytes, got ${seen}`);
  }
  const algorithm = expected.digest.slice(0, expected.digest.indexOf(':'));
  const actual = `${algorithm}:${hash.digest('hex')}`;
  if (actual !== expected.digest) {
    throw new BlobMismatchError(`digest mismatch for ${what}: expected ${expected.digest}, got ${actual}`);
  }
}

/** Checks a fully read blob against its expectation, with the same messages as verifyStream. */
export function verifyBytes(data: Uint8Array, expected: BlobExpectation, what: string): void {
  const problem = validateDigest(expected.digest);
  if (problem !== undefined) throw new Error(`invalid digest ${expected.digest} for ${what}: ${problem}`);
  if (expected.size !== undefined && data.length !== expected.size) {
    throw new BlobMismatchError(`size mismatch for ${what}: expected ${expected.size} bytes, got ${data.length}`);
  }
  const actual = digestLike(expected.digest, data);
  if (actual !== expected.digest) {
    throw new BlobMismatchError(`digest mismatch for ${what}: expected ${expected.digest}, got ${actual}`);
  }
}
