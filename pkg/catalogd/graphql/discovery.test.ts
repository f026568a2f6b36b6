import { describe, expect, it } from 'vitest';
import { type CatalogShape, addBlob } from './discovery.ts';

function shapeOf(...blobs: Array<Record<string, unknown>>): CatalogShape {
  const shape: CatalogShape = new Map();
  for (const b of blobs) addBlob(shape, String(b.schema), b);
  return shape;
}

describe('schema discovery', () => {
  it('types scalars from the first blob that carries them: integral numbers Int, others Float, objects String', () => {
    const s = shapeOf({ schema: 's', a: 1, b: 1.5, c: true, d: { x: 1 }, e: null }, { schema: 's', a: 2.5, f: 'x' }).get('s');
    expect(s?.totalObjects).toBe(2);
    expect(Object.fromEntries([...(s?.fields ?? [])].map(([n, f]) => [n, `${f.type}${f.isArray ? '[]' : ''}`]))).toEqual({
      schema: 'String',
      a: 'Int',
      b: 'Float',
      c: 'Boolean',
      d: 'String',
      e: 'String',
      f: 'String',
    });
  });

  it('arrays: typed by their first non-null element, mixed scalars are String, objects get the union of the fields of up to 10 elements', () => {
    const elements = Array.from({ length: 12 }, (_, i) => ({ [`k${i}`]: i }));
    const s = shapeOf({ schema: 's', nums: [null, 3], mixed: [1, 'a'], empty: [], objs: elements }).get('s');
    expect(s?.fields.get('nums')).toMatchObject({ type: 'Int', isArray: true });
    expect(s?.fields.get('mixed')).toMatchObject({ type: 'String', isArray: true });
    expect(s?.fields.get('empty')).toEqual({ name: 'empty', key: 'empty', type: 'String', isArray: true });
    expect([...(s?.fields.get('objs')?.nested?.keys() ?? [])]).toEqual(['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9']);
  });

  it('nested fields merge across blobs, the first type seen winning; a field first seen empty gets its element fields later', () => {
    const s = shapeOf(
      { schema: 'olm.channel', entries: [] },
      { schema: 'olm.channel', entries: [{ name: 'a', skips: ['x'] }] },
      { schema: 'olm.channel', entries: [{ name: 5, replaces: 'a' }] },
    ).get('olm.channel');
    const nested = s?.fields.get('entries')?.nested;
    expect(nested?.get('name')).toMatchObject({ type: 'String', isArray: false });
    expect(nested?.get('skips')).toMatchObject({ type: 'String', isArray: true });
    expect(nested?.get('replaces')).toMatchObject({ type: 'String', isArray: false });
  });
});
