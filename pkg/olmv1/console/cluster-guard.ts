/**
 * The in-cluster console's request guard (pure; decision 0143): the local guard's rules
 * (security.ts) with the secrets of the request's own session (sessions.ts) instead of the
 * process's. Without a session only the sign-in page, its form and the bundle are served; the page
 * itself sends the browser to sign in. No Host check: the console is reached through its Service,
 * a port-forward or a route under any name, and every request needs a session cookie that only a
 * same-site HTTPS page can send; the Origin of a cross-origin request must be the console's.
 */
import { ICON_KEY_PARAM, PAGE_KEY_HEADER } from './ui/session-wire.ts';
import { same } from './security.ts';
import { csrfMatches, type ConsoleSession, type SessionStore } from './sessions.ts';

/** Where the sign-in page and its form are. */
export const SIGN_IN_PATH = '/signin';
/** Where the browser starts an OpenID Connect sign-in, and where the issuer sends it back. */
export const OIDC_START_PATH = '/signin/oidc';
export const OIDC_CALLBACK_PATH = '/signin/oidc/callback';
/** Where the sign-out page and its form are. */
export const SIGN_OUT_PATH = '/signout';

/** What the guard sees of a request. */
interface ClusterRequest {
  method: string;
  url: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** What the guard decides. */
type ClusterVerdict =
  | { kind: 'pass'; session: ConsoleSession }
  /** The sign-in page or form, the bundle: served without a session. */
  | { kind: 'public' }
  | { kind: 'redirect'; location: string }
  | { kind: 'deny'; status: 400 | 401 | 403; message: string };

const NOT_SIGNED_IN = 'not signed in (or the session expired): sign in again';

/** Decides what to do with a request before any route sees it. */
export function clusterGuard(req: ClusterRequest, sessions: SessionStore): ClusterVerdict {
  const host = header(req, 'host');
  if (host === undefined || host === '') return { kind: 'deny', status: 400, message: 'no Host header' };
  // Under the page's `Referrer-Policy: no-referrer` a browser posts a form with `Origin: null`:
  // Sec-Fetch-Site then says where it came from.
  const rawOrigin = header(req, 'origin');
  const origin = rawOrigin === 'null' ? undefined : rawOrigin;
  if (origin !== undefined && origin !== `https://${host}`) return { kind: 'deny', status: 403, message: 'cross-origin request refused' };
  const url = new URL(req.url, `https://${host}`);
  const path = url.pathname;
  const read = req.method === 'GET' || req.method === 'HEAD';
  const site = header(req, 'sec-fetch-site');
  const sameOrigin = origin === `https://${host}` || (origin === undefined && site === 'same-origin');
  if (path === SIGN_IN_PATH) {
    // A sign-in form posted from elsewhere would sign the browser in as someone else (login CSRF).
    if (!read && !sameOrigin) return { kind: 'deny', status: 403, message: 'cross-origin request refused' };
    return { kind: 'public' };
  }
  if (read && (path.startsWith('/assets/') || path === '/favicon.ico')) return { kind: 'public' };
  // OpenID Connect's start and the issuer's redirect back: the pending sign-in's cookie and state guard the return.
  if (read && (path === OIDC_START_PATH || path === OIDC_CALLBACK_PATH)) return { kind: 'public' };
  const session = sessions.find(header(req, 'cookie'));
  const isPage = path === '/' || path === '/index.html';
  if (session === undefined)
    return isPage || path === SIGN_OUT_PATH ? { kind: 'redirect', location: SIGN_IN_PATH } : { kind: 'deny', status: 401, message: NOT_SIGNED_IN };
  if (path === SIGN_OUT_PATH) {
    // The form carries the CSRF token in its body: the route checks it.
    if (!read && !sameOrigin) return { kind: 'deny', status: 403, message: 'cross-origin request refused' };
    return { kind: 'pass', session };
  }
  if (isPage) return { kind: 'pass', session };
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return { kind: 'deny', status: 403, message: 'cross-site request refused' };
  const key = header(req, PAGE_KEY_HEADER);
  const iconKey = read && path.startsWith('/api/icons/') ? url.searchParams.get(ICON_KEY_PARAM) : null;
  if (key === undefined && iconKey === null) return { kind: 'deny', status: 401, message: NOT_SIGNED_IN };
  if (key !== undefined ? !same(key, session.pageKey) : !same(iconKey ?? '', session.iconKey))
    return { kind: 'deny', status: 401, message: NOT_SIGNED_IN };
  if (!read) {
    if (!sameOrigin) return { kind: 'deny', status: 403, message: 'cross-origin request refused' };
    if (!csrfMatches(session, header(req, 'x-csrf-token'))) return { kind: 'deny', status: 403, message: 'missing or invalid CSRF token' };
  }
  return { kind: 'pass', session };
}

function header(req: ClusterRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
