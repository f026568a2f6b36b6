/**
 * Helpers for the components' HTTPS servers in tests: a serving certificate for 127.0.0.1 from a
 * throw-away CA, a scrape of `/metrics` that trusts that CA, and a bare TLS handshake with chosen
 * client versions and ciphers.
 */
import { request } from 'node:https';
import { type ConnectionOptions, connect } from 'node:tls';
import { createCertificateAuthority, issueCertificate } from '../envtest/index.ts';

/** A CA and a server certificate it issued for 127.0.0.1 and `localhost`. */
export interface ServingCertificate {
  caPem: string;
  caPath: string;
  certPath: string;
  keyPath: string;
}

/** Writes a CA and a serving certificate (ECDSA P-256) into `dir`. */
export async function servingCertificate(dir: string, name = 'serving'): Promise<ServingCertificate> {
  const ca = await createCertificateAuthority(dir, `${name}-ca`, `${name} test CA`);
  const cert = await issueCertificate(ca, dir, { name, commonName: name, dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], usage: 'server' });
  return { caPem: ca.certPem, caPath: ca.certPath, certPath: cert.certPath, keyPath: cert.keyPath };
}

/** One answer of an HTTPS server. */
export interface Scrape {
  status: number;
  body: string;
  contentType: string;
}

/** `GET https://127.0.0.1:<port><path>` trusting `caPem`, with `Authorization: Bearer <token>` when given. */
export function scrape(port: number, caPem: string, token?: string, path = '/metrics'): Promise<Scrape> {
  return new Promise((resolve, reject) => {
    const headers = token === undefined ? {} : { Authorization: `Bearer ${token}` };
    const req = request({ host: '127.0.0.1', port, path, headers, ca: caPem, servername: 'localhost' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, contentType: String(res.headers['content-type']) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Opens a TLS connection to 127.0.0.1:`port` with `options` (e.g. `maxVersion`, `ciphers`) and
 * resolves `<protocol> <cipher>` once the handshake succeeds, or the error code when the server
 * refuses it (`ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION`, `ERR_SSL_SSL/TLS_ALERT_HANDSHAKE_FAILURE`).
 */
export function handshake(port: number, caPem: string, options: ConnectionOptions = {}): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, ca: caPem, servername: 'localhost', ...options }, () => {
      resolve(`${socket.getProtocol()} ${socket.getCipher().name}`);
      socket.end();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}
