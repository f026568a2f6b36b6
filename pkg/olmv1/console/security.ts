/**
 * The console's request guard (pure): the session token (URL once, then an HttpOnly
 * SameSite=Strict cookie), the Host check against DNS rebinding, the CSRF token and
 * same-origin check of state-changing requests, and the headers every answer carries.
 */
import { timingSafeEqual } from 'node:crypto';

/** Name of the session cookie. */
export const SESSION_COOKIE = 'olmv1_console_session';
/** Header a state-changing request carries its CSRF token in. */
const CSRF_HEADER = 'x-csrf-token';

/** The strict policy of every answer: only this origin, no inline script, no frames. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Headers set on every answer, whatever it is. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

/** What the guard sees of a request. */
export interface GuardRequest {
  method: string;
  /** Path and query, as in the request line. */
  url: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** What the guard decides. */
type GuardVerdict =
  { kind: 'pass' } | { kind: 'redirect'; location: string; setCookie: string } | { kind: 'deny'; status: 400 | 401 | 403; message: string };

/** The secrets and origin of one console process. */
interface GuardConfig {
  token: string;
  csrfToken: string;
  /** `127.0.0.1:PORT`: the Host the console is reached at (also `localhost:PORT`). */
  hostPort: string;
}

/** Decides what to do with a request before any route sees it. */
export function guard(req: GuardRequest, c: GuardConfig): GuardVerdict {
  const host = header(req, 'host');
  const port = c.hostPort.slice(c.hostPort.lastIndexOf(':') + 1);
  if (host !== c.hostPort && host !== `localhost:${port}`) return { kind: 'deny', status: 400, message: 'unexpected Host header' };
  const url = new URL(req.url, `http://${c.hostPort}`);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl !== null) {
    if (!same(fromUrl, c.token)) return { kind: 'deny', status: 403, message: 'invalid session token' };
    url.searchParams.delete('token');
    return {
      kind: 'redirect',
      location: `${url.pathname}${url.search}`,
      setCookie: `${SESSION_COOKIE}=${c.token}; HttpOnly; SameSite=Strict; Path=/`,
    };
  }
  const cookie = cookies(header(req, 'cookie'))[SESSION_COOKIE];
  if (cookie === undefined || !same(cookie, c.token))
    return { kind: 'deny', status: 401, message: 'no session: open the URL that "olmv1 console" printed' };
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const origin = header(req, 'origin');
    const site = header(req, 'sec-fetch-site');
    const sameOrigin = origin === `http://${host}` || (origin === undefined && site === 'same-origin');
    if (!sameOrigin || (site !== undefined && site !== 'same-origin')) return { kind: 'deny', status: 403, message: 'cross-origin request refused' };
    const csrf = header(req, CSRF_HEADER);
    if (csrf === undefined || !same(csrf, c.csrfToken)) return { kind: 'deny', status: 403, message: 'missing or invalid CSRF token' };
  }
  return { kind: 'pass' };
}

function header(req: GuardRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function cookies(h: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (h ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0) out[part.slice(0, i).trim()] = part.slice(i + 1).trim();
  }
  return out;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
