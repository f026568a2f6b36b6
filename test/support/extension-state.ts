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
 * copy `ce` carries the spec (and `name`) unless one is given.
 */
export function extensionState(o: { spec?: Record<string, unknown> } & Partial<Omit<ExtensionState, 'spec'>> = {}): ExtensionState {
  const { spec: fields, ...rest } = o;
  const name = rest.name ?? 'ext';
  const spec = {
    namespace: 'ns',
    serviceAccount: { name: 'sa' },
    source: { sourceType: 'Catalog', catalog: { packageName: 'p' } },
    ...fields,
  } as ExtensionState['spec'];
  const ce: ClusterExtension = rest.ce ?? {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name, generation: 1 },
    spec,
  };
  return {
    name,
    uid: 'u',
    spec: ce.spec,
    installer: { namespace: 'ns', name: 'sa', isDefault: false },
    log: pino({ level: 'silent' }),
    signal: new AbortController().signal,
    history: [],
    ...rest,
    ce,
  };
}
