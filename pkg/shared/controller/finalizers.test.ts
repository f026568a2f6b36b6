import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/index.ts';
import { addFinalizers, hasFinalizer, isDeleting, removeFinalizer } from './finalizers.ts';

describe('finalizers', () => {
  const object = (finalizers?: string[], deletionTimestamp?: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'x', ...(finalizers === undefined ? {} : { finalizers }), ...(deletionTimestamp === undefined ? {} : { deletionTimestamp }) },
  });

  it('isDeleting follows metadata.deletionTimestamp', () => {
    expect(isDeleting(object())).toBe(false);
    expect(isDeleting(object([], '2024-01-01T00:00:00Z'))).toBe(true);
  });

  it('addFinalizers appends only the missing names in the given order', () => {
    const o = object(['a']);
    expect(addFinalizers(o, ['b', 'a', 'c'])).toBe(true);
    expect(o.metadata.finalizers).toEqual(['a', 'b', 'c']);
    expect(addFinalizers(o, ['c', 'a'])).toBe(false);
    expect(o.metadata.finalizers).toEqual(['a', 'b', 'c']);
    const bare = object();
    expect(addFinalizers(bare, ['x'])).toBe(true);
    expect(bare.metadata.finalizers).toEqual(['x']);
  });

  it('hasFinalizer and removeFinalizer; the list is dropped when it becomes empty', () => {
    const o = object(['a', 'b']);
    expect(hasFinalizer(o, 'a')).toBe(true);
    expect(removeFinalizer(o, 'a')).toBe(true);
    expect(o.metadata.finalizers).toEqual(['b']);
    expect(hasFinalizer(o, 'a')).toBe(false);
    expect(removeFinalizer(o, 'a')).toBe(false);
    expect(removeFinalizer(o, 'b')).toBe(true);
    expect(o.metadata).not.toHaveProperty('finalizers');
    expect(hasFinalizer(object(), 'a')).toBe(false);
    expect(removeFinalizer(object(), 'a')).toBe(false);
  });
});
