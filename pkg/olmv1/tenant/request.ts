/**
 * The Extension a tenant's install asks for (issue 73, decision 0138), from the console's install
 * form: pure. The request names the package and, optionally, a version range and one channel;
 * the namespace is the request's own (its install namespace), and no ServiceAccount is named,
 * so the tenant controller makes the least-privilege installer for it.
 */
import { EXTENSION } from '../../shared/api/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';

/** What the form says; `version` and `channel` empty or undefined: any. */
interface RequestForm {
  namespace: string;
  name: string;
  packageName: string;
  version?: string | undefined;
  channel?: string | undefined;
}

/** The Extension object `f` asks for. */
export function extensionRequest(f: RequestForm): KubeObject {
  const version = f.version?.trim() ?? '';
  const channel = f.channel?.trim() ?? '';
  return {
    apiVersion: EXTENSION.apiVersion,
    kind: EXTENSION.kind,
    metadata: { name: f.name, namespace: f.namespace },
    spec: {
      source: {
        sourceType: 'Catalog',
        catalog: { packageName: f.packageName, ...(version === '' ? {} : { version }), ...(channel === '' ? {} : { channels: [channel] }) },
      },
    },
  };
}
