import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/unstructured/index.ts';
import { checkRollbackCrds, rollbackCrdNames } from './crd-safety.ts';
import { crd, rev } from '../../../test/support/release-revisions.ts';
import { Manifest } from '../release/index.ts';

const W = 'widgets.example.com';
const G = 'gadgets.example.com';
const size = { size: { type: 'integer' } };

function live(...crds: KubeObject[]): Map<string, KubeObject> {
  return new Map(crds.map((c) => [c.metadata.name ?? '', c]));
}

/** The live Widget CRD with versions v1 and v2, `stored` in its status. */
const liveWidgets = (stored: string[]): Map<string, KubeObject> =>
  live(
    crd(
      W,
      [
        { name: 'v1', props: size },
        { name: 'v2', props: size },
      ],
      stored,
    ),
  );

describe('checkRollbackCrds', () => {
  // 2.0.0 added v2 as the storage version; 1.0.0 only has v1.
  const deployed = rev(2, 'deployed', '2.0.0', {
    manifest: Manifest.ofObjects([
      crd(W, [
        { name: 'v1', props: size, storage: false },
        { name: 'v2', props: size, storage: true },
      ]),
    ]),
  });
  const target = rev(1, 'superseded', '1.0.0', { manifest: Manifest.ofObjects([crd(W, [{ name: 'v1', props: size }])]) });

  it('refuses to drop a stored version whatever the enforcement, naming the CRD, the versions and what to do', () => {
    for (const enforcement of [undefined, 'Strict', 'None']) {
      const v = checkRollbackCrds({
        deployed,
        target,
        live: liveWidgets(['v1', 'v2']),
        enforcement,
      });
      expect(v.warnings).toEqual([]);
      expect(v.refusals).toEqual([
        [
          `CRD "${W}" may have objects stored at [v2] (status.storedVersions), which foo.v1.0.0 does not define: they could no longer be read.`,
          "To go back, first migrate the stored objects to a version foo.v1.0.0 defines ([v1]): with one of those as the CRD's storage version, rewrite every object (or delete those no longer needed);",
          "then remove [v2] from the CRD's status.storedVersions:",
          `  kubectl patch crd ${W} --subresource=status --type=merge -p '{"status":{"storedVersions":["v1"]}}'`,
          'and run the rollback again.',
          `validating upgrade for CRD "${W}": storedVersionRemoval: stored versions removed : [v2]`,
        ].join('\n'),
      ]);
    }
  });

  it('lets a version go that was never stored', () => {
    const v = checkRollbackCrds({
      deployed,
      target,
      live: liveWidgets(['v1']),
      enforcement: undefined,
    });
    expect(v).toEqual({ refusals: [], warnings: [], notes: [] });
  });

  it('refuses other unsafe changes, or warns when enforcement is None', () => {
    const withColor = crd(W, [{ name: 'v1', props: { ...size, color: { type: 'string' } } }], ['v1']);
    const block = `validating upgrade for CRD "${W}": existingFieldRemoval: removed field : v1.^.spec.color\nv1: ^.spec.color: type: type changed : "string" -> ""`;
    expect(checkRollbackCrds({ deployed, target, live: live(withColor), enforcement: 'Strict' })).toEqual({
      refusals: [
        `${block}\nOnly if every custom resource fits that older schema: set spec.install.preflight.crdUpgradeSafety.enforcement to None (the controller then skips the check) and run the rollback again.`,
      ],
      warnings: [],
      notes: [],
    });
    expect(checkRollbackCrds({ deployed, target, live: live(withColor), enforcement: 'None' })).toEqual({
      refusals: [],
      warnings: [block],
      notes: [],
    });
  });

  it('notes a live CRD of the deployed revision that the target does not have (kept), and skips CRDs not in the cluster', () => {
    const withGadgets = rev(2, 'deployed', '2.0.0', { manifest: Manifest.ofObjects([...deployed.manifest.objects(), crd(G, [{ name: 'v1' }])]) });
    const v = checkRollbackCrds({ deployed: withGadgets, target, live: live(crd(G, [{ name: 'v1' }], ['v1'])), enforcement: undefined });
    expect(v.refusals).toEqual([]);
    expect(v.notes).toEqual([
      `CRD "${G}" is not part of foo.v1.0.0: operator-controller keeps CRDs, so it stays in the cluster with its objects (delete it by hand when it is no longer needed).`,
    ]);
    expect(rollbackCrdNames(withGadgets, target)).toEqual([G, W]);
  });

  it('advises without a kubectl line when every stored version would be lost', () => {
    const v = checkRollbackCrds({ deployed, target, live: live(crd(W, [{ name: 'v2', props: size }], ['v2'])), enforcement: undefined });
    expect(v.refusals[0]).toContain("then remove [v2] from the CRD's status.storedVersions (it must list the new storage version);");
    expect(v.refusals[0]).not.toContain('kubectl patch');
  });

  it('ignores objects of the revisions that are not v1 CRDs', () => {
    const odd = rev(1, 'superseded', '1.0.0', {
      manifest: Manifest.ofObjects([{ apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'CustomResourceDefinition', metadata: { name: W } }]),
    });
    expect(rollbackCrdNames(odd, odd)).toEqual([]);
  });
});
