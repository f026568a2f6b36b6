/**
 * Signing in with a bearer token (decision 0143): a ServiceAccount token, or any token the API
 * server accepts, pasted into the sign-in form. The token is checked by a SelfSubjectReview
 * (authentication.k8s.io/v1) made with the token itself: the API server says who it is, or
 * refuses it in its own words. The console needs no right for that, and keeps nothing but the
 * session.
 */
import type { ConsoleUser, SignIn, SignInRefused, SignedIn } from './sessions.ts';

/** What the API server answered a SelfSubjectReview made with a token. */
export type ReviewAnswer = { ok: true; user: ConsoleUser } | { ok: false; status: number; message: string };

/** Makes a SelfSubjectReview with `token` (the I/O, injected); rejects only when the API server cannot be reached. */
type ReviewSelf = (token: string, signal: AbortSignal) => Promise<ReviewAnswer>;

/** The longest token accepted (a ServiceAccount token is about 1 KiB, an OIDC ID token a few). */
const MAX_TOKEN = 16 * 1024;

/** The bearer-token sign-in, checking each token with `review`. */
export function bearerSignIn(review: ReviewSelf): SignIn<{ token: string }> {
  return {
    method: 'token',
    async signIn(input, signal) {
      const token = input.token.trim();
      if (token === '' || token.length > MAX_TOKEN || !/^[\x21-\x7e]+$/.test(token))
        return refused(400, 'paste a bearer token: one line of printable characters, as "kubectl create token" prints it');
      const answer = await review(token, signal);
      if (!answer.ok) return refused(answer.status === 401 ? 401 : 403, `the API server refused the token: ${answer.message}`);
      const value: SignedIn = { user: answer.user, token };
      const exp = jwtExpiry(token);
      return { ok: true, value: exp === undefined ? value : { ...value, expiresAt: exp } };
    },
  };
}

function refused(status: SignInRefused['status'], message: string): { ok: false; error: SignInRefused } {
  return { ok: false, error: { status, message } };
}

/** The `exp` of a JWT (in ms), read without checking it (the API server did): the session ends with the token. */
export function jwtExpiry(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1] ?? '', 'base64url').toString('utf8'));
    const exp = (claims as { exp?: unknown } | null)?.exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
