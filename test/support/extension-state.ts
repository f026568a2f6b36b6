/**
 * The state one ClusterExtension reconcile's steps share (pkg/operator-controller/clusterextension
 * pipeline-state.ts), for unit tests of single steps: extension `ext`, generation 1, installed
 * into namespace `ns` as ServiceAccount `sa` from package `p`, nothing read or resolved yet.
 */
import pino from 'pino';
import type { ClusterExtension } from '../../pkg/shared/api/index.ts';
import type { ExtensionState } from '../../pkg/operator-controller/clusterextension/index.ts';
import { Manifest, type Release, type ReleaseBundle } from '../../pkg/operator-controller/release/index.ts';

/**
 * A fresh state; `spec` fields and state fields given here replace the defaults. The working
 * copy `ce` carries the spec, `name` and `uid` unless one is given.
 */
export function extensionState(o: { spec?: Record<string, unknown>; name?: string; uid?: string } & Partial<ExtensionState> = {}): ExtensionState {
  const { spec: fields, name = 'ext', uid = 'u', ...rest } = o;
  const spec = {
    namespace: 'ns',
    serviceAccount: { name: 'sa' },
    source: { sourceType: 'Catalog', catalog: { packageName: 'p' } },
    ...fields,
  } as ClusterExtension['spec'];
  const ce: ClusterExtension = rest.ce ?? {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name, uid, generation: 1 },
    spec,
  };
  return {
    installer: { namespace: 'ns', name: 'sa', isDefault: false },
    log: pino({ level: 'silent' }),
    signal: new AbortController().signal,
    held: new DisposableStack(),
    history: [],
    ...rest,
    ce,
  };
}

/** Bundle `p.v<version>` of package `p`, image `img:<version>`. */
export function bundleOfP(version: string): ReleaseBundle {
  return { package: 'p', name: `p.v${version}`, version, image: `img:${version}` };
}

/**
 * `extensionState` with `annotations` on the extension and a deployed release (revision 1, one
 * ConfigMap `old` in ns) of bundle `installedVersion` of package p; nothing installed when null.
 */
export function deployedState(annotations: Record<string, string> | undefined, installedVersion: string | null = '1.0.0'): ExtensionState {
  const release =
    installedVersion === null
      ? undefined
      : ({
          extension: 'ext',
          revision: 1,
          status: 'deployed',
          bundle: bundleOfP(installedVersion),
          manifest: Manifest.ofObjects([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'old', namespace: 'ns' }, data: { a: 'old' } }]),
          properties: [],
        } as unknown as Release);
  const base = extensionState();
  return extensionState({
    ce: { ...base.ce, metadata: { ...base.ce.metadata, ...(annotations === undefined ? {} : { annotations }) } },
    history: release === undefined ? [] : [release],
    ...(release === undefined ? {} : { installed: release }),
  });
}
