/**
 * kubeconfig files for the test control plane (renderKubeconfig is pure), and the node's and
 * controllers' kubeconfigs with client certificates of their own signed by the control plane's
 * CA, as kubeadm clusters give them.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { issueCertificate, type CertificateAuthority } from './certs.ts';

/** How a kubeconfig user authenticates. */
export type KubeconfigCredentials = { kind: 'clientCertificate'; certPem: string; keyPem: string } | { kind: 'token'; token: string };

/** Inputs of renderKubeconfig. */
export interface KubeconfigOptions {
  /** API server URL, e.g. `https://127.0.0.1:6443`. */
  server: string;
  /** PEM of the CA that signed the API server's serving certificate. */
  caPem: string;
  /** Name used for the cluster, user and context entries (default `envtest`). */
  name?: string;
  /** Name of the user entry (default: `name`). */
  userName?: string;
  credentials: KubeconfigCredentials;
  /** Default namespace of the context. */
  namespace?: string;
}

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

/**
 * Renders a self-contained kubeconfig (certificates inlined as *-data) with one cluster, one
 * user and one current context. Throws when `server` is not an https URL.
 */
export function renderKubeconfig(options: KubeconfigOptions): string {
  if (!/^https:\/\/[^/]+/.test(options.server)) throw new Error(`kubeconfig server must be an https URL, got "${options.server}"`);
  const name = options.name ?? 'envtest';
  const userName = options.userName ?? name;
  const user =
    options.credentials.kind === 'token'
      ? { token: options.credentials.token }
      : {
          'client-certificate-data': base64(options.credentials.certPem),
          'client-key-data': base64(options.credentials.keyPem),
        };
  const context: Record<string, string> = { cluster: name, user: userName };
  if (options.namespace !== undefined) context['namespace'] = options.namespace;
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: options.server, 'certificate-authority-data': base64(options.caPem) } }],
    users: [{ name: userName, user }],
    contexts: [{ name, context }],
    'current-context': name,
    preferences: {},
  };
  return dump(config);
}

/**
 * Issues a client certificate for `user` (groups `groups`) into `<dir>/pki` and writes
 * `<dir>/<name>.kubeconfig`; returns its path.
 */
export async function writeClientKubeconfig(options: {
  ca: CertificateAuthority;
  dir: string;
  name: string;
  user: string;
  groups?: string[];
  apiServer: string;
}): Promise<string> {
  const pki = join(options.dir, 'pki');
  await mkdir(pki, { recursive: true, mode: 0o700 });
  const cert = await issueCertificate(options.ca, pki, {
    name: `${options.name}-client`,
    commonName: options.user,
    ...(options.groups !== undefined ? { organizations: options.groups } : {}),
    usage: 'client',
  });
  const path = join(options.dir, `${options.name}.kubeconfig`);
  const text = renderKubeconfig({
    server: options.apiServer,
    caPem: options.ca.certPem,
    userName: options.user,
    credentials: { kind: 'clientCertificate', certPem: cert.certPem, keyPem: cert.keyPem },
  });
  await writeFile(path, text, { mode: 0o600 });
  return path;
}
