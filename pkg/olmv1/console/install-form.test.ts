import { describe, expect, it } from 'vitest';
import { installCommandLine, parseInstallForm } from './install-form.ts';

const base = { catalog: 'cat', package: 'pkg', name: 'pkg', namespace: 'pkg-ns' };

describe('install form', () => {
  it('defaults the policies and binds every value to its flag, the package after --', () => {
    const parsed = parseInstallForm({ ...base, channel: 'stable', version: '>=1.0.0, <2' });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(installCommandLine(parsed.form, true)).toEqual([
      '--name=pkg',
      '--namespace=pkg-ns',
      '--catalog=cat',
      '--channels=stable',
      '--version=>=1.0.0, <2',
      '--upgrade-constraint-policy=CatalogProvided',
      '--update-policy=Automatic',
      '--dry-run',
      '--output=yaml',
      '--',
      'pkg',
    ]);
    expect(installCommandLine({ ...parsed.form, channel: '', version: '' }, false).slice(3)).toEqual([
      '--upgrade-constraint-policy=CatalogProvided',
      '--update-policy=Automatic',
      '--no-wait',
      '--',
      'pkg',
    ]);
  });

  it('binds an existing ServiceAccount to --service-account; none (the default) leaves the flag out, so install creates NAME-installer', () => {
    const parsed = parseInstallForm({ ...base, serviceAccount: ' ops ' });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.form.serviceAccount).toBe('ops');
    const args = installCommandLine(parsed.form, false);
    expect(args).toContain('--service-account=ops');
    expect(args.slice(-2)).toEqual(['--', 'pkg']);
    const created = parseInstallForm(base);
    expect(created.ok && installCommandLine(created.form, false).some((a) => a.startsWith('--service-account'))).toBe(false);
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
    ])
      expect(parseInstallForm({ ...base, ...bad }).ok, JSON.stringify(bad)).toBe(false);
    expect(parseInstallForm(null).ok).toBe(false);
  });
});
