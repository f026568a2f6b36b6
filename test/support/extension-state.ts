/**
 * The state one ClusterExtension reconcile's steps share (pkg/operator-controller/clusterextension
 * pipeline-state.ts), for unit tests of single steps: extension `ext`, generation 1, installed
 * into namespace `ns` as ServiceAccount `sa` from package `p`, nothing read or resolved yet.
 */
import pino from 'pino';
import type { ClusterExtension } from '../../pkg/shared/api/index.ts';
import type { ExtensionState } from '../../pkg/operator-controller/clusterextension/index.ts';

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
