/**
 * ServiceAccount helpers for tests: create one, get a token through the TokenRequest API, and
 * build a kubeconfig that authenticates with that token. All requests use the admin token of
 * the control plane; none depends on the project's own kube client.
 */
import { kubeRequest, renderKubeconfig, type ControlPlaneInfo } from '../../pkg/olmv1/localstack/index.ts';

/** What the helpers need from a control plane. */
type AdminAccess = Pick<ControlPlaneInfo, 'server' | 'caPem' | 'adminToken'>;

/** Options of requestServiceAccountToken. */
export interface TokenRequestOptions {
  /** Token lifetime; the API server enforces a minimum of 600 s (default 3600). */
  expirationSeconds?: number;
  /** Audiences; the API server's issuer when omitted. */
  audiences?: string[];
}

/**
 * Creates namespace `namespace` and ServiceAccount `name` in it; both may already exist.
 * Throws with the API server's answer on any other failure.
 */
export async function ensureServiceAccount(cp: AdminAccess, namespace: string, name: string): Promise<void> {
  await createIfAbsent(cp, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  await createIfAbsent(cp, `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts`, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name, namespace },
  });
}

/**
 * Returns a fresh token for ServiceAccount `namespace/name` from the TokenRequest API
 * (`POST .../serviceaccounts/NAME/token`). Throws with status and body when the request
 * fails (e.g. 404 when the ServiceAccount does not exist).
 */
export async function requestServiceAccountToken(
  cp: AdminAccess,
  namespace: string,
  name: string,
  options: TokenRequestOptions = {},
): Promise<string> {
  const spec: Record<string, unknown> = { expirationSeconds: options.expirationSeconds ?? 3600 };
  if (options.audiences !== undefined) spec['audiences'] = options.audiences;
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${encodeURIComponent(name)}/token`;
  const res = await kubeRequest(cp, {
    method: 'POST',
    path,
    auth: { token: cp.adminToken },
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec },
  });
  if (res.status !== 201) throw new Error(`TokenRequest for ${namespace}/${name} failed: ${res.status} ${res.body}`);
  const token = res.json<{ status?: { token?: string } }>().status?.token;
  if (token === undefined || token === '') throw new Error(`TokenRequest for ${namespace}/${name} returned no token`);
  return token;
}

/** A kubeconfig (YAML) for the control plane that authenticates with `token`. */
export function serviceAccountKubeconfig(
  cp: Pick<ControlPlaneInfo, 'server' | 'caPem'>,
  token: string,
  options: { userName?: string; namespace?: string } = {},
): string {
  return renderKubeconfig({
    server: cp.server,
    caPem: cp.caPem,
    userName: options.userName ?? 'serviceaccount',
    credentials: { kind: 'token', token },
    ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
  });
}

async function createIfAbsent(cp: AdminAccess, path: string, body: unknown): Promise<void> {
  const res = await kubeRequest(cp, { method: 'POST', path, auth: { token: cp.adminToken }, body });
  if (res.status !== 201 && res.status !== 409) throw new Error(`POST ${path} failed: ${res.status} ${res.body}`);
}
