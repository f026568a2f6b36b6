/**
 * The in-cluster console's sessions (pure; decision 0143). A sign-in method (the {@link SignIn}
 * port: a pasted bearer token checked with a SelfSubjectReview, or OpenID Connect) proves who the
 * user is and hands over the credential their API requests are made with; the store keeps it on
 * the server, keyed by a random id in an HttpOnly, Secure, SameSite=Strict `__Host-` cookie, with
 * the page key, CSRF token and icon key of that session alone (the same wire as the local
 * console's, security.ts), until the user signs out, the session is idle too long, or the
 * credential expires.
 */
import { cookieValues, same } from './security.ts';

/** Who a sign-in proved the user to be (the API server's words: SelfSubjectReview's userInfo, or the ID token's claims). */
export interface ConsoleUser {
  username: string;
  groups: readonly string[];
}

/** What a successful sign-in hands the session store. */
export interface SignedIn {
  user: ConsoleUser;
  /** The bearer token every API request of this session is made with. */
  token: string;
  /** When the credential stops being valid (ms since the epoch), if it says: the session ends then too. */
  expiresAt?: number;
}

/** A sign-in refused: the words to show the user (e.g. the API server's "Unauthorized"). */
export interface SignInRefused {
  status: 400 | 401 | 403;
  message: string;
}

/**
 * A way to sign in (a port): the bearer-token form, or OpenID Connect's authorization code with
 * PKCE. Each turns what the browser sent into a {@link SignedIn} or a refusal, as a value;
 * infrastructure failures (the API server unreachable) reject.
 */
export interface SignIn<Input> {
  /** Short name, shown in logs and on the sign-in page. */
  readonly method: string;
  signIn(input: Input, signal: AbortSignal): Promise<{ ok: true; value: SignedIn } | { ok: false; error: SignInRefused }>;
}

/** One signed-in browser. */
export interface ConsoleSession {
  /** The cookie's value. */
  id: string;
  user: ConsoleUser;
  token: string;
  /** What the page holds and sends in the session header (the local console's page key). */
  pageKey: string;
  /** What every write carries in `X-CSRF-Token`. */
  csrfToken: string;
  /** What an icon's URL carries. */
  iconKey: string;
  createdAt: number;
  lastSeen: number;
  expiresAt?: number;
}

/** The session cookie's name: `__Host-` makes the browser keep it only if Secure, Path=/ and without Domain. */
const CLUSTER_SESSION_COOKIE = '__Host-olmv1_console';

interface SessionStoreOptions {
  /** A session unused this long is gone. */
  idleMs: number;
  /** 32 random bytes, base64url, or the like. */
  random(): string;
  now(): number;
  /** Called with a session once it ends (signed out, idle or expired), e.g. to close its watches. */
  onEnd?(session: ConsoleSession, why: 'signed-out' | 'idle' | 'expired'): void;
}

/** The sessions of one console process, in memory. */
export interface SessionStore {
  /** Opens a session for a sign-in; the Set-Cookie header that carries it. */
  open(signedIn: SignedIn): { session: ConsoleSession; setCookie: string };
  /** The live session of a Cookie header (any of its cookies of our name), touched; undefined when none. */
  find(cookieHeader: string | undefined): ConsoleSession | undefined;
  /** Ends the session of a Cookie header; the Set-Cookie header that clears it. */
  close(cookieHeader: string | undefined): string;
  /** Ends every idle or expired session (call now and then). */
  sweep(): void;
  /** How many sessions are open. */
  readonly size: number;
}

/** The Set-Cookie header of a session id. */
function sessionCookie(id: string): string {
  return `${CLUSTER_SESSION_COOKIE}=${id}; HttpOnly; Secure; SameSite=Strict; Path=/`;
}

/** The Set-Cookie header that removes the session cookie. */
export const CLEAR_SESSION_COOKIE = `${CLUSTER_SESSION_COOKIE}=; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=0`;

/** A store of sessions, ended after `idleMs` unused or at their credential's expiry. */
export function createSessionStore(o: SessionStoreOptions): SessionStore {
  const sessions = new Map<string, ConsoleSession>();
  const end = (s: ConsoleSession, why: 'signed-out' | 'idle' | 'expired'): void => {
    sessions.delete(s.id);
    o.onEnd?.(s, why);
  };
  const ended = (s: ConsoleSession, now: number): 'idle' | 'expired' | undefined =>
    s.expiresAt !== undefined && now >= s.expiresAt ? 'expired' : now - s.lastSeen >= o.idleMs ? 'idle' : undefined;
  const lookup = (cookieHeader: string | undefined): ConsoleSession | undefined => {
    for (const v of cookieValues(cookieHeader, CLUSTER_SESSION_COOKIE)) {
      // The map is keyed by the id; the comparison is made again in constant time.
      const s = sessions.get(v);
      if (s !== undefined && same(s.id, v)) return s;
    }
    return undefined;
  };
  return {
    open(signedIn) {
      const now = o.now();
      const session: ConsoleSession = {
        id: o.random(),
        user: signedIn.user,
        token: signedIn.token,
        pageKey: o.random(),
        csrfToken: o.random(),
        iconKey: o.random(),
        createdAt: now,
        lastSeen: now,
        ...(signedIn.expiresAt === undefined ? {} : { expiresAt: signedIn.expiresAt }),
      };
      sessions.set(session.id, session);
      return { session, setCookie: sessionCookie(session.id) };
    },
    find(cookieHeader) {
      const s = lookup(cookieHeader);
      if (s === undefined) return undefined;
      const now = o.now();
      const why = ended(s, now);
      if (why !== undefined) {
        end(s, why);
        return undefined;
      }
      s.lastSeen = now;
      return s;
    },
    close(cookieHeader) {
      const s = lookup(cookieHeader);
      if (s !== undefined) end(s, 'signed-out');
      return CLEAR_SESSION_COOKIE;
    },
    sweep() {
      const now = o.now();
      for (const s of [...sessions.values()]) {
        const why = ended(s, now);
        if (why !== undefined) end(s, why);
      }
    },
    get size() {
      return sessions.size;
    },
  };
}

/** True when a write's CSRF header is its session's token. */
export function csrfMatches(session: ConsoleSession, header: string | undefined): boolean {
  return header !== undefined && same(header, session.csrfToken);
}
