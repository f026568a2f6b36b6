import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { crdProvisions, crdReplacementVerdict, crdRequirements, manifestCrdProvisions } from './crd-check.ts';

type Crd = {
  metadata: { name: string };
  spec: { versions: Array<{ name: string; served: boolean; storage: boolean; schema: { openAPIV3Schema: Record<string, unknown> } }> };
  status?: { storedVersions: string[] };
};
const CE_FILE = new URL('../../../config/crd/olm.operatorframework.io_clusterextensions.yaml', import.meta.url);
const COS_FILE = new URL('../../../config/crd/experimental/olm.operatorframework.io_clusterobjectsets.yaml', import.meta.url);
const clusterExtensionCrd = (): Crd => load(readFileSync(CE_FILE, 'utf8')) as Crd;
const onCluster = (crd: Crd, storedVersions = ['v1']): Crd => ({ ...structuredClone(crd), status: { storedVersions } });
const v1Spec = (crd: Crd) => (crd.spec.versions[0]?.schema.openAPIV3Schema.properties as { spec: { properties: Record<string, unknown> } }).spec;

/** A newer release's CRD: v2 stored and served beside v1, with a field v1 lacks. */
function withV2(crd: Crd): Crd {
  const next = structuredClone(crd);
  const v1 = next.spec.versions[0];
  if (v1 === undefined) throw new Error('no v1');
  v1.storage = false;
  const v2 = structuredClone({ ...v1, name: 'v2', storage: true });
  (v2.schema.openAPIV3Schema.properties as { spec: { properties: Record<string, unknown> } }).spec.properties.paused = { type: 'boolean' };
  next.spec.versions.push(v2);
  return next;
}

