// Other objects of a bundle kept as JSON lines (decision 0098): stubs that carry what the
// renderer reads, found again from their rendered copies by identity, and each line taken back once.
import { describe, expect, it } from 'vitest';
import { parseBundle } from './parse-bundle.ts';
import { otherLineFinder, takeOtherObject } from './other-lines.ts';

const enc = new TextEncoder();
const files = () =>
  new Map(
    Object.entries({
      'metadata/annotations.yaml': 'annotations:\n  operators.operatorframework.io.bundle.package.v1: pkg\n',
      'manifests/a.yaml':
        'apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata: {name: a}\nspec: {installModes: [{type: AllNamespaces, supported: true}]}\n',
      'manifests/b.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: theirs, labels: {app: x}}\ndata: {k: v}\n',
      'manifests/c.yaml': 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: c}\nrules: []\n',
    }).map(([k, v]) => [k, enc.encode(v)]),
  );

describe('parseBundle othersAsLines', () => {
  it('keeps each other object as its JSON line, with a stub of its identity in others', () => {
    const whole = parseBundle(files(), { consume: true });
    const lines = parseBundle(files(), { consume: true, othersAsLines: true });
    if (!whole.ok || !lines.ok) throw new Error('parse failed');
    const kept = lines.value.otherLines;
    expect(kept === undefined ? [] : Array.from({ length: kept.length }, (_, i) => kept.at(i))).toEqual(
      whole.value.others.map((o) => JSON.stringify(o)),
    );
    expect(kept?.left).toBe(2);
    expect(JSON.parse(JSON.stringify(lines.value.others))).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'theirs' } },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'c' } },
    ]);
    expect(lines.value.csv).toEqual(whole.value.csv);
  });
});

describe('otherLineFinder and takeOtherObject', () => {
  it('match a rendered copy of a stub to its line by identity, and give back its object with the copy metadata, once', () => {
    const parsed = parseBundle(files(), { consume: true, othersAsLines: true });
    if (!parsed.ok) throw new Error(parsed.error);
    const lines = parsed.value.otherLines;
    const [cm, role] = parsed.value.others;
    if (cm === undefined || role === undefined || lines === undefined) throw new Error('no stubs');
    // What the renderer and the owner labels make of a stub: copies with namespace and labels.
    const rendered = { ...cm, metadata: { ...cm.metadata, namespace: 'install', labels: { owner: 'ext' } } };
    const lineOf = otherLineFinder(parsed.value);
    // A generated object (here a ServiceAccount) is no line; each stub's line is found once.
    expect(lineOf({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'b' } })).toBeUndefined();
    expect(lineOf(JSON.parse(JSON.stringify(role)) as typeof role)).toBe(1);
    expect(lineOf(rendered)).toBe(0);
    expect(lineOf(rendered)).toBeUndefined();
    expect(takeOtherObject(lines, 0, rendered)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'b', namespace: 'install', labels: { app: 'x', owner: 'ext' } },
      data: { k: 'v' },
    });
    expect(lines.at(0)).toBeUndefined();
    expect(lines.left).toBe(1);
    expect(() => takeOtherObject(lines, 0, rendered)).toThrow('bundle object 1 (ConfigMap) was taken already');
    expect(takeOtherObject(lines, 1, { ...role })).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'c' },
      rules: [],
    });
    expect(lines.left).toBe(0);
  });

  it('finds no line in a bundle that keeps none', () => {
    const whole = parseBundle(files(), { consume: true });
    if (!whole.ok) throw new Error(whole.error);
    expect(whole.value.others.map(otherLineFinder(whole.value))).toEqual([undefined, undefined]);
  });
});
