// A release's manifest as a value (decision 0098): held as a record's text, as JSON lines or as
// objects; identities, iteration, equality and text come from the text and lines one object at
// a time, and only objects() parses the whole.
import { describe, expect, it, vi, type MockInstance } from 'vitest';
import type { KubeObject } from '../../shared/kube/index.ts';
import { jsonEqual } from '../../shared/controller/index.ts';
import { Manifest, manifestLine } from './manifest.ts';

const objects: KubeObject[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', labels: { x: 'y' } }, data: { k: 'v' } },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' }, rules: [] },
];
const text = objects.map(manifestLine).join('');
const lines = objects.map((o) => JSON.stringify(o));
const record = (t = text) => Manifest.ofText(t, 'Secret "ns/rec"');
const rendered = (l = lines) => Manifest.ofLines(l, 'the rendering of bundle "b"');
const yaml = () => record('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: ns\n---\n');
/** Spies on `manifest.objects()`, the one read that parses everything. */
const wholeReads = (manifest: Manifest): MockInstance => vi.spyOn(manifest, 'objects');
const ids = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' } },
];
const equal = (a: KubeObject, b: KubeObject) => jsonEqual(a, b);

describe('Manifest forms', () => {
  it('give the same objects and the same manifest string, whatever the form', () => {
    for (const m of [record(), rendered(), Manifest.ofObjects(objects)]) {
      expect(m.objects()).toEqual(objects);
      expect([...m.text()].join('')).toBe(text);
    }
  });

  it('parse text and lines anew on every whole read: a value never changes form', () => {
    const m = record();
    expect(m.objects()).not.toBe(m.objects());
    const parsed = Manifest.ofObjects(objects);
    expect(parsed.objects()).toBe(objects);
  });

  it('throw on a whole read of a corrupt manifest, naming the record or the rendering', () => {
    expect(() => record('{"apiVersion": "v1", "kind": "ConfigMap"}\n').objects()).toThrow(
      'release record Secret "ns/rec" is corrupt: manifest document 1 is not an object with apiVersion, kind and metadata',
    );
    expect(() => rendered(['{"kind":"ConfigMap"}']).objects()).toThrow(
      'the rendering of bundle "b": object 1 is not JSON of an object with apiVersion, kind and metadata',
    );
  });

  it('are cheap to spread: a release copied with changes shares its manifest, nothing parsed', () => {
    const m = record();
    const whole = wholeReads(m);
    const release = { revision: 1, manifest: m };
    const revised = { ...release, revision: 2 };
    expect(revised.manifest).toBe(m);
    expect(Object.keys(revised)).toEqual(['revision', 'manifest']);
    expect(whole).not.toHaveBeenCalled();
  });
});

describe('identities', () => {
  it('are read from text and lines without a whole parse', () => {
    for (const m of [record(), rendered()]) {
      const whole = wholeReads(m);
      expect(m.identities()).toEqual(ids);
      expect(whole).not.toHaveBeenCalled();
    }
  });

  it('are the same from parsed objects, and from a YAML record through the full parse', () => {
    expect(Manifest.ofObjects(objects).identities()).toEqual(ids);
    expect(yaml().identities()).toEqual([ids[0]]);
  });

  it('are read once per manifest, shared by every release holding it, a new array each call', () => {
    const m = rendered();
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const first = m.identities();
      expect(m.identities()).toEqual(first);
      expect(m.identities()).not.toBe(first);
      expect(parse).toHaveBeenCalledTimes(lines.length);
    } finally {
      parse.mockRestore();
    }
  });

  it('throw as the whole read would on a line that is not an object', () => {
    expect(() => record(`${manifestLine(objects[0] as KubeObject)}{"kind": 1}\n`).identities()).toThrow(/is corrupt/);
  });
});

