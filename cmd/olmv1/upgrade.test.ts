import { describe, expect, it } from 'vitest';
import { parseApproveArgs, parsePlanArgs, runUpgradeApprove, runUpgradePlan, type UpgradeCommandDeps } from './upgrade.ts';
import { formatPlan } from './upgrade-format.ts';
import { pickReason, type UpgradePlan } from '../../pkg/olmv1/upgrade/index.ts';

/** Deps whose cluster is never reached: the tests here stop at the arguments. */
const deps: UpgradeCommandDeps = {
  connectCluster: () => Promise.reject(new Error('no cluster in unit tests')),
  catalogContent: {} as UpgradeCommandDeps['catalogContent'],
};

async function run(command: 'plan' | 'approve', args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  const code = await (command === 'plan' ? runUpgradePlan : runUpgradeApprove)(args, io, deps);
  return { code, stdout, stderr };
}

describe('upgrade arguments', () => {
  const usage: [string, 'plan' | 'approve', string[], RegExp][] = [
    ['plan without NAME', 'plan', [], /expected the ClusterExtension NAME/],
    ['plan with two names', 'plan', ['a', 'b'], /unexpected argument "b"/],
    ['plan with a bad -o', 'plan', ['a', '-o', 'yaml'], /-o must be text or json/],
    ['plan with a bad --cert-provider', 'plan', ['a', '--cert-provider', 'x'], /--cert-provider must be/],
    ['plan with a bad --cluster-version', 'plan', ['a', '--cluster-version', 'four'], /--cluster-version: /],
    ['plan with an unknown gate', 'plan', ['a', '--feature-gates', 'NoSuchGate=true'], /--feature-gates: .*unrecognized feature gate: NoSuchGate/],
    [
      'plan with a gate without a value',
      'plan',
      ['a', '--feature-gates', 'DeploymentConfig'],
      /--feature-gates: missing bool value for DeploymentConfig/,
    ],
    ['plan with a bad --catalogd-url', 'plan', ['a', '--catalogd-url', 'ftp://x'], /invalid --catalogd-url/],
    ['plan with an empty --system-namespace', 'plan', ['a', '--system-namespace', ''], /--system-namespace must not be empty/],
    ['plan with an unknown flag', 'plan', ['a', '--force'], /Unknown option '--force'/],
    ['approve without NAME', 'approve', [], /expected the ClusterExtension NAME/],
    ['approve with three positionals', 'approve', ['a', '1.0.0', 'x'], /unexpected argument "x"/],
    ['approve with an empty VERSION', 'approve', ['a', ''], /VERSION must not be empty/],
    [
      'approve with a VERSION that is no version',
      'approve',
      ['a', 'not a version'],
      /^VERSION "not a version" is not a semantic version: No Major.Minor.Patch elements found\n/,
    ],
    ['approve with a v-prefixed VERSION', 'approve', ['a', 'v1.0.0'], /^VERSION "v1.0.0" is not a semantic version: /],
  ];
  for (const [name, command, args, message] of usage) {
    it(`${name}: exit 2 with the usage`, async () => {
      const r = await run(command, args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain(`Usage: olmv1 upgrade ${command}`);
      expect(r.stdout).toBe('');
    });
  }

  it('parses what plan and approve take', () => {
    const p = parsePlanArgs([
      'ext',
      '-o',
      'json',
      '--cert-provider',
      'cert-manager',
      '--cluster-version',
      '4.16',
      '--catalogd-url',
      'http://127.0.0.1:8080',
      '--feature-gates',
      'SingleOwnNamespaceInstallSupport=false,DeploymentConfig=true',
      '--feature-gates=WebhookProviderCertManager=false',
    ]);
    expect(p.output).toBe('json');
    expect(p.plan).toMatchObject({
      extension: 'ext',
      certProvider: 'cert-manager',
      clusterVersion: { major: 4n, minor: 16n },
      featureGates: ['SingleOwnNamespaceInstallSupport=false,DeploymentConfig=true', 'WebhookProviderCertManager=false'],
    });
    expect(parsePlanArgs(['ext']).plan.featureGates).toBeUndefined();
    expect(p.common).toMatchObject({ systemNamespace: 'olmv1-system', catalogdUrl: new URL('http://127.0.0.1:8080') });
    expect(parseApproveArgs(['ext'])).toMatchObject({ extension: 'ext', version: undefined, dryRun: false });
    expect(parseApproveArgs(['ext', '1.2.3', '--dry-run', '--system-namespace', 'sys'])).toMatchObject({
      extension: 'ext',
      version: '1.2.3',
      dryRun: true,
      common: { systemNamespace: 'sys' },
    });
  });

  it('a cluster that cannot be reached is exit 1', async () => {
    const r = await run('approve', ['ext']);
    expect(r).toEqual({ code: 1, stdout: '', stderr: 'no cluster in unit tests\n' });
  });
});

describe('pickReason', () => {
  const selection = { channels: [], versionRange: '', upgradeConstraintPolicy: 'CatalogProvided' };
  const s = (bundle: string, version: string, extra: object = {}) => ({
    catalog: 'c',
    channel: 'stable',
    bundle,
    version,
    edge: 'replaces' as const,
    inRange: true,
    deprecated: false,
    ...extra,
  });
  it.each([
    ['no successors', [], 'foo.v1', '1.0.0', 'up to date: the catalogs offer no successor of the installed bundle'],
    [
      'successors out of range',
      [s('foo.v2', '2.0.0', { inRange: false })],
      'foo.v1',
      '1.0.0',
      'up to date: the catalogs offer successors, but none within version range "<2"',
    ],
    [
      'the highest of two',
      [s('foo.v3', '3.0.0', { edge: 'skipRange' }), s('foo.v2', '2.0.0')],
      'foo.v3',
      '3.0.0',
      '3.0.0 is the highest of 2 successors within version range "<2", reached by its skipRange edge',
    ],
    [
      'deprecated',
      [s('foo.v2', '2.0.0', { deprecated: true })],
      'foo.v2',
      '2.0.0',
      '2.0.0 is the highest of 1 successor within version range "<2", reached by its replaces edge (deprecated: every successor allowed is deprecated)',
    ],
  ])('%s', (_name, successors, bundle, version, want) => {
    expect(pickReason({ successors, selection: { ...selection, versionRange: '<2' } }, bundle, version)).toBe(want);
  });
});

describe('formatPlan', () => {
  const base: UpgradePlan = {
    extension: 'foo',
    package: 'foo',
    installed: { bundle: 'foo.v1.0.0', version: '1.0.0', revision: 1 },
    selection: { channels: ['stable'], versionRange: '', upgradeConstraintPolicy: 'CatalogProvided' },
    successors: [{ catalog: 'c', channel: 'stable', bundle: 'foo.v1.1.0', version: '1.1.0', edge: 'replaces', inRange: true, deprecated: false }],
    pick: null,
    upToDate: false,
    deprecations: [],
  };
  it('a failed resolution prints the error and nothing after it', () => {
    const text = formatPlan({ ...base, error: 'no bundles found\nhint' });
    expect(text).toContain('Cannot plan: the resolution fails:\n  no bundles found\n  hint\n');
    expect(text).not.toContain('Update policy');
  });
  it('a failed resolution prints what the catalogs offer instead after the error', () => {
    const text = formatPlan({ ...base, error: 'no bundles found for package "foo" matching version "9.0.0"', hints: ['versions: 2.0.0, 1.0.0'] });
    expect(text).toContain(
      'Cannot plan: the resolution fails:\n  no bundles found for package "foo" matching version "9.0.0"\nWhat the catalogs offer instead:\n  versions: 2.0.0, 1.0.0\n',
    );
  });
  it('escapes control characters a hostile catalog puts in names and messages', () => {
    const text = formatPlan({
      ...base,
      successors: [{ ...base.successors[0]!, bundle: 'foo\u001b[2Jv2\nforged line' }],
      error: 'no bundles\u0007',
    });
    expect(text).toContain('foo\\u001b[2Jv2\\u000aforged line');
    expect(text).toContain('  no bundles\\u0007\n');
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
  });

  it('prints every section of a full plan', () => {
    const text = formatPlan({
      ...base,
      pick: { bundle: 'foo.v1.1.0', version: '1.1.0', image: 'i', catalog: 'c', reason: 'r' },
      deprecations: ['package foo: old'],
      changes: {
        objects: {
          added: ['ConfigMap ns/a'],
          removed: ['ConfigMap ns/b'],
          changed: [{ object: 'Secret ns/s', lines: ['- data.k: (redacted)', '+ data.k: (redacted)'] }],
        },
        permissions: {
          gained: [{ scope: 'cluster', role: 'ClusterRole r', rule: '{verbs: ["*"]}', escalates: true, summary: '*' }],
          lost: [],
          summary: '+1 rule',
        },
        crdUpgradeSafety: {
          enforcement: 'Strict',
          crds: [
            {
              name: 'a.b',
              verdict: 'unsafe',
              violations: ['validating upgrade for CRD "a.b": x'],
              storedObjects: ['stored objects: CRD a.b: 1 of 2 stored objects fail the new schema: ns/w (e)', '  ns/w (v1): e'],
            },
          ],
        },
        maxOpenShiftVersion: { installed: null, next: null, cluster: null, verdict: 'v' },
        droppedFields: [],
      },
      policy: { policy: 'Manual', decision: 'hold', reason: 'held', approvedBundle: '', approveCommand: 'olmv1 upgrade approve foo 1.1.0' },
      gates: {
        source: 'deployment',
        from: 'the Deployment olmv1-system/operator-controller-controller-manager',
        values: {
          WebhookProviderCertManager: false,
          WebhookProviderOpenshiftServiceCA: true,
          SingleOwnNamespaceInstallSupport: false,
          DeploymentConfig: true,
        },
      },
    });
    expect(text).toBe(`Upgrade plan for ClusterExtension foo (package foo)
Installed: foo.v1.0.0 (1.0.0), release revision 1
Selection: channels stable; version range (any); upgradeConstraintPolicy CatalogProvided

Successors offered:
  1.1.0      foo.v1.1.0  catalog c, channel stable, replaces

Next: foo.v1.1.0 (1.1.0) from catalog c: r

Deprecations:
  package foo: old

Feature gates: DeploymentConfig=true, SingleOwnNamespaceInstallSupport=false, WebhookProviderCertManager=false, WebhookProviderOpenshiftServiceCA=true (from the Deployment olmv1-system/operator-controller-controller-manager)
Objects: 1 added, 1 removed, 1 changed
  + ConfigMap ns/a
  - ConfigMap ns/b
  ~ Secret ns/s
      - data.k: (redacted)
      + data.k: (redacted)

Permissions: 1 gained, 0 lost
  + cluster: ClusterRole r: {verbs: ["*"]}  [escalates]

CRD upgrade safety (enforcement Strict):
  a.b: unsafe (the upgrade will be blocked)
    validating upgrade for CRD "a.b": x
    stored objects: CRD a.b: 1 of 2 stored objects fail the new schema: ns/w (e)
      ns/w (v1): e

olm.maxOpenShiftVersion: v

Update policy: Manual: holds it: held
  approve it with: olmv1 upgrade approve foo 1.1.0
`);
  });
});
