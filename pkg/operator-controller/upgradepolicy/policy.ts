/**
 * Update policies (decision 0096): whether a move to the picked bundle happens now or waits for
 * an approval (pure):
 *
 * - `Automatic` (also when absent, as upstream): always now.
 * - `Manual`: only when APPROVED_BUNDLE_ANNOTATION names exactly the picked bundle.
 * - `AutomaticPatch`: now for a higher patch of the installed major.minor that grants no new
 *   permission; otherwise as `Manual`.
 * - Any other value: as `Manual`, said in the decision's reasons.
 */
import { APPROVED_BUNDLE_ANNOTATION, UPDATE_POLICY_ANNOTATION, UpdatePolicy } from '../../shared/api/index.ts';
import { compareIdentifiers, compareRelease, compareSemver, parseRelease, parseSemver, type Identifier } from '../../shared/semver/index.ts';

/** The update policy an extension's annotations ask for. */
export interface PolicySetting {
  policy: UpdatePolicy;
  /** Set: the annotation held this value, which is not a policy (`policy` is then Manual). */
  invalid?: string;
  /** The annotation names a policy other than Automatic (or an invalid one): the UpgradeAvailable condition is kept. */
  reported: boolean;
  /** APPROVED_BUNDLE_ANNOTATION, trimmed; '' when absent. */
  approvedBundle: string;
}

/** Reads the update policy and the approval from `annotations`. */
export function policySetting(annotations: Readonly<Record<string, string>> | undefined): PolicySetting {
  const raw = annotations?.[UPDATE_POLICY_ANNOTATION];
  const approvedBundle = (annotations?.[APPROVED_BUNDLE_ANNOTATION] ?? '').trim();
  if (raw === undefined || raw.trim() === UpdatePolicy.Automatic) return { policy: UpdatePolicy.Automatic, reported: false, approvedBundle };
  const value = raw.trim();
  if (value === UpdatePolicy.Manual || value === UpdatePolicy.AutomaticPatch) return { policy: value, reported: true, approvedBundle };
  return { policy: UpdatePolicy.Manual, invalid: raw, reported: true, approvedBundle };
}

/** A bundle as the decision sees it. */
interface PolicyBundle {
  name: string;
  version: string;
  /** The catalog's release of the version (bundle release support), if any. */
  release?: string;
}

/** What a move from `from` to `to` is judged on. */
interface UpgradeCandidate {
  from: PolicyBundle;
  to: PolicyBundle;
  /** The move grants permissions the installed bundle does not (one compact line), or '' when none. */
  gainedPermissions: string;
}

/** Now, or held with the reasons (each a phrase) the condition reports. */
type PolicyDecision = { proceed: true; approved: boolean } | { proceed: false; reasons: string[] };

/**
 * Decides whether `c` happens now under `s`. `Automatic` never looks at permissions; every
 * other policy holds a move that gains permissions unless it is approved.
 */
export function decideUpgrade(s: PolicySetting, c: UpgradeCandidate): PolicyDecision {
  if (s.policy === UpdatePolicy.Automatic) return { proceed: true, approved: false };
  if (s.approvedBundle === c.to.name) return { proceed: true, approved: true };
  const reasons: string[] = [];
  if (s.invalid !== undefined) {
    reasons.push(
      `the update policy ${JSON.stringify(s.invalid)} is not one of Automatic, Manual, AutomaticPatch, so upgrades are held as with Manual`,
    );
  } else if (s.policy === UpdatePolicy.Manual) {
    reasons.push('the update policy is Manual');
  } else if (!isPatchUpgrade(c.from, c.to)) {
    reasons.push(`the update policy is AutomaticPatch and ${c.to.version} is not a patch release above ${c.from.version}`);
  }
  if (c.gainedPermissions !== '') reasons.push(`it grants more permissions: ${c.gainedPermissions}`);
  if (reasons.length === 0) return { proceed: true, approved: false };
  if (s.approvedBundle !== '') reasons.push(`the approval names ${JSON.stringify(s.approvedBundle)}, not this bundle`);
  return { proceed: false, reasons };
}

/**
 * True when `to` is above `from` with the same major and minor: a higher patch, or the same
 * version with a higher build suffix or catalog release (a re-release).
 */
export function isPatchUpgrade(from: PolicyBundle, to: PolicyBundle): boolean {
  const a = parseSemver(from.version);
  const b = parseSemver(to.version);
  if (!a.ok || !b.ok || a.value.major !== b.value.major || a.value.minor !== b.value.minor) return false;
  const order = compareSemver(b.value, a.value);
  if (order !== 0) return order > 0;
  const build = compareIdentifiers(b.value.build.map(identifier), a.value.build.map(identifier));
  if (build !== 0) return build > 0;
  const ra = parseRelease(from.release ?? '');
  const rb = parseRelease(to.release ?? '');
  return ra.ok && rb.ok && compareRelease(rb.value, ra.value) > 0;
}

function identifier(str: string): Identifier {
  return { str, num: /^(0|[1-9]\d*)$/.test(str) ? BigInt(str) : undefined };
}
