/**
 * Deterministic YAML serialisation of rendered objects: one document per object, each
 * starting with `---`, keys sorted at every level (as Go's YAML output does), no line
 * folding, no anchors (shared values are written out in full), strings that YAML 1.1 or 1.2
 * would read as another type quoted. The same objects always give the same bytes.
 */
import { dump } from 'js-yaml';
import type { KubeObject } from '../bundle/index.ts';

/** One object as a YAML document (without the `---` separator), ending in "\n". */
export function objectToYaml(obj: KubeObject): string {
  return dump(obj, { sortKeys: true, lineWidth: -1, noRefs: true, skipInvalid: true });
}

/** All objects as a multi-document YAML stream, in the given order. */
export function objectsToYaml(objects: readonly KubeObject[]): string {
  return objects.map((o) => `---\n${objectToYaml(o)}`).join('');
}
