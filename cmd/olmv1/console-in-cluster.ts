/**
 * `olmv1 console --in-cluster`: the console as a Pod of the project's image (decision 0143).
 * HTTPS with the serving certificate of its Secret, a sign-in page for a bearer token, and every
 * request of a session made with that session's token alone: the console's ServiceAccount is
 * used for nothing. The API server's address and CA are the Pod's (or a kubeconfig's, with
 * `--kubeconfig`, whose user is ignored).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { createCatalogClient, createCatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { parseClusterVersion, type ClusterMinor } from '../../pkg/operator-controller/gating/index.ts';
import { ApiError, connect, loadKubeConfig, untilAborted, type ResolvedKubeConfig } from '../../pkg/shared/kube/index.ts';
import {
  beginSignIn,
  bearerSignIn,
  discover,
  ensureBundle,
  oidcSignIn,
  startClusterConsole,
  type ReviewAnswer,
} from '../../pkg/olmv1/console/index.ts';
import { parseDuration } from '../shared/flags.ts';
import { consoleSources, type ConsoleDeps } from './console.ts';
import { signalExitCode, type CommandIO } from './io.ts';
import { issuerFetch } from './oidc-fetch.ts';
import { DEFAULT_SYSTEM_NAMESPACE } from './release.ts';
import { CommandError, parseCommandLine, runCommand } from './render.ts';

const USAGE = `Usage: olmv1 console --in-cluster --tls-cert FILE --tls-key FILE [--listen ADDR:PORT] [--idle-timeout DURATION]
       [--catalogd-ca-file FILE] [--system-namespace NS] [--cluster-version X.Y[.Z]] [--kubeconfig FILE]
       [--oidc-issuer URL --oidc-client-id ID --oidc-redirect-url URL [--oidc-ca-file FILE]]

Serves the web console in the cluster (config/console, the chart's console.enabled): over HTTPS,
each user signs in with a bearer token (a ServiceAccount token, or any token the API server
accepts), checked by a SelfSubjectReview made with it; every request of their session is made
with that token, so their RBAC decides what they see and do. The console's own ServiceAccount
needs no rights. With --oidc-issuer, users may also sign in at that OpenID Connect issuer: the ID
token it issues is then their token, which the API server must accept (its JWT authenticator for
the same issuer, with the client id as audience).

Flags:
  --tls-cert FILE             serving certificate (PEM)
  --tls-key FILE              its key (PEM)
  --listen ADDR:PORT          where to listen (default 0.0.0.0:8443)
  --idle-timeout DURATION     a session unused this long ends (default 30m)
  --catalogd-ca-file FILE     CA bundle catalogd's serving certificate chains to
  --system-namespace NS       where operator-controller keeps the release records (default ${DEFAULT_SYSTEM_NAMESPACE})
  --cluster-version X.Y[.Z]   the cluster's version for the Cluster page and upgrade plans
  --kubeconfig FILE           take the API server's address and CA from this kubeconfig
                              instead of the Pod's (its user is not used)
  --oidc-issuer URL           OpenID Connect issuer users may sign in at (authorization code with PKCE)
  --oidc-client-id ID         the console's client id at the issuer (a public client)
  --oidc-redirect-url URL     the console's callback as browsers reach it: https://HOST/signin/oidc/callback
  --oidc-ca-file FILE         CA bundle the issuer's certificate chains to (default: the system's)
  -h, --help                  show this help

Exit codes:
  0    never (it serves until stopped)
  1    the API server configuration, the certificate or its key cannot be read, or the address is in use
  2    usage error
  143  stopped by SIGTERM, 130 by SIGINT`;

/** What the in-cluster console needs besides the local one's dependencies. */
interface ClusterConsoleDeps extends ConsoleDeps {
  /** KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT of the Pod. */
  serviceHost: string | undefined;
  servicePort: string | undefined;
}

