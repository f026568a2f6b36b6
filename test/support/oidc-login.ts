/**
 * The login and consent app of the tests' ORY Hydra (hydra.ts): Hydra keeps no users, it sends
 * the browser here with a challenge. Two fixed users sign in with their password on a plain form;
 * consent is granted at once (a first-party console), with the user's email and groups put in
 * the ID token, which the API server's JWT authenticator maps to username and groups.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { request } from 'node:https';

/** The users Hydra signs in, by email: their password and groups. */
export const OIDC_USERS = {
  'admin@example.test': { password: 'admin-password', groups: ['olmv1-admins'] },
  'viewer@example.test': { password: 'viewer-password', groups: ['olmv1-viewers'] },
} as const satisfies Record<string, { password: string; groups: readonly string[] }>;

type Email = keyof typeof OIDC_USERS;

/** A JSON request over HTTPS trusting `ca`: the status and the parsed body (undefined when not JSON). */
export function httpsJson(url: string, o: { method: string; ca: string; body?: unknown }): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const payload = o.body === undefined ? undefined : JSON.stringify(o.body);
    const req = request(
      url,
      { method: o.method, ca: o.ca, headers: payload === undefined ? {} : { 'content-type': 'application/json' }, timeout: 10_000 },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${o.method} ${url} timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

function isEmail(s: string): s is Email {
  return Object.hasOwn(OIDC_USERS, s);
}

const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function loginPage(challenge: string, error?: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test issuer: sign in</title></head><body><main>
<h1>Test issuer</h1>${error === undefined ? '' : `<p role="alert">${escape(error)}</p>`}
<form method="post" action="/login">
<input type="hidden" name="challenge" value="${escape(challenge)}">
<p><label for="email">Email</label> <input id="email" name="email" type="email" required></p>
<p><label for="password">Password</label> <input id="password" name="password" type="password" required></p>
<p><button type="submit">Sign in</button></p>
</form></main></body></html>`;
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  let text = '';
  for await (const c of req as AsyncIterable<Buffer>) text += c.toString('utf8');
  return new URLSearchParams(text);
}

/** Starts the app on 127.0.0.1 (a free port), accepting Hydra's challenges through its admin API at `admin`. */
export async function startLoginApp(o: { admin: string; ca: string }): Promise<{ origin: string; close(): Promise<void> }> {
  const accept = async (kind: 'login' | 'consent', challenge: string, body: unknown): Promise<string> => {
    const q = `${kind}_challenge=${encodeURIComponent(challenge)}`;
    const r = await httpsJson(`${o.admin}/admin/oauth2/auth/requests/${kind}/accept?${q}`, { method: 'PUT', ca: o.ca, body });
    const to = (r.body as { redirect_to?: unknown } | undefined)?.redirect_to;
    if (r.status !== 200 || typeof to !== 'string') throw new Error(`hydra refused the ${kind} acceptance: ${r.status}`);
    return to;
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://x');
    const redirect = (to: string): void => void res.writeHead(302, { location: to }).end();
    const page = (status: number, html: string): void => void res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    if (url.pathname === '/login' && req.method === 'GET') return page(200, loginPage(url.searchParams.get('login_challenge') ?? ''));
    if (url.pathname === '/login' && req.method === 'POST') {
      const form = await readForm(req);
      const challenge = form.get('challenge') ?? '';
      const email = form.get('email') ?? '';
      if (!isEmail(email) || form.get('password') !== OIDC_USERS[email].password) return page(401, loginPage(challenge, 'wrong email or password'));
      return redirect(await accept('login', challenge, { subject: email, remember: false }));
    }
    if (url.pathname === '/consent' && req.method === 'GET') {
      const challenge = url.searchParams.get('consent_challenge') ?? '';
      const q = `consent_challenge=${encodeURIComponent(challenge)}`;
      const r = await httpsJson(`${o.admin}/admin/oauth2/auth/requests/consent?${q}`, { method: 'GET', ca: o.ca });
      const c = r.body as { subject?: string; requested_scope?: string[]; requested_access_token_audience?: string[] } | undefined;
      const subject = c?.subject ?? '';
      if (r.status !== 200 || !isEmail(subject)) return page(400, 'unknown consent request');
      return redirect(
        await accept('consent', challenge, {
          grant_scope: c?.requested_scope ?? [],
          grant_access_token_audience: c?.requested_access_token_audience ?? [],
          remember: false,
          session: { id_token: { email: subject, email_verified: true, groups: [...OIDC_USERS[subject].groups] } },
        }),
      );
    }
    return page(404, 'not found');
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