describe('CRD replacement check', () => {
  it('lets a release replace the CRD it ships, and one that only adds versions and fields', () => {
    const crd = clusterExtensionCrd();
    const required = crdRequirements(onCluster(crd));
    expect(required).toContain('stored clusterextensions.olm.operatorframework.io v1');
    expect(required).toContain('served clusterextensions.olm.operatorframework.io v1');
    expect(required).toContain('field clusterextensions.olm.operatorframework.io v1 spec.source.catalog.packageName');
    expect(required).toContain('field clusterextensions.olm.operatorframework.io v1 status.conditions.[].type');
    expect(crdReplacementVerdict(required, crdProvisions(crd), 'v1.0.0')).toEqual({ safe: true });
    // The upgrade to a release with v2: nothing the cluster holds is lost.
    expect(crdReplacementVerdict(required, crdProvisions(withV2(crd)), 'v2.0.0')).toEqual({ safe: true });
  });

  it('refuses to go back below a release whose version the cluster stores, naming the CRD, the versions and what to do', () => {
    const crd = clusterExtensionCrd();
    const verdict = crdReplacementVerdict(crdRequirements(onCluster(withV2(crd), ['v1', 'v2'])), crdProvisions(crd), 'v1.0.0');
    expect(verdict.safe).toBe(false);
    if (verdict.safe) return;
    expect(verdict.missing).toEqual(
      expect.arrayContaining(['stored clusterextensions.olm.operatorframework.io v2', 'served clusterextensions.olm.operatorframework.io v2']),
    );
    // v2 not served at all: one reason, not one per field of it.
    expect(verdict.missing.filter((l) => l.startsWith('field '))).toEqual([]);
    expect(verdict.message).toContain(
      'clusterextensions.olm.operatorframework.io: objects are stored at v2 (status.storedVersions), which olmv1 v1.0.0 does not serve',
    );
    expect(verdict.message).toContain('clusterextensions.olm.operatorframework.io: v2 is served now, and olmv1 v1.0.0 would stop serving it');
    expect(verdict.message).toMatch(/first migrate the objects to a version it serves/);
    expect(verdict.message).toMatch(/OLMV1_ALLOW_CRD_CHANGE=true/);
  });

  it('refuses a release whose schema drops a field of a served version (its values would be pruned)', () => {
    const crd = clusterExtensionCrd();
    const older = structuredClone(crd);
    delete v1Spec(older).properties.namespace;
    const verdict = crdReplacementVerdict(crdRequirements(onCluster(crd)), crdProvisions(older), 'v0.9.0');
    expect(verdict).toMatchObject({ safe: false, missing: ['field clusterextensions.olm.operatorframework.io v1 spec.namespace'] });
    if (!verdict.safe)
      expect(verdict.message).toContain(
        "clusterextensions.olm.operatorframework.io v1: field spec.namespace is not in olmv1 v0.9.0's schema (its values would be pruned)",
      );
  });

  it('takes the provisions of the project CRDs of a release manifest, and no other CRD', () => {
    const yaml = `${readFileSync(CE_FILE, 'utf8')}\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: other.example.test\nspec:\n  versions: [{name: v1, served: true}]\n---\nkind: Namespace\nmetadata: {name: x}\n`;
    const p = manifestCrdProvisions(yaml);
    expect(p.crds).toEqual(['clusterextensions.olm.operatorframework.io']);
    expect(p.lines).toEqual(crdProvisions(clusterExtensionCrd()));
  });

  it('refuses a release whose schema no longer keeps unknown fields (x-kubernetes-preserve-unknown-fields) or map entries (additionalProperties)', () => {
    const crd = clusterExtensionCrd();
    const required = crdRequirements(onCluster(crd));
    const CE = 'clusterextensions.olm.operatorframework.io';
    expect(required).toContain(`field ${CE} v1 spec.config.inline.*`);
    expect(required).toContain(`field ${CE} v1 spec.source.catalog.selector.matchLabels.{}`);
    const older = structuredClone(crd);
    type Node = Record<string, unknown> & { properties: Record<string, Node> };
    const spec = v1Spec(older) as unknown as Node;
    const inline = spec.properties['config']?.properties['inline'];
    const matchLabels = spec.properties['source']?.properties['catalog']?.properties['selector']?.properties['matchLabels'];
    if (inline === undefined || matchLabels === undefined) throw new Error('the CRD changed: no inline or matchLabels');
    delete inline['x-kubernetes-preserve-unknown-fields'];
    delete matchLabels['additionalProperties'];
    const verdict = crdReplacementVerdict(required, crdProvisions(older), 'v0.9.0');
    expect(verdict).toMatchObject({
      safe: false,
      missing: [`field ${CE} v1 spec.config.inline.*`, `field ${CE} v1 spec.source.catalog.selector.matchLabels.{}`],
    });
    if (!verdict.safe)
      expect(verdict.message).toContain(`${CE} v1: field spec.config.inline.* is not in olmv1 v0.9.0's schema (its values would be pruned)`);
    // A bare `additionalProperties: true` is a map too.
    expect(
      crdProvisions({
        metadata: { name: 'x' },
        spec: { versions: [{ name: 'v1', served: true, schema: { openAPIV3Schema: { additionalProperties: true } } }] },
      }),
    ).toContain('field x v1 {}');
  });

  it("checks the ClusterObjectSet CRD config/boxcutter adds, which the release manifest does not carry, against the overlay's of the same revision", () => {
    const ceYaml = readFileSync(CE_FILE, 'utf8');
    const cosYaml = readFileSync(COS_FILE, 'utf8');
    const p = manifestCrdProvisions(ceYaml, cosYaml);
    expect(p.crds).toEqual(['clusterextensions.olm.operatorframework.io', 'clusterobjectsets.olm.operatorframework.io']);
    const cos = load(cosYaml) as Crd;
    expect(crdReplacementVerdict(crdRequirements(onCluster(cos)), p.lines, 'v1.0.0')).toEqual({ safe: true });
    // A newer overlay's ClusterObjectSet CRD with a field this release's lacks: going back is refused.
    const newer = structuredClone(cos);
    v1Spec(newer).properties.paused = { type: 'boolean' };
    expect(crdReplacementVerdict(crdRequirements(onCluster(newer)), p.lines, 'v1.0.0')).toMatchObject({
      safe: false,
      missing: ['field clusterobjectsets.olm.operatorframework.io v1 spec.paused'],
    });
  });
});
