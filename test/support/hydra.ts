/**
 * ORY Hydra as a real OpenID Connect provider for the console's sign-in tests (issue 71,
 * decision 0144): `hydra serve all --dev` with an in-memory store, serving HTTPS on 127.0.0.1
 * with a certificate of a test CA (the issuer URL must be https for the API server's JWT
 * authenticator), and its login and consent app (oidc-login.ts) for two fixed users. The
 * binary comes from test/envtest's background build (`await envtestHydra()`). With `host` (the
 * local node's bridge address), its public endpoints and issuer are there instead, so Pods on the
 * node reach the issuer under the URL browsers on this machine use; the admin API stays on loopback.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  createCertificateAuthority,
  createWorkspace,
  freePorts,
  issueCertificate,
  startProcess,
  waitUntil,
  type ManagedProcess,
} from '../../pkg/olmv1/localstack/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { httpsJson, startLoginApp } from './oidc-login.ts';

/** A running Hydra. */
export interface Hydra {
  /** The issuer, as its discovery document names it. */
  issuer: string;
  /** The test CA its serving certificate chains to (PEM) and its file. */
  caPem: string;
  caPath: string;
  /** Registers a public client (PKCE, no secret) allowed `redirectUri`; its client id. */
  registerClient(redirectUri: string): Promise<string>;
  stop(): Promise<void>;
}

/** Starts Hydra with its login app; throws with Hydra's log tail when it does not serve. */
export async function startHydra(binary: string, options: { host?: string } = {}): Promise<Hydra> {
  const host = options.host ?? '127.0.0.1';
  const ws = await createWorkspace('olmv1-hydra-');
  let hydra: ManagedProcess | undefined;
  ws.track(() => hydra);
  try {
    const ca = await createCertificateAuthority(ws.dir, 'ca', 'olmv1 test OIDC CA');
    const serving = await issueCertificate(ca, ws.dir, {
      name: 'serving',
      commonName: host,
      ipAddresses: [...new Set(['127.0.0.1', host])],
      usage: 'server',
    });
    const [publicPort = 0, adminPort = 0] = await freePorts(2);
    const admin = `https://127.0.0.1:${adminPort}`;
    const login = await startLoginApp({ admin, ca: ca.certPem });
    ws.addCleanup(() => login.close());
    const env: NodeJS.ProcessEnv = {
      DSN: 'memory',
      SECRETS_SYSTEM: randomBytes(24).toString('hex'),
      URLS_SELF_ISSUER: `https://${host}:${publicPort}`,
      URLS_LOGIN: `${login.origin}/login`,
      URLS_CONSENT: `${login.origin}/consent`,
      SERVE_PUBLIC_HOST: host,
      SERVE_PUBLIC_PORT: String(publicPort),
      SERVE_ADMIN_HOST: '127.0.0.1',
      SERVE_ADMIN_PORT: String(adminPort),
      SERVE_TLS_ENABLED: 'true',
      // --dev makes Hydra's cookies not Secure, which Chromium refuses with its default SameSite=None.
      SERVE_COOKIES_SAME_SITE_MODE: 'Lax',
      SERVE_TLS_CERT_PATH: serving.certPath,
      SERVE_TLS_KEY_PATH: serving.keyPath,
    };
    let issuer = '';
    hydra = await startProcess({
      name: 'hydra',
      command: binary,
      args: ['serve', 'all', '--dev', '--sqa-opt-out'],
      logPath: join(ws.dir, 'hydra.log'),
      reaper: ws.reaper,
      env,
    });
    await waitUntil(
      'hydra discovery',
      async () => {
        const d = await httpsJson(`https://${host}:${publicPort}/.well-known/openid-configuration`, { method: 'GET', ca: ca.certPem });
        issuer = String((d.body as { issuer?: unknown } | undefined)?.issuer ?? '');
        const health = await httpsJson(`${admin}/health/ready`, { method: 'GET', ca: ca.certPem });
        return d.status === 200 && health.status === 200;
      },
      { timeoutMs: 60_000, process: hydra, intervalMs: 250 },
    );
    return {
      issuer,
      caPem: ca.certPem,
      caPath: ca.certPath,
      async registerClient(redirectUri) {
        const r = await httpsJson(`${admin}/admin/clients`, {
          method: 'POST',
          ca: ca.certPem,
          body: {
            client_name: 'olmv1 console',
            redirect_uris: [redirectUri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
            scope: 'openid email profile',
            token_endpoint_auth_method: 'none',
          },
        });
        const id = (r.body as { client_id?: unknown }).client_id;
        if (r.status !== 201 || typeof id !== 'string') throw new Error(`hydra refused the client: ${r.status} ${JSON.stringify(r.body)}`);
        return id;
      },
      stop: () => ws.stop(),
    };
  } catch (err) {
    await ws.stop();
    throw new Error(`starting hydra failed: ${errorMessage(err)}`, { cause: err });
  }
}
