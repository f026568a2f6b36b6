/**
 * A bundle's other objects kept as JSON lines (parseBundle's `othersAsLines`, decision 0098):
 * about a third of their cost as objects. `others` then holds a stub of each (apiVersion, kind,
 * name, namespace: all the renderer reads of them) that names its line, and the caller turns
 * each rendered stub back into its object one at a time ({@link takeOtherObject}).
 */
import type { KubeObject, OtherLines, RegistryV1Bundle } from './types.ts';

/** The index in `otherLines` of the object a stub stands for. */
const LINE = Symbol('line of a bundle object kept as JSON');

interface Stub {
  [LINE]?: number;
}

/**
 * The stub of `obj`, whose JSON is `otherLines[index]`. Copies of the stub (`{ ...stub }`, as
 * the renderer makes them) keep naming the line: object spread copies symbol-keyed properties.
 */
export function otherStub(obj: KubeObject, index: number): KubeObject {
  const meta = obj.metadata as Record<string, unknown>;
  const metadata: Record<string, unknown> = {};
  if ('name' in meta) metadata['name'] = meta['name'];
  if ('namespace' in meta) metadata['namespace'] = meta['namespace'];
  const stub: KubeObject & Stub = { apiVersion: obj.apiVersion, kind: obj.kind, metadata: metadata as KubeObject['metadata'] };
  Object.defineProperty(stub, LINE, { value: index, enumerable: true });
  return stub;
}

/**
 * The object a (copy of a) stub of `lines` stands for, parsed from its line, with what the
 * stub's metadata gained (the install namespace, labels merged over its own); the line is
 * cleared, so each is taken once. Undefined for any other object; throws when taken already.
 */
export function takeOtherObject(lines: RegistryV1Bundle['otherLines'], obj: KubeObject): KubeObject | undefined {
  const index = (obj as Stub)[LINE];
  if (index === undefined) return undefined;
  const line = lines?.at(index);
  if (lines === undefined || line === undefined) throw new Error(`bundle object ${index + 1} (${obj.kind}) was taken already`);
  lines.drop(index);
  const full = JSON.parse(line) as KubeObject;
  const labels = obj.metadata.labels === undefined ? {} : { labels: { ...full.metadata.labels, ...obj.metadata.labels } };
  return { ...full, metadata: { ...full.metadata, ...obj.metadata, ...labels } };
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
