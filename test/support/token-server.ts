/**
 * A minimal Docker registry token server for tests of bearer-token auth against the real
 * registry (`auth.token` in its configuration).
 *
 * `GET /token?service=..&scope=..` answers `{token, access_token, expires_in, issued_at}` with an
 * ES256 JWT carrying `iss`, `sub`, `aud` (the service), `exp`/`nbf`/`iat`, `jti` and an
 * `access` claim granting every requested scope. The JWT header carries the signing
 * certificate as `x5c`; the registry trusts it through `rootcertbundle` (the same
 * self-signed certificate, made with openssl). Basic credentials are required when configured.
 */
import { createPrivateKey, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority } from '../envtest/index.ts';

/** Options of startTokenServer. */
export interface TokenServerOptions {
  /** Directory for the signing key and certificate. */
  dir: string;
  /** The registry's `service` name (becomes `aud`). */
  service: string;
  /** The `issuer` the registry is configured to trust (becomes `iss`). */
  issuer: string;
  /** When set, token requests must carry these basic credentials. */
  credentials?: { username: string; password: string };
  /** Token lifetime in seconds (default 300). */
  expiresIn?: number;
}

/** A running token server. */
export interface TokenServer {
  /** The realm to configure: `http://127.0.0.1:PORT/token`. */
  realm: string;
  /** PEM certificate to give the registry as `rootcertbundle`. */
  certPath: string;
  /** Query of every token request, in order. */
  requests: URLSearchParams[];
  /** The registry `auth` section for this server. */
  registryAuth(): Record<string, unknown>;
  stop(): Promise<void>;
}

const b64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

function signJwt(key: KeyObject, certDer: Buffer, claims: Record<string, unknown>): string {
  const header = { alg: 'ES256', typ: 'JWT', x5c: [certDer.toString('base64')] };
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  // JWS wants the raw r||s form of the ECDSA signature, not DER.
  const signature = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${b64url(signature)}`;
}

function accessFromScopes(scopes: readonly string[]): Array<{ type: string; name: string; actions: string[] }> {
  const out: Array<{ type: string; name: string; actions: string[] }> = [];
  for (const scope of scopes) {
    // `repository:<name>:<actions>`; names may not contain ':' but hosts in them could.
    const first = scope.indexOf(':');
    const last = scope.lastIndexOf(':');
    if (first < 0 || last <= first) continue;
    out.push({ type: scope.slice(0, first), name: scope.slice(first + 1, last), actions: scope.slice(last + 1).split(',') });
  }
  return out;
}

/** Starts the token server on 127.0.0.1 with a random port and a fresh signing key. */
export async function startTokenServer(options: TokenServerOptions): Promise<TokenServer> {
  const ca = await createCertificateAuthority(options.dir, 'token-signer', 'olmv1 test token signer');
  const key = createPrivateKey(await readFile(ca.keyPath));
  const certDer = new X509Certificate(ca.certPem).raw;
  const requests: URLSearchParams[] = [];
  const expected =
    options.credentials !== undefined
      ? `Basic ${Buffer.from(`${options.credentials.username}:${options.credentials.password}`).toString('base64')}`
      : undefined;

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://token.invalid');
    if (url.pathname !== '/token') {
      res.writeHead(404).end();
      return;
    }
    requests.push(url.searchParams);
    if (expected !== undefined && req.headers.authorization !== expected) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ errors: [{ code: 'UNAUTHORIZED', message: 'invalid username or password' }] }));
      return;
    }
    const now = Math.floor(Date.now() / 1000);
    const expiresIn = options.expiresIn ?? 300;
    const token = signJwt(key, certDer, {
      iss: options.issuer,
      sub: options.credentials?.username ?? '',
      aud: url.searchParams.get('service') ?? options.service,
      exp: now + expiresIn,
      nbf: now - 5,
      iat: now,
      jti: randomBytes(8).toString('hex'),
      access: accessFromScopes(url.searchParams.getAll('scope')),
    });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ token, access_token: token, expires_in: expiresIn, issued_at: new Date(now * 1000).toISOString() }));
  }

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const realm = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  return {
    realm,
    certPath: ca.certPath,
    requests,
    registryAuth: () => ({
      token: { realm, service: options.service, issuer: options.issuer, rootcertbundle: ca.certPath, autoredirect: false },
    }),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
