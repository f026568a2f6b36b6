/**
 * A bundle's other objects kept as JSON lines (parseBundle's `othersAsLines`, decision 0098):
 * about a third of their cost as objects. `others` then holds a stub of each at the position of
 * its line (apiVersion, kind, name, namespace: all the renderer reads of them), and the caller
 * matches each rendered object to the stub it was made from by that identity
 * ({@link otherLineFinder}) and turns it back into its object one at a time
 * ({@link takeOtherObject}). Values only: a stub is a plain object, its line its position.
 */
import type { KubeObject, OtherLines, RegistryV1Bundle } from './types.ts';

/** The stub of `obj`: what the renderer reads of it. */
export function otherStub(obj: KubeObject): KubeObject {
  const meta = obj.metadata as Record<string, unknown>;
  const metadata: Record<string, unknown> = {};
  if ('name' in meta) metadata['name'] = meta['name'];
  if ('namespace' in meta) metadata['namespace'] = meta['namespace'];
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata: metadata as KubeObject['metadata'] };
}

const identity = (obj: KubeObject): string => `${obj.apiVersion}\u0000${obj.kind}\u0000${String(obj.metadata?.name ?? '')}`;

/**
 * For a bundle whose others are kept as lines, a finder of the line a rendered object was made
 * from: by apiVersion, kind and name (the renderer moves namespaced objects to the install
 * namespace, so the namespace is not compared), the first stub not yet matched for objects that
 * share them (the renderer keeps their order). Undefined for an object no stub stands for (a
 * generated one), and for every object when the bundle keeps no lines.
 */
export function otherLineFinder(bundle: Pick<RegistryV1Bundle, 'others' | 'otherLines'>): (rendered: KubeObject) => number | undefined {
  if (bundle.otherLines === undefined) return () => undefined;
  const waiting = Map.groupBy(bundle.others.keys(), (index) => identity(bundle.others[index] as KubeObject));
  return (rendered) => waiting.get(identity(rendered))?.shift();
}

/**
 * The object of line `index` of `lines`, with what its rendered copy's metadata gained (the
 * install namespace, labels merged over its own); the line is cleared, so each is taken once:
 * throws when taken already.
 */
export function takeOtherObject(lines: OtherLines, index: number, rendered: KubeObject): KubeObject {
  const line = lines.at(index);
  if (line === undefined) throw new Error(`bundle object ${index + 1} (${rendered.kind}) was taken already`);
  lines.drop(index);
  const full = JSON.parse(line) as KubeObject;
  const labels = rendered.metadata.labels === undefined ? {} : { labels: { ...full.metadata.labels, ...rendered.metadata.labels } };
  return { ...full, metadata: { ...full.metadata, ...rendered.metadata, ...labels } };
}

/** Other objects' lines in an array (parseBundle's `othersAsLines: true`). */
export function arrayLines(): OtherLines {
  const lines: (string | undefined)[] = [];
  let dropped = 0;
  return {
    get length() {
      return lines.length;
    },
    get left() {
      return lines.length - dropped;
    },
    push: (line) => lines.push(line),
    at: (index) => lines.at(index),
    drop(index) {
      if (lines[index] === undefined) return;
      lines[index] = undefined;
      dropped++;
    },
  };
}
