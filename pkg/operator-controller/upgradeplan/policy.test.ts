import { describe, expect, it } from 'vitest';
import { APPROVED_BUNDLE_ANNOTATION, UPDATE_POLICY_ANNOTATION } from '../../shared/api/index.ts';
import { policyDecision } from './index.ts';

describe('policyDecision', () => {
  const cases: { name: string; policy?: string; approved?: string; to: string; gains?: boolean; want: 'install' | 'hold'; reason: RegExp }[] = [
    { name: 'no annotation: Automatic', to: '2.0.0', gains: true, want: 'install', reason: /Automatic/ },
    { name: 'Automatic installs permission gains too', policy: 'Automatic', to: '2.0.0', gains: true, want: 'install', reason: /Automatic/ },
    { name: 'Manual holds', policy: 'Manual', to: '1.0.1', want: 'hold', reason: /Manual: held until approved$/ },
    {
      name: 'Manual approved for the pick installs',
      policy: 'Manual',
      approved: 'foo.v1.0.1',
      to: '1.0.1',
      want: 'install',
      reason: /names foo.v1.0.1/,
    },
    {
      name: 'Manual with a stale approval holds and says so',
      policy: 'Manual',
      approved: 'foo.v1.0.0',
      to: '1.0.1',
      want: 'hold',
      reason: /approval names foo.v1.0.0, not the picked bundle/,
    },
    { name: 'AutomaticPatch installs a patch release', policy: 'AutomaticPatch', to: '1.0.1', want: 'install', reason: /is a patch release/ },
    { name: 'AutomaticPatch holds a minor release', policy: 'AutomaticPatch', to: '1.1.0', want: 'hold', reason: /not a patch release/ },
    {
      name: 'AutomaticPatch holds a patch that gains permissions',
      policy: 'AutomaticPatch',
      to: '1.0.1',
      gains: true,
      want: 'hold',
      reason: /gains permissions/,
    },
    {
      name: 'AutomaticPatch approved minor installs',
      policy: 'AutomaticPatch',
      approved: 'foo.v1.1.0',
      to: '1.1.0',
      want: 'install',
      reason: /approved/,
    },
    { name: 'an unparsable version is not a patch release', policy: 'AutomaticPatch', to: 'x', want: 'hold', reason: /not a patch release/ },
    {
      name: 'an unknown policy holds as Manual',
      policy: 'automatic',
      to: '1.0.1',
      want: 'hold',
      reason: /"automatic" is not one of .* held as Manual/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const annotations: Record<string, string> = {};
      if (c.policy !== undefined) annotations[UPDATE_POLICY_ANNOTATION] = c.policy;
      if (c.approved !== undefined) annotations[APPROVED_BUNDLE_ANNOTATION] = c.approved;
      const d = policyDecision({
        annotations,
        installedVersion: '1.0.0',
        picked: { bundle: `foo.v${c.to}`, version: c.to },
        gainsPermissions: c.gains ?? false,
      });
      expect(d.decision).toBe(c.want);
      expect(d.reason).toMatch(c.reason);
      expect(d.policy).toBe(c.policy ?? 'Automatic');
    });
  }
});
