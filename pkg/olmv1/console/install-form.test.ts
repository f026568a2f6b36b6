import { describe, expect, it } from 'vitest';
import { installRequest, parseInstallForm } from './install-form.ts';

const base = { catalog: 'cat', package: 'pkg', name: 'pkg', namespace: 'pkg-ns' };

describe('install form', () => {
  it("defaults the policies and makes the install service's request as olmv1 install --catalog makes it from its flags", () => {
    const parsed = parseInstallForm({ ...base, channel: 'stable', version: '>=1.0.0, <2' });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(installRequest(parsed.form, true)).toEqual({
      extension: {
        name: 'pkg',
        packageName: 'pkg',
        namespace: 'pkg-ns',
        serviceAccount: 'pkg-installer',
        channels: ['stable'],
        version: '>=1.0.0, <2',
        selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': 'cat' } },
        upgradeConstraintPolicy: 'CatalogProvided',
        crdUpgradeSafety: undefined,
        watchNamespace: undefined,
        updatePolicy: 'Automatic',
      },
      catalog: 'cat',
      existingServiceAccount: false,
      dryRun: true,
      withDependencies: false,
      acceptCommunity: false,
      acceptNamespaceLabels: false,
      wait: false,
    });
    const any = installRequest({ ...parsed.form, channel: '', version: '' }, false);
    expect([any.extension.channels, any.extension.version, any.dryRun]).toEqual([[], undefined, false]);
    // The community warning's checkbox, as --accept-community (decision 0148): only a literal true.
    const acknowledged = parseInstallForm({ ...base, acceptCommunity: true });
    expect(acknowledged.ok && installRequest(acknowledged.form, false).acceptCommunity).toBe(true);
    const text = parseInstallForm({ ...base, acceptCommunity: 'true' });
    expect(text.ok && installRequest(text.form, false).acceptCommunity).toBe(false);
    // The checkbox naming the template's entries that weaken Pod security, as --accept-namespace-labels (decision 0157).
    const labels = parseInstallForm({ ...base, acceptNamespaceLabels: true });
    expect(labels.ok && installRequest(labels.form, true).acceptNamespaceLabels).toBe(true);
    const labelsText = parseInstallForm({ ...base, acceptNamespaceLabels: 'yes' });
    expect(labelsText.ok && installRequest(labelsText.form, true).acceptNamespaceLabels).toBe(false);
  });

  it('installs as an existing ServiceAccount when one is named; none (the default) has install create NAME-installer', () => {
    const parsed = parseInstallForm({ ...base, serviceAccount: ' ops ' });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.form.serviceAccount).toBe('ops');
    const r = installRequest(parsed.form, false);
    expect([r.existingServiceAccount, r.extension.serviceAccount]).toEqual([true, 'ops']);
    const created = parseInstallForm(base);
    expect(created.ok && installRequest(created.form, false).existingServiceAccount).toBe(false);
  });

  it('refuses names and namespaces Kubernetes would refuse, several channels, and unknown policies', () => {
    for (const bad of [
      { name: 'Bad_Name' },
      { namespace: '--authfile=/x' },
      { namespace: 'a'.repeat(64) },
      { channel: 'a,b' },
      { updatePolicy: 'Sometimes' },
      { upgradeConstraintPolicy: 'Whatever' },
      { catalog: '' },
      { serviceAccount: '--authfile=/x' },
      { serviceAccount: 'Ops' },
      { installMode: 'MultiNamespace' },
    ])
      expect(parseInstallForm({ ...base, ...bad }).ok, JSON.stringify(bad)).toBe(false);
    expect(parseInstallForm(null).ok).toBe(false);
  });

  it("writes the install mode as upstream's watchNamespace (none for AllNamespaces) and asks for the dependencies as --with-dependencies does", () => {
    const watch = (more: object) => {
      const parsed = parseInstallForm({ ...base, ...more });
      if (!parsed.ok) throw new Error(parsed.error);
      return installRequest(parsed.form, true);
    };
    expect(watch({}).extension.watchNamespace).toBeUndefined();
    expect(watch({ installMode: 'AllNamespaces', watchNamespace: 'x' }).extension.watchNamespace).toBeUndefined();
    expect(watch({ installMode: 'OwnNamespace' }).extension.watchNamespace).toBe('pkg-ns');
    expect(watch({ installMode: 'SingleNamespace', watchNamespace: ' team-a ' }).extension.watchNamespace).toBe('team-a');
    // What upstream's configuration schema refuses is left to it (the install service renders with it): its words, not the form's.
    expect(watch({ installMode: 'SingleNamespace', watchNamespace: '' }).extension.watchNamespace).toBe('');
    expect(watch({ withDependencies: true }).withDependencies).toBe(true);
    expect(watch({ withDependencies: 'yes' }).withDependencies).toBe(false);
  });
});
