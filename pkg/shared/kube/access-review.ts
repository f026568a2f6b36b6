/**
 * Permission checks through SubjectAccessReview, made with the controller's own identity:
 * "may this user do these things?", answered by the cluster's real authorizers.
 */
import type { KubeClient } from './client.ts';
import type { KubeObject } from '../unstructured/index.ts';
import { mapLimited } from './map-limited.ts';

/** A request on a resource (`resourceAttributes` of a SubjectAccessReview). */
interface ResourceAccess {
  verb: string;
  /** API group; '' for the core group. */
  group?: string;
  version?: string;
  resource: string;
  subresource?: string;
  name?: string;
  /** Omit or '' for cluster-scoped resources or all namespaces. */
  namespace?: string;
}

/** A request on a non-resource URL (`nonResourceAttributes`). */
export interface NonResourceAccess {
  verb: string;
  path: string;
}

/** One thing to check. */
export type AccessAttributes = ResourceAccess | NonResourceAccess;

/** Who is asking. */
export interface AccessSubject {
  user: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

/** The answer for one attribute set, in input order. */
interface AccessDecision {
  attributes: AccessAttributes;
  allowed: boolean;
  /** An authorizer explicitly denied (RBAC never does; webhooks may). */
  denied: boolean;
  reason: string;
  /** Set when evaluation was incomplete (e.g. a referenced role is missing). */
  evaluationError: string;
}

/** The subject a ServiceAccount token authenticates as. */
export function serviceAccountSubject(namespace: string, serviceAccount: string): AccessSubject {
  return {
    user: `system:serviceaccount:${namespace}:${serviceAccount}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
  };
}

interface ReviewResponse extends KubeObject {
  status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string };
}

function isNonResource(a: AccessAttributes): a is NonResourceAccess {
  return 'path' in a;
}

function reviewSpec(subject: AccessSubject, a: AccessAttributes): Record<string, unknown> {
  const spec: Record<string, unknown> = { user: subject.user };
  if (subject.groups !== undefined) spec.groups = subject.groups;
  if (subject.uid !== undefined) spec.uid = subject.uid;
  if (subject.extra !== undefined) spec.extra = subject.extra;
  if (isNonResource(a)) {
    spec.nonResourceAttributes = { path: a.path, verb: a.verb };
    return spec;
  }
  spec.resourceAttributes = resourceAttributes(a);
  return spec;
}

function resourceAttributes(a: ResourceAccess): Record<string, string> {
  const attrs: Record<string, string> = { verb: a.verb, resource: a.resource, group: a.group ?? '' };
  for (const k of ['version', 'subresource', 'name', 'namespace'] as const) {
    const v = a[k];
    if (v !== undefined && v !== '') attrs[k] = v;
  }
  return attrs;
}

/**
 * Asks whether `subject` may perform each of `attributes` (`concurrency`, default 8, at a time);
 * one decision per input, in order. Throws the first API error.
 */
export async function canI(
  client: Pick<KubeClient, 'create'>,
  subject: AccessSubject,
  attributes: readonly AccessAttributes[],
  options: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<AccessDecision[]> {
  return mapLimited(attributes, Math.max(1, options.concurrency ?? 8), async (a) => {
    const review: KubeObject = { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: {}, spec: reviewSpec(subject, a) };
    // A review only asks: sent again on a stale keep-alive socket, as a GET is.
    const res = await client.create<ReviewResponse>(review, {
      idempotent: true,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const s = res.status ?? {};
    return {
      attributes: a,
      allowed: s.allowed === true,
      denied: s.denied === true,
      reason: s.reason ?? '',
      evaluationError: s.evaluationError ?? '',
    };
  });
}

/**
 * Asks whether the client's own identity may perform each of `attributes`
 * (SelfSubjectAccessReview, allowed to every authenticated user); one answer per input, in order.
 * Throws the first API error.
 */
export async function selfCanI(client: Pick<KubeClient, 'create'>, attributes: readonly ResourceAccess[], signal?: AbortSignal): Promise<boolean[]> {
  return Promise.all(
    attributes.map(async (a) => {
      const review: KubeObject = {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        metadata: {},
        spec: { resourceAttributes: resourceAttributes(a) },
      };
      const res = await client.create<ReviewResponse>(review, { idempotent: true, ...(signal === undefined ? {} : { signal }) });
      return res.status?.allowed === true;
    }),
  );
}