describe('equals', () => {
  it('is true line by line for the objects recorded, without a whole parse', () => {
    const m = record();
    const whole = wholeReads(m);
    expect(m.equals(Manifest.ofObjects(structuredClone(objects)), equal)).toBe(true);
    expect(m.equals(rendered(), equal)).toBe(true);
    expect(rendered().equals(m, equal)).toBe(true);
    expect(whole).not.toHaveBeenCalled();
  });

  it('compares values where the text differs: keys in another order (upstream writes them sorted) are the same objects', () => {
    const upstream = `{"apiVersion":"v1","data":{"k":"v"},"kind":"ConfigMap","metadata":{"labels":{"x":"y"},"name":"a","namespace":"ns"}}\n${lines[1]}\n`;
    expect(upstream).not.toBe(text);
    const m = record(upstream);
    const whole = wholeReads(m);
    expect(m.equals(Manifest.ofObjects(objects), equal)).toBe(true);
    expect(m.equals(rendered(), equal)).toBe(true);
    expect(whole).not.toHaveBeenCalled();
  });

  it('is false for other objects, fewer or more of them', () => {
    const changed = structuredClone(objects);
    (changed[0] as unknown as { data: Record<string, string> }).data['k'] = 'w';
    expect(record().equals(Manifest.ofObjects(changed), equal)).toBe(false);
    expect(record().equals(Manifest.ofObjects(objects.slice(0, 1)), equal)).toBe(false);
    expect(record().equals(Manifest.ofObjects([...objects, objects[0] as KubeObject]), equal)).toBe(false);
    expect(record().equals(rendered([lines[0] as string, lines[0] as string]), equal)).toBe(false);
    expect(record().equals(rendered(lines.slice(0, 1)), equal)).toBe(false);
    expect(record().equals(rendered([...lines, lines[0] as string]), equal)).toBe(false);
  });

  it('compares parsed objects, and YAML records, whole', () => {
    expect(Manifest.ofObjects(objects).equals(Manifest.ofObjects(structuredClone(objects)), equal)).toBe(true);
    expect(yaml().equals(Manifest.ofObjects([ids[0] as KubeObject]), equal)).toBe(true);
    expect(yaml().equals(Manifest.ofObjects(objects), equal)).toBe(false);
  });
});

describe('map and where', () => {
  it('hand each object with its line, one at a time, and keep only what they pick', () => {
    for (const m of [record(), rendered()]) {
      const whole = wholeReads(m);
      const seen: Array<string | undefined> = [];
      expect(m.map((o, line) => (seen.push(line), o.kind))).toEqual(['ConfigMap', 'ClusterRole']);
      expect(seen).toEqual(lines);
      expect(m.where((o) => o.kind === 'ClusterRole')).toEqual([objects[1]]);
      expect(whole).not.toHaveBeenCalled();
    }
  });

  it('read parsed objects and YAML records without lines, and throw as the whole read would on a corrupt line', () => {
    expect(Manifest.ofObjects(objects).map((_o, line) => line)).toEqual([undefined, undefined]);
    expect(yaml().where(() => true)).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } }]);
    expect(() => record(`${manifestLine(objects[0] as KubeObject)}[1]\n`).where(() => true)).toThrow(/is corrupt/);
  });
});

describe('sequence', () => {
  it('hands out objects by position, each parsed alone and fresh, from text and lines', () => {
    for (const m of [rendered(), record()]) {
      const whole = wholeReads(m);
      const seq = m.sequence();
      expect(seq.length).toBe(2);
      expect(seq.at(1)).toEqual(objects[1]);
      expect(seq.at(1)).not.toBe(seq.at(1));
      expect(seq.at(2)).toBeUndefined();
      expect(whole).not.toHaveBeenCalled();
    }
  });

  it('is the objects themselves when parsed, and the full parse of a YAML record', () => {
    expect(Manifest.ofObjects(objects).sequence()).toBe(objects);
    const m = record('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n');
    expect(m.sequence().at(0)).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
  });
});
