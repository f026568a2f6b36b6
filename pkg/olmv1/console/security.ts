/**
 * The console's request guard (pure; decision 0127). Signing in with the printed URL's token
 * sets a cookie whose name is bound to the console's port and hands the page a key in the URL
 * fragment; the cookie alone opens only the page and its bundle (what another local port that
 * receives the browser's cookies can replay), every API request also needs the page's key in a
 * header, an icon the icon key in its URL. Also: the Host check against DNS rebinding, the
 * Origin and Sec-Fetch-Site checks, the CSRF token of state-changing requests, and the headers
 * every answer carries.
 */
import { timingSafeEqual } from 'node:crypto';
import { ICON_KEY_PARAM, PAGE_KEY_FRAGMENT, PAGE_KEY_HEADER } from './ui/session-wire.ts';

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

/** The secrets of one console process, each a random string made by its composition. */
export interface SessionSecrets {
  /** In the printed URL: signs a browser in, as often as it is opened while the console runs. */
  token: string;
  /** The session cookie's value: sent by the browser to every port of the host, so worth nothing alone. */
  cookie: string;
  /** What the page holds (in its own origin's storage) and sends in {@link PAGE_KEY_HEADER}. */
  pageKey: string;
  /** What state-changing requests carry in `X-CSRF-Token` (from `/api/session`). */
  csrfToken: string;
  /** What an icon's URL carries (from `/api/session`): an `<img>` sends no header. */
  iconKey: string;
}

/** A console's secrets, each from `random` (e.g. 32 random bytes, base64url). */
export function newSessionSecrets(random: () => string): SessionSecrets {
  return { token: random(), cookie: random(), pageKey: random(), csrfToken: random(), iconKey: random() };
}

/** The session cookie's name: bound to the port, so that a console on another port sets its own instead of replacing this one's. */
export function sessionCookieName(port: string | number): string {
  return `olmv1_console_${port}`;
}

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
  secrets: SessionSecrets;
  /** `127.0.0.1:PORT`: the Host the console is reached at (also `localhost:PORT`). */
  hostPort: string;
}

const NO_SESSION = 'no session: open the URL that "olmv1 console" printed';
const NO_PAGE_KEY = 'no session key: only the console\'s page may call its API (open the URL that "olmv1 console" printed)';

/** Decides what to do with a request before any route sees it. */
export function guard(req: GuardRequest, c: GuardConfig): GuardVerdict {
  const s = c.secrets;
  const host = header(req, 'host');
  const port = c.hostPort.slice(c.hostPort.lastIndexOf(':') + 1);
  if (host !== c.hostPort && host !== `localhost:${port}`) return { kind: 'deny', status: 400, message: 'unexpected Host header' };
  // A browser names the origin of a cross-origin request (another port included): only the console's own.
  const origin = header(req, 'origin');
  if (origin !== undefined && origin !== `http://${host}`) return { kind: 'deny', status: 403, message: 'cross-origin request refused' };
  const url = new URL(req.url, `http://${c.hostPort}`);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl !== null) {
    if (!same(fromUrl, s.token)) return { kind: 'deny', status: 403, message: 'invalid session token' };
    url.searchParams.delete('token');
    return {
      kind: 'redirect',
      // The fragment reaches the page's script only: never a request, a Referer or another port.
      location: `${url.pathname}${url.search}#${PAGE_KEY_FRAGMENT}=${s.pageKey}`,
      setCookie: `${sessionCookieName(port)}=${s.cookie}; HttpOnly; SameSite=Strict; Path=/`,
    };
  }
  // Any port of the host may have set a cookie of that name too: one of them must be ours.
  if (!cookieValues(header(req, 'cookie'), sessionCookieName(port)).some((v) => same(v, s.cookie)))
    return { kind: 'deny', status: 401, message: NO_SESSION };
  const path = url.pathname;
  // The page itself is a navigation, from wherever; the rest is loaded by the page (or typed: "none").
  if (path === '/' || path === '/index.html') return { kind: 'pass' };
  const site = header(req, 'sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return { kind: 'deny', status: 403, message: 'cross-site request refused' };
  // The bundle, and the icon the browser asks for by itself (there is none: 404, not a 401 it would log).
  if (path.startsWith('/assets/') || path === '/favicon.ico') return { kind: 'pass' };
  const key = header(req, PAGE_KEY_HEADER);
  const read = req.method === 'GET' || req.method === 'HEAD';
  const iconKey = read && path.startsWith('/api/icons/') ? url.searchParams.get(ICON_KEY_PARAM) : null;
  if (key === undefined && iconKey === null) return { kind: 'deny', status: 401, message: NO_PAGE_KEY };
  if (key !== undefined ? !same(key, s.pageKey) : !same(iconKey ?? '', s.iconKey))
    return { kind: 'deny', status: 403, message: 'invalid session key' };
  if (!read) {
    const sameOrigin = origin === `http://${host}` || (origin === undefined && site === 'same-origin');
    if (!sameOrigin) return { kind: 'deny', status: 403, message: 'cross-origin request refused' };
    const csrf = header(req, CSRF_HEADER);
    if (csrf === undefined || !same(csrf, s.csrfToken)) return { kind: 'deny', status: 403, message: 'missing or invalid CSRF token' };
  }
  return { kind: 'pass' };
}

function header(req: GuardRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The values of every cookie named `name` in a Cookie header. */
export function cookieValues(h: string | undefined, name: string): string[] {
  const out: string[] = [];
  for (const part of (h ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) out.push(part.slice(i + 1).trim());
  }
  return out;
}

/** Constant-time string comparison. */
export function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
