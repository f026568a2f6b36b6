import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFS } from '../../shared/fbc/index.ts';
import type { Bundle, DeclarativeConfig } from '../../shared/fbc/types.ts';
import { installedCandidate, servedApisCandidate } from './evaluate.ts';
import { checkRequirements } from './evaluate.ts';
import { DEFAULT_LIMITS } from './limits.ts';
import { bundleRequirements } from './requirements.ts';
import type { Candidate, Gvk } from './types.ts';

// Every example of OLM's dependency documentation, as a catalog (testdata/docs-examples):
// `app.<example>` declares the example, the `blue` and `etcd` bundles are what may be installed.
const catalog: DeclarativeConfig = await loadFS(join(import.meta.dirname, 'testdata', 'docs-examples'));

function bundleNamed(name: string): Bundle {
  const b = catalog.bundles.find((x) => x.name === name);
  if (b === undefined) throw new Error(`no bundle ${name} in the fixture`);
  return b;
}

function installed(...names: string[]): Candidate[] {
  return names.map((n) => {
    const b = bundleNamed(n);
    return installedCandidate({ name: b.package, packageName: b.package, version: '', properties: b.properties });
  });
}

function verdictOf(
  dependent: string,
  candidates: Candidate[],
): { met: true } | { met: false; failureMessage: string | undefined; description: string } {
  const reqs = bundleRequirements(bundleNamed(`app.${dependent}`), DEFAULT_LIMITS);
  if (!reqs.ok) throw new Error(reqs.error);
  const v = checkRequirements(reqs.value, candidates);
  return v.satisfied ? { met: true } : { met: false, failureMessage: v.unmet.failureMessage, description: v.unmet.description };
}

const served = (...gvks: Gvk[]): Candidate => servedApisCandidate(gvks);
const ETCD_CLUSTER: Gvk = { group: 'etcd.database.coreos.com', version: 'v1beta2', kind: 'EtcdCluster' };
const GREEN_V1: Gvk = { group: 'greens.example.com', version: 'v1', kind: 'Green' };

describe('OLM documentation examples', () => {
  it.each([
    // [example, what the cluster has, met, failureMessage or description when unmet]
    ['package-range', installed('etcd.v3.1.0'), false, 'package "etcd" in range ">3.1.0"'],
    ['package-range', installed('etcd.v3.2.0'), true, ''],
    ['package-range', [], false, 'package "etcd" in range ">3.1.0"'],
    ['gvk', [], false, 'API etcd.database.coreos.com/v1beta2 EtcdCluster'],
    ['gvk', installed('etcd.v3.1.0'), true, ''],
    ['gvk', [served(ETCD_CLUSTER)], true, ''],
    ['cel-certified', installed('blue.v1.0.0'), false, 'require to have "certified"'],
    ['cel-certified', installed('blue.v1.0.0', 'blue.v1.1.0'), true, ''],
    ['cel-two-rules', installed('etcd.v3.2.0'), false, 'require to have "certified" and "stable" properties'],
    ['cel-two-rules', installed('blue.v1.1.0'), true, ''],
    ['cel-semver', installed('etcd.v3.1.0'), false, 'requires Kubernetes 1.16 or later support from its provider'],
    ['cel-semver', installed('etcd.v3.2.0'), true, ''],
    ['all', installed('blue.v1.0.0'), true, ''],
    ['all', installed('blue.v1.1.0'), false, 'Package blue v1.0.0+ is needed'],
    // `all` holds for one candidate: blue 1.1.0 and an API served by someone else do not add up.
    ['all', [...installed('blue.v1.1.0'), served(GREEN_V1)], false, 'Package blue v1.0.0+ is needed'],
    ['any', installed('blue.v0.9.0'), true, ''],
    ['any', installed('blue.v1.0.0'), true, ''],
    ['any', installed('etcd.v3.2.0'), false, 'Any required constraint to be satisfied'],
    ['not', installed('blue.v1.0.0'), true, ''],
    ['not', installed('blue.v1.1.0'), false, 'Package blue v1.0.0+ is needed without Green v1alpha1'],
    ['not', installed('blue.v0.9.0'), false, 'Package blue v1.0.0+ is needed without Green v1alpha1'],
    ['nested', installed('blue.v1.0.0'), true, ''],
    ['nested', installed('blue.v0.9.0'), true, ''],
    ['nested', installed('etcd.v3.2.0'), false, 'Required for Blue v1 or ...'],
  ] as const)('%s: %#', (example, candidates, met, text) => {
    const v = verdictOf(example, [...candidates]);
    expect(v.met).toBe(met);
    if (!v.met) expect(v.failureMessage ?? v.description).toBe(text);
  });

  it('describes compounds part by part', () => {
    const v = verdictOf('nested', installed('etcd.v3.2.0'));
    expect(v).toMatchObject({
      met: false,
      description:
        'any of (all of (package "blue" in range ">=1.0.0"; API blues.example.com/v1 Blue); all of (package "blue" in range "<1.0.0"; API blues.example.com/v1beta1 Blue))',
    });
  });

  it('reports the first unmet requirement in property order', () => {
    const b: Bundle = {
      ...bundleNamed('app.gvk'),
      properties: [...bundleNamed('app.gvk').properties, ...bundleNamed('app.package-range').properties.slice(1)],
    };
    const reqs = bundleRequirements(b, DEFAULT_LIMITS);
    expect(reqs.ok).toBe(true);
    if (!reqs.ok) return;
    const onlyApi = checkRequirements(reqs.value, [served(ETCD_CLUSTER)]);
    expect(onlyApi).toMatchObject({ satisfied: false, unmet: { requirement: { property: 'olm.package.required', index: 2 } } });
    expect(checkRequirements(reqs.value, installed('etcd.v3.2.0'))).toEqual({ satisfied: true });
  });

  it('reads an installed extension without catalog properties from its package and version', () => {
    const reqs = bundleRequirements(bundleNamed('app.package-range'), DEFAULT_LIMITS);
    if (!reqs.ok) throw new Error(reqs.error);
    const known = installedCandidate({ name: 'my-etcd', packageName: 'etcd', version: '3.2.0' });
    expect(checkRequirements(reqs.value, [known])).toEqual({ satisfied: true });
    const old = installedCandidate({ name: 'my-etcd', packageName: 'etcd', version: '3.1.0' });
    expect(checkRequirements(reqs.value, [old]).satisfied).toBe(false);
  });
});
