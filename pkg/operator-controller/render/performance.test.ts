import { describe, expect, it } from 'vitest';
import { dump } from 'js-yaml';
import { largeCrd } from '../../../test/fixtures/bundles/large-crds.ts';
import { crd, installModes, testBundle } from '../../../test/fixtures/bundles/builder.ts';
import { parseBundle } from '../bundle/index.ts';
import { render } from './index.ts';

// How long parsing and rendering this bundle take is measured by the render benchmark
// (bench/benchmarks/render.ts, target 100 ms); here: that they work on it, without copying.
describe('a bundle with 10 large CRDs', () => {
  const crds = Array.from({ length: 10 }, (_, i) => largeCrd(i, 100_000));
  const total = crds.reduce((n, c) => n + JSON.stringify(c).length, 0);

  it('renders (~1 MB of CRDs)', () => {
    expect(total).toBeGreaterThan(900_000);
    const bundle = testBundle({
      spec: { installModes: installModes('AllNamespaces'), customresourcedefinitions: { owned: crds.map((c) => ({ name: c.metadata.name })) } },
      crds: [...crds, crd('small', 'example.com')],
    });
    const r = render(bundle, { installNamespace: 'ns' });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.filter((o) => o.kind === 'CustomResourceDefinition')).toHaveLength(crds.length + 1);
  });

  it('shares CRD objects with the bundle instead of copying them', () => {
    const bundle = testBundle({ crds });
    const r = render(bundle, { installNamespace: 'ns' });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.filter((o) => o.kind === 'CustomResourceDefinition').every((o) => crds.includes(o as (typeof crds)[number]))).toBe(true);
  });

  it('parses the same bundle from its files, CRDs as YAML and as indented JSON', () => {
    const enc = new TextEncoder();
    const files = new Map<string, Uint8Array>([
      ['metadata/annotations.yaml', enc.encode('annotations:\n  operators.operatorframework.io.bundle.package.v1: large\n')],
      ['manifests/csv.yaml', enc.encode(dump(testBundle().csv))],
      // One CRD as YAML, the others as (indented) JSON, both formats real bundles use.
      ['manifests/crd0.yaml', enc.encode(dump(crds[0]))],
      ...crds.slice(1).map((c, i) => [`manifests/crd${i + 1}.json`, enc.encode(JSON.stringify(c, null, 2))] as [string, Uint8Array]),
    ]);
    const parsed = parseBundle(files);
    if (!parsed.ok) throw new Error(parsed.error);
    expect(parsed.value.crds).toHaveLength(crds.length);
  });
});
