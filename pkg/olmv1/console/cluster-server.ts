/**
 * The console served in the cluster (decision 0143): HTTPS, a sign-in page instead of a printed
 * URL, and one console (server.ts's consoleApp) per session, whose sources and watches act with
 * that session's token alone. The console's own identity is used for nothing.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { loadCertificate, watchCertificate, type CertificatePaths } from '../../shared/controller/index.ts';
import { send } from './api-routes.ts';
import { clusterGuard, OIDC_CALLBACK_PATH, OIDC_START_PATH, SIGN_IN_PATH, SIGN_OUT_PATH } from './cluster-guard.ts';
import { SECURITY_HEADERS } from './security.ts';
import { asset, consoleApp, failed, type ConsoleApp } from './server.ts';
import { createSharedCatalogs } from './shared-catalogs.ts';
import { sendFavicon } from './favicon.ts';
import { createSessionStore, csrfMatches, type ConsoleSession, type SignIn } from './sessions.ts';
import type { OidcCallback, PendingSignIn } from './oidc-sign-in.ts';
import type { StartWatches } from './live.ts';
import type { ConsoleSources } from './sources.ts';
import { PAGE_KEY_FRAGMENT } from './ui/session-wire.ts';

/** What one session's console reads and writes with: its token's client, closed when the session ends. */
interface SessionBackend {
  sources: ConsoleSources;
  watches?: StartWatches;
  close(): void;
}

/** How the in-cluster console runs. */
interface ClusterConsoleOptions {
  /** Address and port to listen on (port 0: a free one). */
  host: string;
  port: number;
  /** The serving certificate and key (PEM files), reloaded when they change (cert-manager and the service CA renew them). */
  tls: CertificatePaths;
  /** The bearer-token sign-in (bearer-sign-in.ts); other methods add routes of their own. */
  tokenSignIn: SignIn<{ token: string }>;
  /** OpenID Connect (oidc-sign-in.ts), when the cluster has an issuer: where to send the browser, and the callback's sign-in. */
  oidc?: { begin(): { url: string; pending: PendingSignIn }; signIn: SignIn<OidcCallback> };
  /** The sources of a session, acting with its token. */
  backend(session: ConsoleSession): Promise<SessionBackend>;
  /** A session unused this long is gone. */
  idleMs: number;
  assetsDir: string;
  log: Logger;
  catalogTtlMs: number;
  random(): string;
  now(): number;
}

/** A listening in-cluster console. */
interface RunningClusterConsole {
  /** `https://HOST:PORT` as listened on. */
  origin: string;
  /** Sessions open now. */
  sessions(): number;
  close(): Promise<void>;
}

/** The cookie naming a browser's OpenID Connect sign-in under way, and how long it may take. */
const OIDC_COOKIE = '__Host-olmv1_oidc';
const OIDC_PENDING_MS = 600_000;

