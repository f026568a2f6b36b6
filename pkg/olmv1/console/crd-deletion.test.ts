import { describe, expect, it } from 'vitest';
import { crdDeletionDigest, crdDeletionOutcome, uninstallCrdsArgs } from './crd-deletion.ts';

const doc = (count: number) =>
  JSON.stringify({
    extension: 'e',
    customResourceDefinitions: [{ name: 'a.x.io', group: 'x.io', kind: 'A', scope: 'Namespaced', customResources: [{ namespace: 'n', count }] }],
    deleted: false,
  });

describe('the console uninstall with its CRDs', () => {
  it("reads olmv1 uninstall --delete-crds's JSON, and its digest changes with any count", () => {
    const a = crdDeletionOutcome({ code: 0, stdout: doc(2), stderr: 'nothing deleted (preview)\n' });
    const b = crdDeletionOutcome({ code: 0, stdout: doc(3), stderr: '' });
    if (!a.ok || !b.ok) throw new Error('not read');
    expect(a.view.customResourceDefinitions).toEqual([
      { name: 'a.x.io', group: 'x.io', kind: 'A', scope: 'Namespaced', customResources: [{ namespace: 'n', count: 2 }] },
    ]);
    expect(a.view.digest).toBe(crdDeletionDigest(a.view.customResourceDefinitions));
    expect(b.view.digest).not.toBe(a.view.digest);
  });

  it("gives the command's own message for a refusal or a failure", () => {
    expect(crdDeletionOutcome({ code: 1, stdout: '', stderr: 'refusing to delete ...: ClusterExtension "b" owns it\n' })).toEqual({
      ok: false,
      error: 'refusing to delete ...: ClusterExtension "b" owns it',
    });
    expect(crdDeletionOutcome({ code: 0, stdout: 'not json', stderr: '' }).ok).toBe(false);
  });

  it('keeps the name after --, and the installer RBAC as the console promises', () => {
    expect(uninstallCrdsArgs('--yes', false)).toEqual(['--delete-crds', '--output=json', '--keep-rbac', '--', '--yes']);
    expect(uninstallCrdsArgs('e', true)).toEqual(['--delete-crds', '--output=json', '--keep-rbac', '--yes', '--timeout=2m', '--', 'e']);
  });
});
