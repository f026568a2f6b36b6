/**
 * Name and identifier rules validation applies: bundle release strings (operator-registry
 * `model.NewRelease`) and Kubernetes DNS-1123 labels (apimachinery `IsDNS1123Label`), with
 * upstream's error texts.
 */
import { err, ok, type Result } from '../errors/index.ts';
import { type PRVersion, parsePRVersion } from './blang.ts';
import { goQuote } from '../gotext/index.ts';

const RELEASE_MAX_LENGTH = 20;

/**
 * Parses a release: dot-separated semver pre-release identifiers, at most 20 bytes. "" is no
 * release (empty list). Errors: `invalid release "x": segment N: <blang error>` (one line per
 * bad segment) or `invalid release "x": exceeds maximum length of 20 characters`.
 */
export function parseRelease(release: string): Result<PRVersion[], string> {
  if (release === '') return ok([]);
  if (Buffer.byteLength(release) > RELEASE_MAX_LENGTH) {
    return err(`invalid release ${goQuote(release)}: exceeds maximum length of ${RELEASE_MAX_LENGTH} characters`);
  }
  const out: PRVersion[] = [];
  const errs: string[] = [];
  release.split('.').forEach((segment, i) => {
    const pr = parsePRVersion(segment);
    if (pr.ok) out.push(pr.value);
    else errs.push(`segment ${i}: ${pr.error}`);
  });
  // errors.Join separates messages with newlines.
  if (errs.length > 0) return err(`invalid release ${goQuote(release)}: ${errs.join('\n')}`);
  return ok(out);
}

