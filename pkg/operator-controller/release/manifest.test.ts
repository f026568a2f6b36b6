// A release's manifest read lazily (decision 0098): objects are parsed on first read only, and
// identities and equality with a new rendering come from the text without parsing the whole.
import { describe, expect, it, vi } from 'vitest';
import type { KubeObject } from '../../shared/kube/index.ts';
import { jsonEqual } from '../../shared/controller/index.ts';
import {
  manifestEquals,
  manifestIdentities,
  manifestLine,
  manifestObjectsWhere,
  manifestObjects,
  mapManifest,
  reviseRelease,
  unparsedManifest,
  withLazyManifest,
  withManifestLines,
  withManifestOf,
} from './manifest.ts';

const objects: KubeObject[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', labels: { x: 'y' } }, data: { k: 'v' } },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' }, rules: [] },
];
const text = objects.map(manifestLine).join('');
const lazy = (t = text) => withLazyManifest({ revision: 1 }, t, 'Secret "ns/rec"');
/** True while `manifest` is still the getter, i.e. nothing parsed the objects yet. */
const unparsed = (release: object): boolean => Object.getOwnPropertyDescriptor(release, 'manifest')?.get !== undefined;

describe('withLazyManifest', () => {
  it('parses on first read, then keeps the objects as a plain property', () => {
    const release = lazy();
    expect(unparsed(release)).toBe(true);
    expect(release.manifest).toEqual(objects);
    expect(unparsed(release)).toBe(false);
    expect(release.manifest).toBe(release.manifest);
    expect(Object.keys(release)).toEqual(['revision', 'manifest']);
  });

  it('throws on that read when the manifest is corrupt, naming the record', () => {
    const release = lazy('{"apiVersion": "v1", "kind": "ConfigMap"}\n');
    expect(() => release.manifest).toThrow(
      'release record Secret "ns/rec" is corrupt: manifest document 1 is not an object with apiVersion, kind and metadata',
    );
  });

  it('takes an assignment', () => {
    const release = lazy('not json at all: [');
    release.manifest = [];
    expect(release.manifest).toEqual([]);
  });
});

describe('manifestIdentities', () => {
  const ids = [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' } },
  ];

  it('reads them from the text without parsing the objects for the release', () => {
    const release = lazy();
    expect(manifestIdentities(release)).toEqual(ids);
    expect(unparsed(release)).toBe(true);
  });

  it('gives the same from parsed objects, and from a YAML manifest through the full parse', () => {
    const parsed = lazy();
    void parsed.manifest;
    expect(manifestIdentities(parsed)).toEqual(ids);
    const yaml = lazy('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: ns\n---\n');
    expect(manifestIdentities(yaml)).toEqual([ids[0]]);
  });

  it('throws as the parse would on a line that is not an object', () => {
    expect(() => manifestIdentities(lazy(`${manifestLine(objects[0] as KubeObject)}{"kind": 1}\n`))).toThrow(/is corrupt/);
  });
});

const equal = (a: KubeObject, b: KubeObject) => jsonEqual(a, b);

describe('manifestEquals', () => {
  it('is true line by line for the objects recorded, without parsing', () => {
    const release = lazy();
    expect(manifestEquals(release, { manifest: structuredClone(objects) }, equal)).toBe(true);
    expect(unparsed(release)).toBe(true);
  });

  it('compares values when the text differs: keys in another order (upstream writes them sorted) are the same objects', () => {
    const upstream = `{"apiVersion":"v1","data":{"k":"v"},"kind":"ConfigMap","metadata":{"labels":{"x":"y"},"name":"a","namespace":"ns"}}\n{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"r"},"rules":[]}\n`;
    expect(upstream).not.toBe(text);
    const release = lazy(upstream);
    expect(manifestEquals(release, { manifest: objects }, equal)).toBe(true);
    expect(unparsed(release)).toBe(true);
  });

  it('is false for other objects, fewer or more of them', () => {
    const changed = structuredClone(objects);
    (changed[0] as unknown as { data: Record<string, string> }).data['k'] = 'w';
    expect(manifestEquals(lazy(), { manifest: changed }, equal)).toBe(false);
    expect(manifestEquals(lazy(), { manifest: objects.slice(0, 1) }, equal)).toBe(false);
    expect(manifestEquals(lazy(), { manifest: [...objects, objects[0] as KubeObject] }, equal)).toBe(false);
  });
});

describe('mapManifest and manifestObjectsWhere', () => {
  it('hand each object with its line, one at a time, and keep only what they pick', () => {
    const release = lazy();
    const lines: Array<string | undefined> = [];
    expect(mapManifest(release, (o, line) => (lines.push(line), o.kind))).toEqual(['ConfigMap', 'ClusterRole']);
    expect(lines.map((l) => `${l}\n`)).toEqual(objects.map(manifestLine));
    expect(manifestObjectsWhere(release, (o) => o.kind === 'ClusterRole')).toEqual([objects[1]]);
    expect(unparsed(release)).toBe(true);
  });

  it('read parsed objects and YAML manifests without lines, and throw as the parse would on a corrupt line', () => {
    const parsed = lazy();
    void parsed.manifest;
    expect(mapManifest(parsed, (_o, line) => line)).toEqual([undefined, undefined]);
    const yaml = lazy('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: ns\n---\n');
    expect(manifestObjectsWhere(yaml, () => true)).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } }]);
    expect(() => manifestObjectsWhere(lazy(`${manifestLine(objects[0] as KubeObject)}[1]\n`), () => true)).toThrow(/is corrupt/);
  });
});

