/**
 * Bearer-token authentication through TokenReview, made with the controller's own identity:
 * "who is this token?", answered by the cluster's real authenticators (ServiceAccount tokens,
 * OIDC, webhooks: whatever the API server trusts).
 */
import type { KubeClient } from './client.ts';
import type { AccessSubject } from './access-review.ts';
import type { KubeObject } from '../unstructured/index.ts';

/** The API server's answer; a refused token is `authenticated: false` with its reason. */
export type TokenReviewResult = { authenticated: true; subject: AccessSubject; audiences: string[] } | { authenticated: false; error: string };

interface TokenReviewResponse extends KubeObject {
  status?: {
    authenticated?: boolean;
    error?: string;
    audiences?: string[];
    user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  };
}

/**
 * Asks the API server who `token` authenticates as (without `audiences`, against its own).
 * Throws the API error when the review fails (needs `tokenreviews: create`).
 */
export async function reviewToken(
  client: KubeClient,
  token: string,
  options: { audiences?: readonly string[]; signal?: AbortSignal } = {},
): Promise<TokenReviewResult> {
  const spec: Record<string, unknown> = { token };
  if (options.audiences !== undefined && options.audiences.length > 0) spec.audiences = [...options.audiences];
  const review: KubeObject = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: {}, spec };
  // A review only asks: sent again on a stale keep-alive socket, as a GET is.
  const res = await client.create<TokenReviewResponse>(review, {
    idempotent: true,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const s = res.status ?? {};
  const user = s.user ?? {};
  if (s.authenticated !== true || user.username === undefined || user.username === '') {
    return { authenticated: false, error: s.error ?? '' };
  }
  const subject: AccessSubject = { user: user.username };
  if (user.groups !== undefined) subject.groups = user.groups;
  if (user.uid !== undefined && user.uid !== '') subject.uid = user.uid;
  if (user.extra !== undefined && Object.keys(user.extra).length > 0) subject.extra = user.extra;
  return { authenticated: true, subject, audiences: s.audiences ?? [] };
}
