/**
 * Cluster versions for the upgrade gate (decision 0046): the current version
 * reduced to its minor (`4.18.0-0.nightly-…` -> 4.18.0), the next minor an upgrade would reach
 * (4.23 -> 5.1, because 4.23 and 5.0 are co-released equivalents whose only target is 5.1) and
 * the effective current version the compatibility rule compares with (4.23 counts as 5.0).
 */
import { err, ok, type Result } from '../../shared/errors/index.ts';
import { parseSemver, type SemVersion } from '../../shared/semver/index.ts';

/** A cluster's `major.minor` (patch, pre-release and build dropped). */
export interface ClusterMinor {
  readonly major: bigint;
  readonly minor: bigint;
}

const SHORT = /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$/;

/**
 * Parses a cluster version: `X.Y`, or a strict semantic version `X.Y.Z[-PRE][+BUILD]` as
 * ClusterVersion `status.desired.version` gives it. Error:
 * `invalid cluster version "<text>": <reason>` (the reason is blang's parse error).
 */
export function parseClusterVersion(text: string): Result<ClusterMinor, string> {
  const short = SHORT.exec(text);
  if (short !== null) return ok({ major: BigInt(short[1] as string), minor: BigInt(short[2] as string) });
  const v = parseSemver(text);
  if (!v.ok) return err(`invalid cluster version ${JSON.stringify(text)}: ${v.error}`);
  return ok({ major: v.value.major, minor: v.value.minor });
}

/** `major.minor`, the way conditions and `olmv1 status` print a cluster version. */
export function formatMinor(v: ClusterMinor): string {
  return `${v.major}.${v.minor}`;
}

/** The minor version an upgrade of `current` reaches: `<major>.<minor+1>`, except 4.23 -> 5.1. */
export function nextMinorVersion(current: ClusterMinor): ClusterMinor {
  if (current.major === 4n && current.minor === 23n) return { major: 5n, minor: 1n };
  return { major: current.major, minor: current.minor + 1n };
}

/** The version a declared maximum must exceed: `current.0`, with 4.23 counted as 5.0.0. */
export function effectiveCurrentVersion(current: ClusterMinor): SemVersion {
  const is423 = current.major === 4n && current.minor === 23n;
  return { major: is423 ? 5n : current.major, minor: is423 ? 0n : current.minor, patch: 0n, pre: [], build: [] };
}

/**
 * The Kubernetes minor of an API server's `/version` gitVersion (`v1.36.3`, `v1.30.2-gke.1`),
 * or an error `invalid Kubernetes version "<text>": ...`.
 */
export function parseKubernetesVersion(gitVersion: string): Result<ClusterMinor, string> {
  const v = parseClusterVersion(gitVersion.startsWith('v') ? gitVersion.slice(1) : gitVersion);
  if (!v.ok) return err(`invalid Kubernetes version ${JSON.stringify(gitVersion)}: ${v.error}`);
  return v;
}
