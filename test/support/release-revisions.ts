/** Builders of release revisions and CRDs for the rollback, upgrade-gate and runtime-migration unit tests. */
import type { KubeObject } from '../../pkg/shared/unstructured/index.ts';
import type { Release } from '../../pkg/operator-controller/release/index.ts';
import { Manifest } from '../../pkg/operator-controller/release/index.ts';

/** A revision of extension `foo` installing `foo.v<version>`. */
export function rev(revision: number, status: Release['status'], version: string, extra: Partial<Release> = {}): Release {
  return {
    extension: 'foo',
    extensionUID: 'uid',
    revision,
    status,
    bundle: { package: 'foo', name: `foo.v${version}`, version, image: `registry/foo:v${version}` },
    manifest: Manifest.ofObjects([]),
    properties: [],
    description: status === 'failed' ? 'boom' : 'Upgrade complete',
    ...extra,
  };
}

/** A record of extension `ext` (uid `ce-uid`, namespace `ns`) installing `p.v<version>` with `objects`, described by its status. */
export function extRecord(revision: number, status: Release['status'], version: string, objects: KubeObject[]): Release {
  return {
    extension: 'ext',
    extensionUID: 'ce-uid',
    revision,
    status,
    namespace: 'ns',
    bundle: { package: 'p', name: `p.v${version}`, version, image: `img:${version}` },
    manifest: Manifest.ofObjects(objects),
    properties: [],
    description: status,
  };
}

/** A CRD `<name>` with the given versions (each with an object `spec` of `props`); the first is stored unless `storage` says otherwise. */
export function crd(
  name: string,
  versions: { name: string; props?: Record<string, unknown>; storage?: boolean }[],
  storedVersions?: string[],
  scope = 'Namespaced',
): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group: name.split('.').slice(1).join('.'),
      scope,
      names: { kind: 'Widget', plural: name.split('.')[0] },
      versions: versions.map((v, i) => ({
        name: v.name,
        served: true,
        storage: v.storage ?? i === 0,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: v.props ?? {} } } } },
      })),
    },
    ...(storedVersions === undefined ? {} : { status: { storedVersions } }),
  };
}

/** The deployed revision 1 of `extension` (package of the same name): bundle `bundle`, no objects, `olm.maxOpenShiftVersion` `max`. */
export function cappedRelease(extension: string, bundle: string, max: string): Release {
  return {
    extension,
    extensionUID: 'u',
    revision: 1,
    status: 'deployed',
    bundle: { package: extension, name: bundle, version: '1.0.0', image: `registry.example/${bundle}` },
    manifest: Manifest.ofObjects([]),
    properties: [{ type: 'olm.maxOpenShiftVersion', value: max }],
    description: 'Install complete',
  };
}
