/**
 * Kubeconfigs of the node's components, each with a client certificate of its own signed by
 * the control plane's CA, as kubeadm clusters give them (the RBAC bootstrap already binds
 * `system:kube-scheduler` and `system:kube-proxy`; cluster DNS gets its role in cluster-dns.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { issueCertificate, type CertificateAuthority } from './certs.ts';
import { renderKubeconfig } from './kubeconfig.ts';

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
