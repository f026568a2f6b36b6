/**
 * Deep equality of releases by what their manifests hold: a record read back holds its
 * manifest as text (or lines), the release written held objects, and the two are the same
 * release when their objects are. Call `compareManifestsByObjects()` at the top of a test file
 * whose `toEqual`s compare such releases; a manifest that does not parse equals nothing.
 */
import { expect } from 'vitest';
import { jsonEqual } from '../../pkg/shared/controller/index.ts';
import { Manifest } from '../../pkg/operator-controller/release/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';

function objectsOf(m: Manifest): readonly KubeObject[] | undefined {
  try {
    return m.objects();
  } catch {
    return undefined;
  }
}

/** Makes this test file's deep equalities compare two Manifests by their objects, whatever their forms. */
export function compareManifestsByObjects(): void {
  expect.addEqualityTesters([
    (a: unknown, b: unknown): boolean | undefined => {
      if (!(a instanceof Manifest) || !(b instanceof Manifest)) return undefined;
      const x = objectsOf(a);
      const y = objectsOf(b);
      return x !== undefined && y !== undefined && jsonEqual(x, y);
    },
  ]);
}
