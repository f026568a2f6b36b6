/**
 * What an extension's update policy (UPDATE_POLICY_ANNOTATION, pkg/shared/api) does with the
 * upgrade the resolution picks (pure), as the annotation's contract states it: `Automatic` (or
 * no annotation) installs it; `Manual` holds it until APPROVED_BUNDLE_ANNOTATION names the
 * picked bundle; `AutomaticPatch` installs a patch release of the installed major.minor and
 * holds the rest; any other value holds as `Manual`; and under every policy but `Automatic`
 * an upgrade that gains permissions is held until approved.
 */
import { APPROVED_BUNDLE_ANNOTATION, UPDATE_POLICY_ANNOTATION, UpdatePolicy } from '../../shared/api/index.ts';
import { parseSemver } from '../../shared/semver/index.ts';

/** What the policy does with the picked upgrade. */
export interface PolicyDecision {
  /** The annotation's value; 'Automatic' when absent. */
  policy: string;
  /** `install`: the controller installs it; `hold`: it waits for approval. */
  decision: 'install' | 'hold';
  /** Why, one sentence. */
  reason: string;
  /** The approved-bundle annotation's value, when set. */
  approvedBundle?: string;
}

/** The facts the decision needs. */
interface PolicyInput {
  annotations: Readonly<Record<string, string>> | undefined;
  installedVersion: string;
  picked: { bundle: string; version: string };
  /** The picked bundle's roles grant something the installed one's do not. */
  gainsPermissions: boolean;
}

/** Whether the update policy installs the picked upgrade or holds it, and why. */
export function policyDecision(input: PolicyInput): PolicyDecision {
  const policy = input.annotations?.[UPDATE_POLICY_ANNOTATION] ?? UpdatePolicy.Automatic;
  const approvedBundle = input.annotations?.[APPROVED_BUNDLE_ANNOTATION];
  const base = { policy, ...(approvedBundle === undefined ? {} : { approvedBundle }) };
  if (policy === UpdatePolicy.Automatic)
    return { ...base, decision: 'install', reason: 'the update policy is Automatic: every upgrade the resolution picks is installed' };
  if (approvedBundle === input.picked.bundle)
    return { ...base, decision: 'install', reason: `approved: ${APPROVED_BUNDLE_ANNOTATION} names ${input.picked.bundle}` };
  const stale = approvedBundle === undefined || approvedBundle === '' ? '' : ` (the approval names ${approvedBundle}, not the picked bundle)`;
  if (policy !== UpdatePolicy.Manual && policy !== UpdatePolicy.AutomaticPatch) {
    return {
      ...base,
      decision: 'hold',
      reason: `the update policy ${JSON.stringify(policy)} is not one of Automatic, Manual, AutomaticPatch: held as Manual until approved${stale}`,
    };
  }
  if (policy === UpdatePolicy.Manual) return { ...base, decision: 'hold', reason: `the update policy is Manual: held until approved${stale}` };
  if (!samePatchLine(input.installedVersion, input.picked.version)) {
    return {
      ...base,
      decision: 'hold',
      reason: `the update policy is AutomaticPatch and ${input.picked.version} is not a patch release of ${input.installedVersion}: held until approved${stale}`,
    };
  }
  if (input.gainsPermissions) {
    return {
      ...base,
      decision: 'hold',
      reason: `the upgrade gains permissions, and only the Automatic policy installs those without approval${stale}`,
    };
  }
  return {
    ...base,
    decision: 'install',
    reason: `the update policy is AutomaticPatch and ${input.picked.version} is a patch release of ${input.installedVersion}`,
  };
}

/** Same major and minor. */
function samePatchLine(from: string, to: string): boolean {
  const a = parseSemver(from);
  const b = parseSemver(to);
  return a.ok && b.ok && a.value.major === b.value.major && a.value.minor === b.value.minor;
}