describe('reviseRelease', () => {
  it('changes fields and keeps the manifest unparsed, with the same objects', () => {
    const release = lazy();
    const revised = reviseRelease(release, { revision: 2 });
    expect(unparsed(revised)).toBe(true);
    expect([...(unparsedManifest(revised) ?? [])].join('')).toBe(text);
    expect(revised).toEqual({ revision: 2, manifest: objects });
    expect(release.revision).toBe(1);
  });

  it('spreads a parsed release', () => {
    const release = lazy();
    void release.manifest;
    expect(reviseRelease(release, { revision: 3 })).toEqual({ revision: 3, manifest: objects });
  });
});

describe('withManifestLines (a rendering held as text)', () => {
  const lines = objects.map((o) => JSON.stringify(o));
  const rendered = () => withManifestLines({}, lines, 'the rendering of bundle "b"');

  it('reads like a record: identities, equality, pieces of the manifest string, all without parsing', () => {
    const holder = rendered();
    expect(manifestIdentities(holder)).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' } },
    ]);
    expect(manifestEquals(lazy(), holder, equal)).toBe(true);
    expect(manifestEquals(holder, { manifest: objects }, equal)).toBe(true);
    expect([...(unparsedManifest(holder) ?? [])].join('')).toBe(text);
    expect(unparsed(holder)).toBe(true);
    expect(holder.manifest).toEqual(objects);
    expect(unparsedManifest(holder)).toBeUndefined();
  });

  it('compares two unparsed manifests line by line, and by value where the text differs', () => {
    const sorted = `{"apiVersion":"v1","data":{"k":"v"},"kind":"ConfigMap","metadata":{"labels":{"x":"y"},"name":"a","namespace":"ns"}}\n${lines[1]}\n`;
    const a = rendered();
    expect(manifestEquals(lazy(sorted), a, equal)).toBe(true);
    const other = withManifestLines({}, [lines[0] as string, lines[0] as string], 'x');
    expect(manifestEquals(lazy(), other, equal)).toBe(false);
    expect(manifestEquals(lazy(), withManifestLines({}, lines.slice(0, 1), 'x'), equal)).toBe(false);
    expect(manifestEquals(lazy(), withManifestLines({}, [...lines, lines[0] as string], 'x'), equal)).toBe(false);
    expect(unparsed(a)).toBe(true);
  });

  it('reads identities once for every holder of the same lines (a rendering, its desired release, its record)', () => {
    const holder = rendered();
    const desired = withManifestOf({ extension: 'e' }, holder);
    const record = reviseRelease(withManifestOf({ revision: 1 }, desired), { revision: 2 });
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const first = manifestIdentities(holder);
      expect(manifestIdentities(desired)).toEqual(first);
      expect(manifestIdentities(record)).toEqual(first);
      expect(manifestIdentities(record)).not.toBe(first);
      expect(parse).toHaveBeenCalledTimes(lines.length);
    } finally {
      parse.mockRestore();
    }
  });

  it('throws naming the rendering when a line is not an object', () => {
    const bad = withManifestLines({}, ['{"kind":"ConfigMap"}'], 'the rendering of bundle "b"');
    expect(() => bad.manifest).toThrow('the rendering of bundle "b": object 1 is not JSON of an object with apiVersion, kind and metadata');
  });

  it('carries over to another holder unparsed (withManifestOf), or shares parsed objects', () => {
    const holder = rendered();
    const desired = withManifestOf({ extension: 'e' }, holder);
    expect(unparsed(desired)).toBe(true);
    expect(desired.extension).toBe('e');
    expect(desired.manifest).toEqual(objects);
    expect(unparsed(holder)).toBe(true);
    const parsed = { manifest: objects };
    expect(withManifestOf({ extension: 'e' }, parsed).manifest).toBe(objects);
  });

  it('hands out objects by position, each parsed alone and fresh (manifestObjects)', () => {
    for (const holder of [rendered(), lazy()]) {
      const seq = manifestObjects(holder);
      expect(seq.length).toBe(2);
      expect(seq.at(1)).toEqual(objects[1]);
      expect(seq.at(1)).not.toBe(seq.at(1));
      expect(seq.at(2)).toBeUndefined();
      expect(unparsed(holder)).toBe(true);
    }
    expect(manifestObjects({ manifest: objects })).toBe(objects);
    // A YAML record has no lines to read one at a time: the full parse.
    const yaml = lazy('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n');
    expect(manifestObjects(yaml).at(0)).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
  });
});
