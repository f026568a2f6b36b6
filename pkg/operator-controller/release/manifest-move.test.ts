// A record's manifest text moved into lines held elsewhere (decision 0098 item 17): only a
// large text of JSON lines as we and upstream write them moves, it reads as before (identities,
// equality, the same objects, the same text back byte for byte), and the holder lets go of it.
import { describe, expect, it, vi } from 'vitest';
import type { KubeObject } from '../../shared/kube/index.ts';
import { jsonEqual } from '../../shared/controller/index.ts';
import {
  manifestEquals,
  manifestIdentities,
  manifestLine,
  manifestObjects,
  moveManifestText,
  unparsedManifest,
  withLazyManifest,
  withManifestLines,
} from './manifest.ts';

const objects: KubeObject[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' }, data: { k: 'v\n"quoted"' } },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r' }, rules: [] },
  { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns' }, stringData: { x: 'ü €' } },
];
const text = objects.map(manifestLine).join('');
const record = (t = text) => withLazyManifest({ revision: 1 }, t, 'Secret "olmv1-system/rec"');
/** True while `manifest` is still the getter, i.e. nothing parsed the objects yet. */
const unparsed = (holder: object): boolean => Object.getOwnPropertyDescriptor(holder, 'manifest')?.get !== undefined;
/** Every string the holder's own properties, symbol-keyed ones included, reach one level down. */
function reachableStrings(holder: object): string[] {
  const out: string[] = [];
  for (const key of Reflect.ownKeys(holder)) {
    const desc = Object.getOwnPropertyDescriptor(holder, key);
    const value: unknown = desc?.value;
    if (typeof value === 'string') out.push(value);
    else if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) if (typeof v === 'string') out.push(v);
  }
  return out;
}

describe('moveManifestText', () => {
  it('moves a text longer than the threshold into the sink, one line per object, and reads as before', () => {
    const holder = record();
    const sink: string[] = [];
    expect(moveManifestText(holder, text.length - 1, () => sink)).toBe(sink);
    expect(sink).toEqual(objects.map((o) => JSON.stringify(o)));
    expect(unparsed(holder)).toBe(true);
    expect(reachableStrings(holder)).not.toContain(text);
    expect([...(unparsedManifest(holder) ?? [])].join('')).toBe(text);
    expect(manifestIdentities(holder).map((o) => o.metadata.name)).toEqual(['a', 'r', 's']);
    expect(manifestEquals(holder, record(), jsonEqual)).toBe(true);
    expect(manifestEquals(holder, withManifestLines({}, sink.slice(0, 2), 'rendering'), jsonEqual)).toBe(false);
    expect(manifestObjects(holder).at(2)).toEqual(objects[2]);
    expect(unparsed(holder)).toBe(true);
    expect(holder.manifest).toEqual(objects);
  });

  it('keeps the identities read before the move, without reading the sink for them again', () => {
    const holder = record();
    expect(manifestIdentities(holder)).toHaveLength(3);
    const sink = objects.map((o) => JSON.stringify(o));
    const moved: string[] = [];
    moveManifestText(holder, 0, () => moved);
    const read = vi.spyOn(moved, Symbol.iterator);
    expect(manifestIdentities(holder).map((o) => o.kind)).toEqual(['ConfigMap', 'ClusterRole', 'Secret']);
    expect(read).not.toHaveBeenCalled();
    expect(moved).toEqual(sink);
  });

  it('leaves a text at or below the threshold, without opening a sink', () => {
    const open = vi.fn(() => [] as string[]);
    const holder = record();
    expect(moveManifestText(holder, text.length, open)).toBeUndefined();
    expect(open).not.toHaveBeenCalled();
    expect(reachableStrings(holder)).toContain(text);
  });

  it.each([
    ['YAML documents (Helm before upstream wrote JSON lines)', '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'],
    ['an empty line', `${manifestLine(objects[0] as KubeObject)}\n${manifestLine(objects[1] as KubeObject)}`],
    ['no "\\n" after the last line', text.slice(0, -1)],
    ['"\\r\\n" line ends', text.replaceAll('\n', '\r\n')],
    ['a line that is not an object', `${text}[1, 2]\n`],
    ['leading blanks', ` ${text}`],
  ])('leaves a text with %s as it is', (_what, shaped) => {
    const open = vi.fn(() => [] as string[]);
    const holder = record(shaped);
    expect(moveManifestText(holder, 0, open)).toBeUndefined();
    expect(open).not.toHaveBeenCalled();
    expect([...(unparsedManifest(holder) ?? [])].join('')).toBe(shaped);
  });

  it('moves nothing once the objects are parsed, nor from lines', () => {
    const open = vi.fn(() => [] as string[]);
    const parsed = record();
    expect(parsed.manifest).toHaveLength(3);
    expect(moveManifestText(parsed, 0, open)).toBeUndefined();
    expect(moveManifestText(withManifestLines({}, ['{}'], 'rendering'), 0, open)).toBeUndefined();
    expect(open).not.toHaveBeenCalled();
  });

  it('throws on reading a corrupt line after the move, naming the record', () => {
    const holder = record(`${manifestLine(objects[0] as KubeObject)}{"kind": "ConfigMap"}\n`);
    moveManifestText(holder, 0, () => [] as string[]);
    expect(() => holder.manifest).toThrow(
      'release record Secret "olmv1-system/rec" is corrupt: object 2 is not JSON of an object with apiVersion, kind and metadata',
    );
  });

  it('leaves the text in the holder when the sink fails part way', () => {
    const holder = record();
    let pushed = 0;
    const failing = Object.assign([] as string[], {
      push: (): number => {
        if (++pushed === 2) throw new Error('ENOSPC');
        return pushed;
      },
    });
    expect(() => moveManifestText(holder, 0, () => failing)).toThrow('ENOSPC');
    expect(reachableStrings(holder)).toContain(text);
    expect(holder.manifest).toEqual(objects);
  });
});