/** The value of the cookie `name` in a Cookie header. */
function cookieValue(h: string | undefined, name: string): string | undefined {
  for (const part of (h ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

/** Sign-in forms are small: a token of up to 16 KiB, url-encoded. */
const MAX_FORM = 64 * 1024;

/** Starts the in-cluster console. */
export async function startClusterConsole(o: ClusterConsoleOptions): Promise<RunningClusterConsole> {
  const apps = new Map<string, Promise<{ app: ConsoleApp; backend: SessionBackend }>>();
  // One hub index per catalog content digest for all sessions: catalogd serves content to anyone (shared-catalogs.ts).
  const sharedCatalogs = createSharedCatalogs();
  const sessions = createSessionStore({
    idleMs: o.idleMs,
    random: o.random,
    now: o.now,
    onEnd: (s, why) => {
      o.log.info({ user: s.user.username, why }, 'console session ended');
      const a = apps.get(s.id);
      apps.delete(s.id);
      a?.then(closeApp, () => undefined);
    },
  });
  const appOf = async (s: ConsoleSession): Promise<ConsoleApp> => {
    let a = apps.get(s.id);
    if (a === undefined) {
      const secrets = { token: '', cookie: '', pageKey: s.pageKey, csrfToken: s.csrfToken, iconKey: s.iconKey };
      a = o.backend(s).then((backend) => ({
        backend,
        app: consoleApp({
          ...o,
          secrets,
          signOut: SIGN_OUT_PATH,
          sharedCatalogs,
          sources: backend.sources,
          ...(backend.watches === undefined ? {} : { watches: backend.watches }),
        }),
      }));
      apps.set(s.id, a);
      // A backend that could not be made is made again at the next request.
      a.catch(() => apps.delete(s.id));
    }
    return (await a).app;
  };

  // OpenID Connect sign-ins under way, keyed by the random id of the browser's `__Host-olmv1_oidc` cookie.
  const pendings = new Map<string, PendingSignIn>();
  const oidcRoute = async (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    oidc: NonNullable<ClusterConsoleOptions['oidc']>,
  ): Promise<void> => {
    if (path === OIDC_START_PATH) {
      const { url, pending } = oidc.begin();
      const id = o.random();
      for (const [k, p] of pendings) if (o.now() - p.createdAt > OIDC_PENDING_MS) pendings.delete(k);
      pendings.set(id, pending);
      // Lax: the issuer's redirect back is a cross-site navigation, which a Strict cookie would not follow.
      res.setHeader('set-cookie', `${OIDC_COOKIE}=${id}; HttpOnly; Secure; SameSite=Lax; Path=/; Max-Age=${OIDC_PENDING_MS / 1000}`);
      return redirect(res, url);
    }
    const q = new URL(req.url ?? '/', 'https://x').searchParams;
    const id = cookieValue(req.headers.cookie, OIDC_COOKIE);
    const pending = id === undefined ? undefined : pendings.get(id);
    if (id !== undefined) pendings.delete(id);
    const cb = { code: q.get('code'), state: q.get('state'), error: q.get('error'), errorDescription: q.get('error_description'), pending };
    const r = await oidc.signIn.signIn(cb, AbortSignal.timeout(30_000));
    if (!r.ok) return html(res, r.error.status, signInPage(o.tokenSignIn.method, r.error.message, true));
    const { session, setCookie } = sessions.open(r.value);
    o.log.info({ user: session.user.username, method: oidc.signIn.method }, 'console session opened');
    res.setHeader('set-cookie', [setCookie, `${OIDC_COOKIE}=; HttpOnly; Secure; SameSite=Lax; Path=/; Max-Age=0`]);
    // Not a redirect: this answer ends a navigation that came from the issuer's site, and a
    // redirect would carry that cross-site chain on, where the SameSite=Strict session cookie is
    // not sent (the console would ask to sign in again). A navigation the console's own page
    // starts is same-site.
    return html(res, 200, signedInPage(`/#${PAGE_KEY_FRAGMENT}=${session.pageKey}`));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
    res.setHeader('strict-transport-security', 'max-age=31536000');
    const method = req.method ?? 'GET';
    const verdict = clusterGuard({ method, url: req.url ?? '/', headers: req.headers }, sessions);
    const path = new URL(req.url ?? '/', 'https://x').pathname;
    if (verdict.kind === 'deny') return send(res, verdict.status, 'text/plain; charset=utf-8', `${verdict.message}\n`);
    if (verdict.kind === 'redirect') return redirect(res, verdict.location);
    if (verdict.kind === 'public') {
      if (o.oidc !== undefined && (path === OIDC_START_PATH || path === OIDC_CALLBACK_PATH)) return oidcRoute(req, res, path, o.oidc);
      if (path !== SIGN_IN_PATH) return appOfPublic(req, res, o.assetsDir);
      if (method === 'GET' || method === 'HEAD') return html(res, 200, signInPage(o.tokenSignIn.method, undefined, o.oidc !== undefined));
      if (method !== 'POST') return send(res, 405, 'text/plain; charset=utf-8', 'no such action\n');
      const form = await readForm(req);
      const token = form?.get('token');
      if (token === undefined || token === null) return html(res, 400, signInPage(o.tokenSignIn.method, 'paste a bearer token'));
      const signal = AbortSignal.timeout(30_000);
      const r = await o.tokenSignIn.signIn({ token }, signal);
      if (!r.ok) return html(res, r.error.status, signInPage(o.tokenSignIn.method, r.error.message));
      const { session, setCookie } = sessions.open(r.value);
      o.log.info({ user: session.user.username, method: o.tokenSignIn.method }, 'console session opened');
      res.setHeader('set-cookie', setCookie);
      // The page takes its key from the fragment, as the local console's does (decision 0127).
      return redirect(res, `/#${PAGE_KEY_FRAGMENT}=${session.pageKey}`);
    }
    const session = verdict.session;
    if (path === SIGN_OUT_PATH) {
      if (method === 'GET' || method === 'HEAD') return html(res, 200, signOutPage(session));
      const form = await readForm(req);
      if (!csrfMatches(session, form?.get('csrf') ?? undefined))
        return send(res, 403, 'text/plain; charset=utf-8', 'missing or invalid CSRF token\n');
      res.setHeader('set-cookie', sessions.close(req.headers.cookie));
      return redirect(res, SIGN_IN_PATH);
    }
    await (await appOf(session)).handle(req, res);
  };

  const server: Server = createServer(loadCertificate(o.tls), (req, res) => {
    handle(req, res).catch((e: unknown) => failed(o.log, req, res, e));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const sweep = setInterval(() => sessions.sweep(), 60_000);
  sweep.unref();
  const unwatch = watchCertificate(server, o.tls, o.log);
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : o.port;
  return {
    origin: `https://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}`,
    sessions: () => sessions.size,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(sweep);
        unwatch();
        for (const a of apps.values()) a.then(closeApp, () => undefined);
        apps.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function closeApp(a: { app: ConsoleApp; backend: SessionBackend }): void {
  a.app.close();
  a.backend.close();
}

/** The bundle, to anyone: it is the project's public code. */
function appOfPublic(req: IncomingMessage, res: ServerResponse, assetsDir: string): Promise<void> | void {
  const path = new URL(req.url ?? '/', 'https://x').pathname;
  if (path === '/favicon.ico') return sendFavicon(res);
  return asset(res, assetsDir, path.slice('/assets/'.length));
}

function redirect(res: ServerResponse, location: string): void {
  res.setHeader('location', location);
  send(res, 303, 'text/plain; charset=utf-8', '');
}

function html(res: ServerResponse, status: number, body: string): void {
  send(res, status, 'text/html; charset=utf-8', body);
}

/** An url-encoded form body of at most {@link MAX_FORM} bytes; undefined when it is larger. */
async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_FORM) return undefined;
    chunks.push(c);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const HEAD = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>OLM v1 console: sign in</title>
<link rel="stylesheet" href="/assets/main.css">
</head>
<body>
<main class="pf-v6-c-page__main-section">
<div class="pf-v6-c-card"><div class="pf-v6-c-card__body pf-v6-c-content">
<h1 class="pf-v6-c-title pf-m-2xl">OLM v1 console</h1>
`;

/** The end of both pages. */
const TAIL = `</div></div>
</main>
</body>
</html>
`;

/** The sign-in page: a form for a bearer token, and why the last one was refused (PatternFly's classes, no script). */
function signInPage(method: string, error?: string, oidc = false): string {
  const alert =
    error === undefined
      ? ''
      : `<div class="pf-v6-c-alert pf-m-danger pf-m-inline"><p class="pf-v6-c-alert__title" role="alert">${escapeHtml(error)}</p></div>\n`;
  const withIssuer = oidc
    ? `<p><a class="pf-v6-c-button pf-m-primary" href="${OIDC_START_PATH}"><span class="pf-v6-c-button__text">Sign in with OpenID Connect</span></a></p>\n`
    : '';
  return `${HEAD}${alert}${withIssuer}<form method="post" action="${SIGN_IN_PATH}" data-method="${escapeHtml(method)}">
<p><label for="token"><strong>Bearer token</strong></label></p>
<p id="token-help">A ServiceAccount token (<code>kubectl create token NAME -n NAMESPACE</code>) or any token the API server accepts. Every request the console makes for you is made with it, so your RBAC decides what you see and can do.</p>
<span class="pf-v6-c-form-control pf-m-textarea"><textarea id="token" name="token" rows="6" cols="60" required autocomplete="off" spellcheck="false" aria-describedby="token-help"></textarea></span>
<p><button class="pf-v6-c-button pf-m-primary" type="submit"><span class="pf-v6-c-button__text">Sign in</span></button></p>
</form>
${TAIL}`;
}

/** The end of an OpenID Connect sign-in: the console's page opened from the console's own origin. */
function signedInPage(location: string): string {
  const to = escapeHtml(location);
  return (
    HEAD.replace('</head>', `<meta http-equiv="refresh" content="0; url=${to}">\n</head>`).replace(
      '<title>OLM v1 console: sign in</title>',
      '<title>OLM v1 console: signed in</title>',
    ) + `<p>Signed in. <a href="${to}">Open the console</a>.</p>\n${TAIL}`
  );
}

/** The sign-out page: who is signed in, and a form carrying the session's CSRF token. */
function signOutPage(session: ConsoleSession): string {
  return `${HEAD}<p>Signed in as <strong>${escapeHtml(session.user.username)}</strong>.</p>
<form method="post" action="${SIGN_OUT_PATH}">
<input type="hidden" name="csrf" value="${escapeHtml(session.csrfToken)}">
<p><button class="pf-v6-c-button pf-m-primary" type="submit"><span class="pf-v6-c-button__text">Sign out</span></button> <a class="pf-v6-c-button pf-m-link" href="/"><span class="pf-v6-c-button__text">Back to the console</span></a></p>
</form>
${TAIL}`;
}
