// CRD upgrade safety split in two: the pure verdict, one row per case, from what was read; and
// the edge that reads it (the step around them: steps-preflight.test.ts).
import { describe, expect, it } from 'vitest';
import { ApiError, type KubeObject } from '../../shared/kube/index.ts';
import type { StoredVerdict } from '../crdupgrade/index.ts';
import { readCrds, unsafeCrds, type UnsafeCrd } from './crd-safety.ts';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';

function crd(name: string, spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group: 'example.com',
      names: { kind: 'Widget', plural: name.split('.')[0] },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }],
    },
    status: { storedVersions: ['v1'] },
  };
}

const a = crd('a.example.com', { type: 'object', properties: { x: { type: 'integer' } } });
const aUnsafe = crd('a.example.com', { type: 'object', properties: { x: { type: 'string' } } });
const aTight = crd('a.example.com', { type: 'object', properties: { x: { type: 'integer', maximum: 5 } } });
const b = crd('b.example.com', { type: 'object' });
const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a.example.com', namespace: 'ns' } };
const typeChanged = 'validating upgrade for CRD "a.example.com": v1: ^.spec.x: type: type changed : "integer" -> "string"';
const tightened = 'validating upgrade for CRD "a.example.com": v1: ^.spec.x: maximum: maximum constraint added when there was none previously : 5';
const scan = { crd: 'a.example.com', checked: 2, failing: [], failingCount: 1 };
const stored = (letThrough: boolean, scanned = true): ReadonlyMap<string, StoredVerdict> =>
  new Map([['a.example.com', { letThrough, text: letThrough ? 'all pass' : 'ns/w fails', ...(scanned ? { scan } : {}) }]]);
const check = (optIn: boolean) => ({ optIn, extension: 'ext', identity: 'ns/installer' });

describe('unsafeCrds', () => {
  it.each<[string, KubeObject[], KubeObject[], ReadonlyMap<string, StoredVerdict> | undefined, UnsafeCrd[]]>([
    ['a CRD not in the cluster: nothing to break', [a], [], undefined, []],
    ['a CRD the release no longer has: kept, not checked', [b], [aUnsafe, b], undefined, []],
    ['a CRD kept as it is', [a, b], [a, b], undefined, []],
    ['objects other than CRDs are not checked', [cm], [a], undefined, []],
    ["an unsafe change: upstream's error", [aUnsafe, b], [a, b], undefined, [{ name: 'a.example.com', error: typeChanged }]],
    ['a tightening, stored objects not opted in', [aTight], [a], undefined, [{ name: 'a.example.com', error: tightened }]],
    ['a tightening every stored object passes (opted in)', [aTight], [a], stored(true), []],
    [
      'a tightening some stored object fails (opted in): their text rides along',
      [aTight],
      [a],
      stored(false),
      [{ name: 'a.example.com', error: tightened, stored: 'ns/w fails' }],
    ],
    [
      'opted in, stored objects cannot decide: why rides along',
      [aTight],
      [a],
      stored(false, false),
      [{ name: 'a.example.com', error: tightened, stored: 'ns/w fails' }],
    ],
    ['opted in, no stored verdict for it', [aTight], [a], new Map(), [{ name: 'a.example.com', error: tightened }]],
  ])('%s', (_case, proposed, live, storedVerdicts, want) => {
    const installed = new Map(live.map((c) => [c.metadata.name ?? '', c]));
    expect(unsafeCrds(proposed, { installed, optIn: true, ...(storedVerdicts === undefined ? {} : { stored: storedVerdicts }) })).toEqual(want);
  });

  it.each<[string, ReadonlyMap<string, StoredVerdict>, UnsafeCrd[]]>([
    [
      'every stored object passes: still refused, as upstream, saying the opt-in would let it through',
      stored(true),
      [
        {
          name: 'a.example.com',
          error: tightened,
          stored: 'all pass (the annotation olm.operatorframework.io/crd-upgrade-check-stored-objects=true would let it through)',
        },
      ],
    ],
    ['a stored object fails: refused, and named', stored(false), [{ name: 'a.example.com', error: tightened, stored: 'ns/w fails' }]],
    ["nothing was scanned: upstream's refusal alone", stored(false, false), [{ name: 'a.example.com', error: tightened }]],
  ])('without the opt-in, %s', (_case, storedVerdicts, want) => {
    const installed = new Map([[a.metadata.name ?? '', a]]);
    expect(unsafeCrds([aTight], { installed, stored: storedVerdicts, optIn: false })).toEqual(want);
  });

  it('names every unsafe CRD in the release order', () => {
    const bUnsafe = crd('b.example.com', { type: 'string' });
    const installed = new Map([a, b].map((c) => [c.metadata.name ?? '', c]));
    expect(unsafeCrds([bUnsafe, aUnsafe], { installed })).toEqual([
      { name: 'b.example.com', error: 'validating upgrade for CRD "b.example.com": v1: ^.spec: type: type changed : "object" -> "string"' },
      { name: 'a.example.com', error: typeChanged },
    ]);
  });
});

describe('readCrds', () => {
  const signal = new AbortController().signal;

  it('reads each proposed CRD (absent: not installed), and the stored objects of a refused one, opted in or not', async () => {
    const cluster = fakeCluster();
    cluster.seed(a);
    cluster.seed({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns' }, spec: { x: 9 } });
    const plain = await readCrds(cluster.client, [cm, aTight, b], signal, check(false));
    expect([...plain.installed.keys()]).toEqual(['a.example.com']);
    expect(plain.installed.get('a.example.com')?.spec).toEqual(a['spec']);
    expect(plain.optIn).toBe(false);
    expect(unsafeCrds([aTight], plain)).toEqual([
      {
        name: 'a.example.com',
        error: tightened,
        stored:
          'CRD a.example.com: 1 of 1 stored objects fail the new schema: ns/w (spec.x: Invalid value: 9: spec.x in body should be less than or equal to 5)',
      },
    ]);
    const read = await readCrds(cluster.client, [cm, aTight, b], signal, check(true));
    expect([...(read.stored?.keys() ?? [])]).toEqual(['a.example.com']);
    expect(read.stored?.get('a.example.com')?.letThrough).toBe(false);
    // A CRD the rules let through is not scanned.
    const before = cluster.calls.length;
    await readCrds(cluster.client, [a], signal, check(false));
    expect(cluster.calls.slice(before).filter((c) => c.startsWith('list'))).toEqual([]);
  });

  it("fails with upstream's text when a read fails other than not found", async () => {
    const cluster = fakeCluster();
    cluster.refuse('get CustomResourceDefinition a.example.com', new ApiError(403, 'Forbidden', 'forbidden'));
    await expect(readCrds(cluster.client, [a], signal, check(false))).rejects.toThrow('getting existing resource for CRD "a.example.com": forbidden');
  });
});
