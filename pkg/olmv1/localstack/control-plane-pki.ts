/**
 * Credentials of one test control plane, written into its directory: a CA, the API server's
 * serving certificate, the admin client certificate and static token (group system:masters),
 * and the ServiceAccount token signing key pair.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createCertificateAuthority,
  createRsaKeyPair,
  issueCertificate,
  type CertificateAuthority,
  type IssuedCertificate,
  type KeyPairFiles,
} from './certs.ts';
import { renderTokenAuthFile } from './control-plane-args.ts';

/** User name of the admin identity (both the client certificate and the static token). */
export const ADMIN_USER = 'envtest-admin';

/** Group that makes the admin a superuser (RBAC bootstrap binds it to cluster-admin). */
export const ADMIN_GROUP = 'system:masters';

/** Everything start-up needs, all under `<dir>/pki`. */
export interface ControlPlanePki {
  ca: CertificateAuthority;
  serving: IssuedCertificate;
  admin: IssuedCertificate;
  adminToken: string;
  tokenAuthPath: string;
  serviceAccountKeys: KeyPairFiles;
}

/**
 * Generates a fresh PKI for a control plane under `<dir>/pki`. One CA signs both the serving
 * certificate (valid for 127.0.0.1, `extraIps` (a node's bridge address), localhost and the in-cluster `kubernetes` names) and the
 * client certificates the API server accepts. Throws when openssl is missing or fails.
 */
export async function createControlPlanePki(dir: string, extraIps: readonly string[] = []): Promise<ControlPlanePki> {
  const pki = join(dir, 'pki');
  await mkdir(pki, { recursive: true, mode: 0o700 });
  const ca = await createCertificateAuthority(pki, 'ca', 'envtest-ca');
  const [serving, admin, serviceAccountKeys] = await Promise.all([
    issueCertificate(ca, pki, {
      name: 'apiserver',
      commonName: 'kube-apiserver',
      dnsNames: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'],
      ipAddresses: ['127.0.0.1', '10.0.0.1', ...extraIps],
      usage: 'server',
    }),
    issueCertificate(ca, pki, { name: 'admin', commonName: ADMIN_USER, organizations: [ADMIN_GROUP], usage: 'client' }),
    createRsaKeyPair(pki, 'service-account'),
  ]);
  const adminToken = randomBytes(24).toString('hex');
  const tokenAuthPath = join(pki, 'tokens.csv');
  await writeFile(tokenAuthPath, renderTokenAuthFile([{ token: adminToken, user: ADMIN_USER, uid: ADMIN_USER, groups: [ADMIN_GROUP] }]), {
    mode: 0o600,
  });
  return { ca, serving, admin, adminToken, tokenAuthPath, serviceAccountKeys };
}
