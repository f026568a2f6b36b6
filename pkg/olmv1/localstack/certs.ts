/**
 * A throw-away PKI for test servers: a CA and the certificates it signs (ECDSA P-256, by
 * `openssl`), and the RSA key pair kube-apiserver signs ServiceAccount tokens with.
 */
import { generateKeyPair } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runCommand } from './exec.ts';

/** A certificate authority on disk. */
export interface CertificateAuthority {
  certPath: string;
  keyPath: string;
  /** The CA certificate, PEM: what clients must trust. */
  certPem: string;
}

/** What to put into an issued certificate. */
export interface CertificateRequest {
  /** File stem in the output directory: `<name>.crt`, `<name>.key`. */
  name: string;
  commonName: string;
  /** Subject O= values; for Kubernetes client certificates these are the user's groups. */
  organizations?: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
  usage: 'server' | 'client';
  /** Validity in days (default 365). */
  days?: number;
}

/** An issued certificate and its private key on disk. */
export interface IssuedCertificate {
  certPath: string;
  keyPath: string;
  certPem: string;
  keyPem: string;
}

/** Creates `<dir>/<name>.crt|.key`: a self-signed CA valid for ten years. */
export async function createCertificateAuthority(dir: string, name: string, commonName: string): Promise<CertificateAuthority> {
  const extensions = ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign,cRLSign,digitalSignature'];
  const { certPath, keyPath, certPem } = await selfSigned(dir, name, commonName, 3650, extensions);
  return { certPath, keyPath, certPem };
}

/** Creates `<dir>/<name>.crt|.key`: a self-signed server certificate for `ipAddresses` (default 1 day). */
export function createSelfSignedCertificate(
  dir: string,
  request: { name: string; commonName: string; ipAddresses?: string[]; days?: number },
): Promise<IssuedCertificate> {
  const sans = (request.ipAddresses ?? []).map((ip) => `IP:${ip}`);
  const extensions = sans.length > 0 ? [`subjectAltName=${sans.join(',')}`] : [];
  return selfSigned(dir, request.name, request.commonName, request.days ?? 1, extensions);
}

async function selfSigned(dir: string, name: string, commonName: string, days: number, extensions: readonly string[]): Promise<IssuedCertificate> {
  const certPath = join(dir, `${name}.crt`);
  const keyPath = join(dir, `${name}.key`);
  await openssl([
    'req',
    '-x509',
    '-new',
    ...newEcKey(keyPath),
    '-out',
    certPath,
    '-days',
    String(days),
    '-sha256',
    '-subj',
    subject(commonName, []),
    ...extensions.flatMap((e) => ['-addext', e]),
  ]);
  return { certPath, keyPath, certPem: await readFile(certPath, 'utf8'), keyPem: await readFile(keyPath, 'utf8') };
}

/** openssl `req` arguments for a new unencrypted ECDSA P-256 key written to `keyPath`. */
function newEcKey(keyPath: string): string[] {
  return ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyPath];
}

/**
 * Issues a certificate signed by `ca` into `dir`: a server certificate for its DNS/IP names (at
 * least one), a client certificate with the organizations as Kubernetes groups.
 */
export async function issueCertificate(ca: CertificateAuthority, dir: string, request: CertificateRequest): Promise<IssuedCertificate> {
  const base = join(dir, request.name);
  const certPath = `${base}.crt`;
  const keyPath = `${base}.key`;
  const sans = [...(request.dnsNames ?? []).map((d) => `DNS:${d}`), ...(request.ipAddresses ?? []).map((ip) => `IP:${ip}`)];
  if (request.usage === 'server' && sans.length === 0) {
    throw new Error(`server certificate "${request.name}" needs at least one DNS name or IP address`);
  }
  await openssl(['req', '-new', ...newEcKey(keyPath), '-out', `${base}.csr`, '-subj', subject(request.commonName, request.organizations ?? [])]);
  const extensions = [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    `extendedKeyUsage=${request.usage === 'server' ? 'serverAuth' : 'clientAuth'}`,
    ...(sans.length > 0 ? [`subjectAltName=${sans.join(',')}`] : []),
  ];
  await writeFile(`${base}.ext`, extensions.join('\n') + '\n');
  await openssl([
    'x509',
    '-req',
    '-in',
    `${base}.csr`,
    '-CA',
    ca.certPath,
    '-CAkey',
    ca.keyPath,
    '-set_serial',
    `0x${randomSerial()}`,
    '-days',
    String(request.days ?? 365),
    '-sha256',
    '-extfile',
    `${base}.ext`,
    '-out',
    certPath,
  ]);
  return { certPath, keyPath, certPem: await readFile(certPath, 'utf8'), keyPem: await readFile(keyPath, 'utf8') };
}

/** An RSA key pair on disk (PKCS#8 private key, SPKI public key, both PEM). */
export interface KeyPairFiles {
  privateKeyPath: string;
  publicKeyPath: string;
}

/** Writes `<dir>/<name>.key` and `<dir>/<name>.pub`: a fresh RSA-2048 key pair. */
export async function createRsaKeyPair(dir: string, name: string): Promise<KeyPairFiles> {
  const { privateKey, publicKey } = await promisify(generateKeyPair)('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const privateKeyPath = join(dir, `${name}.key`);
  const publicKeyPath = join(dir, `${name}.pub`);
  await writeFile(privateKeyPath, privateKey, { mode: 0o600 });
  await writeFile(publicKeyPath, publicKey);
  return { privateKeyPath, publicKeyPath };
}

/** An openssl `-subj` string; a value with a character that needs escaping there is rejected. */
export function subject(commonName: string, organizations: readonly string[]): string {
  for (const value of [commonName, ...organizations]) {
    if (!/^[A-Za-z0-9:._@ -]+$/.test(value)) {
      throw new Error(`certificate subject value "${value}" may only contain letters, digits, space and : . _ @ -`);
    }
  }
  return [`/CN=${commonName}`, ...organizations.map((o) => `/O=${o}`)].join('');
}

function randomSerial(): string {
  // 64 random bits with the top bit clear: a positive serial, unique per issuance.
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return Buffer.from(bytes).toString('hex');
}

async function openssl(args: string[]): Promise<void> {
  await runCommand('openssl', args, { timeoutMs: 60_000 });
}