/** Runs the in-cluster console until `deps.signal` aborts. */
export async function runClusterConsole(args: string[], io: CommandIO, deps: ClusterConsoleDeps): Promise<number> {
  return runCommand(io, async () => {
    const { values, positionals } = parseCommandLine(args, USAGE, {
      'in-cluster': { type: 'boolean' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      listen: { type: 'string' },
      'idle-timeout': { type: 'string' },
      'catalogd-ca-file': { type: 'string' },
      'system-namespace': { type: 'string' },
      'cluster-version': { type: 'string' },
      kubeconfig: { type: 'string' },
      'oidc-issuer': { type: 'string' },
      'oidc-client-id': { type: 'string' },
      'oidc-redirect-url': { type: 'string' },
      'oidc-ca-file': { type: 'string' },
    });
    if (positionals.length > 0) throw new CommandError(`unexpected argument ${JSON.stringify(positionals[0])}\n${USAGE}`, 2);
    const certFile = values['tls-cert'];
    const keyFile = values['tls-key'];
    if (certFile === undefined || keyFile === undefined) throw new CommandError(`--tls-cert and --tls-key are required\n${USAGE}`, 2);
    const listen = /^(.*):(\d{1,5})$/.exec(values.listen ?? '0.0.0.0:8443');
    if (listen === null) throw new CommandError(`invalid --listen ${JSON.stringify(values.listen)} (want ADDR:PORT)\n${USAGE}`, 2);
    let idleMs: number;
    try {
      idleMs = parseDuration(values['idle-timeout'] ?? '30m');
    } catch (e) {
      throw new CommandError(`invalid --idle-timeout: ${(e as Error).message}\n${USAGE}`, 2);
    }
    const rawVersion = values['cluster-version'];
    let clusterVersion: ClusterMinor | undefined;
    if (rawVersion !== undefined) {
      const cv = parseClusterVersion(rawVersion);
      if (!cv.ok) throw new CommandError(`--cluster-version: ${cv.error}\n${USAGE}`, 2);
      clusterVersion = cv.value;
    }
    const systemNamespace = values['system-namespace'] ?? DEFAULT_SYSTEM_NAMESPACE;
    const oidcSettings = oidcFlags(values);
    let base: ResolvedKubeConfig;
    try {
      base =
        values.kubeconfig !== undefined
          ? loadKubeConfig({ kind: 'file', path: values.kubeconfig })
          : loadKubeConfig({ kind: 'inCluster', host: deps.serviceHost ?? '', port: deps.servicePort ?? '' });
    } catch (e) {
      throw new CommandError(`cannot start the console: ${(e as Error).message}`, 1);
    }
    const caFile = values['catalogd-ca-file'];
    // catalogd's client and content cache are the console's (content is the same for everyone);
    // whether a user may see a catalog is decided by listing the ClusterCatalogs with their token.
    const catalogClient = caFile === undefined ? deps.catalogClient : createCatalogClient({ caPem: () => readFileSync(caFile, 'utf8') });
    const catalogContent = createCatalogContentCache({ client: catalogClient });
    const log = pino({ level: 'info' }, pino.destination(2));
    // The API server's address and CA only: a client certificate of the kubeconfig would
    // authenticate every request as its user, whatever token it carries.
    const { cert: _cert, key: _key, ...server } = base;
    /** A client stack of the API server acting with `token` alone. */
    const as = (token: string) => connect({ ...server, auth: { kind: 'static', headers: { authorization: `Bearer ${token}` } } });
    const review = async (token: string, signal: AbortSignal): Promise<ReviewAnswer> => {
      const kube = await as(token);
      try {
        const r = await kube.transport.request<{ status?: { userInfo?: { username?: string; groups?: string[] } } }>(
          'POST',
          '/apis/authentication.k8s.io/v1/selfsubjectreviews',
          { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, signal, idempotent: true },
        );
        const info = r.status?.userInfo;
        return { ok: true, user: { username: info?.username ?? '', groups: info?.groups ?? [] } };
      } catch (e) {
        if (e instanceof ApiError && (e.status === 401 || e.status === 403)) return { ok: false, status: e.status, message: e.message };
        throw e;
      } finally {
        kube.close();
      }
    };
    const oidc = await oidcOption(oidcSettings);
    const assetsDir = await ensureBundle({ cacheDir: deps.cacheDir, lockFile: deps.lockFile });
    const running = await startClusterConsole({
      host: listen[1] ?? '0.0.0.0',
      port: Number(listen[2]),
      tls: { certPath: certFile, keyPath: keyFile },
      tokenSignIn: bearerSignIn(review),
      ...(oidc === undefined ? {} : { oidc }),
      backend: async (session) => {
        const kube = await as(session.token);
        const made = consoleSources(
          kube,
          { ...deps, catalogClient, catalogContent },
          { catalogdUrl: undefined, systemNamespace, clusterVersion, log },
        );
        return { ...made, close: () => kube.close() };
      },
      idleMs,
      assetsDir,
      log,
      catalogTtlMs: 30_000,
      random: () => randomBytes(32).toString('base64url'),
      now: () => Date.now(),
    }).catch((e: unknown) => {
      throw new CommandError(`cannot serve the console on ${listen[0]}: ${(e as Error).message}`, 1);
    });
    log.info({ origin: running.origin }, 'console serving');
    await untilAborted(deps.signal);
    await running.close();
    if (catalogClient !== deps.catalogClient) catalogClient.close();
    return signalExitCode(deps.signal.reason);
  });
}

/** The OpenID Connect flags, checked: undefined without --oidc-issuer; a usage error (exit 2) when incomplete. */
interface OidcFlags {
  issuer: string;
  clientId: string;
  redirectUri: string;
  caFile: string | undefined;
}

function oidcFlags(values: {
  'oidc-issuer'?: string;
  'oidc-client-id'?: string;
  'oidc-redirect-url'?: string;
  'oidc-ca-file'?: string;
}): OidcFlags | undefined {
  const issuer = values['oidc-issuer'];
  const clientId = values['oidc-client-id'];
  const redirectUri = values['oidc-redirect-url'];
  const caFile = values['oidc-ca-file'];
  if (issuer === undefined) {
    if (clientId !== undefined || redirectUri !== undefined || caFile !== undefined)
      throw new CommandError(`--oidc-client-id, --oidc-redirect-url and --oidc-ca-file need --oidc-issuer\n${USAGE}`, 2);
    return undefined;
  }
  if (clientId === undefined || redirectUri === undefined)
    throw new CommandError(`--oidc-issuer needs --oidc-client-id and --oidc-redirect-url\n${USAGE}`, 2);
  if (!issuer.startsWith('https://') || !redirectUri.startsWith('https://'))
    throw new CommandError(`--oidc-issuer and --oidc-redirect-url must be https URLs\n${USAGE}`, 2);
  return { issuer, clientId, redirectUri, caFile };
}

/** The OpenID Connect sign-in of the flags, its issuer discovered (exit 1 when that fails). */
async function oidcOption(flags: OidcFlags | undefined): Promise<Parameters<typeof startClusterConsole>[0]['oidc']> {
  if (flags === undefined) return undefined;
  let fetchJson;
  let provider;
  try {
    fetchJson = issuerFetch(flags.caFile === undefined ? undefined : readFileSync(flags.caFile, 'utf8'));
    provider = await discover(flags.issuer, fetchJson, AbortSignal.timeout(30_000));
  } catch (e) {
    throw new CommandError(`cannot start the console: ${(e as Error).message}`, 1);
  }
  const client = { clientId: flags.clientId, redirectUri: flags.redirectUri };
  const random = (): string => randomBytes(32).toString('base64url');
  return {
    begin: () => beginSignIn(provider, client, random, Date.now()),
    signIn: oidcSignIn(provider, client, { fetchJson, now: () => Date.now() }),
  };
}
