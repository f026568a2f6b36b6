/**
 * An informer's objects by the value of one of their labels, kept from its events: a reader asks
 * for the objects labelled `value` without scanning (and copying) the whole cache, as client-go's
 * indexers answer `ByIndex`. Every event updates it synchronously, so it agrees with the
 * informer's cache after each one.
 */
import type { Informer } from './informer.ts';
import { objectKey, type KubeObject } from '../unstructured/index.ts';

/** Indexes `informer`'s objects by their label `label` (for as long as the informer lives); the function returned gives those labelled `value`. */
export function labelIndex<T extends KubeObject>(informer: Pick<Informer<T>, 'addHandler'>, label: string): (value: string) => Array<Readonly<T>> {
  const byValue = new Map<string, Map<string, Readonly<T>>>();
  const valueOf = new Map<string, string>();
  informer.addHandler((type, obj) => {
    const key = objectKey(obj);
    const before = valueOf.get(key);
    const now = type === 'delete' ? undefined : obj.metadata.labels?.[label];
    if (before !== undefined && before !== now) {
      const bucket = byValue.get(before);
      bucket?.delete(key);
      if (bucket?.size === 0) byValue.delete(before);
      valueOf.delete(key);
    }
    if (now === undefined) return;
    valueOf.set(key, now);
    const bucket = byValue.get(now) ?? new Map<string, Readonly<T>>();
    bucket.set(key, obj);
    byValue.set(now, bucket);
  });
  return (value) => [...(byValue.get(value)?.values() ?? [])];
}
