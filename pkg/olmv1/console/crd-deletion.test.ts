import { describe, expect, it } from 'vitest';
import type { DeletionPreview } from '../crd-deletion/index.ts';
import { crdDeletionDigest, crdDeletionOutcome } from './crd-deletion.ts';

const preview = (count: number): DeletionPreview => ({
  extension: 'e',
  crds: [{ name: 'a.x.io', uid: 'u', group: 'x.io', kind: 'A', scope: 'Namespaced', customResources: [{ namespace: 'n', count }] }],
  refusals: [],
  unchecked: [],
});
const summary = (count: number) =>
  ({ ok: true, value: { extension: 'e', clusterExtension: true, installerObjects: [], installerKept: true, crds: preview(count) } }) as const;

describe('the console uninstall with its CRDs', () => {
  it("reads the uninstall service's preview, and its digest changes with any count", () => {
    const a = crdDeletionOutcome(summary(2));
    const b = crdDeletionOutcome(summary(3));
    if (!a.ok || !b.ok) throw new Error('not read');
    expect(a.view.customResourceDefinitions).toEqual([
      { name: 'a.x.io', group: 'x.io', kind: 'A', scope: 'Namespaced', customResources: [{ namespace: 'n', count: 2 }] },
    ]);
    expect(a.view.digest).toBe(crdDeletionDigest(a.view.customResourceDefinitions));
    expect(b.view.digest).not.toBe(a.view.digest);
  });

  it("gives the service's own message for a refusal or a failure", () => {
    expect(crdDeletionOutcome({ ok: false, error: { message: 'refusing to delete ...: ClusterExtension "b" owns it' } })).toEqual({
      ok: false,
      error: 'refusing to delete ...: ClusterExtension "b" owns it',
    });
  });
});
