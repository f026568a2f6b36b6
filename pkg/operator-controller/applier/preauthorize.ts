/**
 * Pre-authorization: before any write, check that the extension's ServiceAccount holds every
 * permission a release needs (decision 0003), and report all missing ones at once instead of
 * failing on the first 403 halfway through an install.
 *
 * What is needed comes from `computeInstallRules` (pkg/operator-controller/render), the derivation `olmv1 rbac`
 * prints, plus `delete` on the objects an upgrade drops; so the check asks for exactly what the
 * printed RBAC grants. That includes the rules of the bundle's own Roles and ClusterRoles:
 * Kubernetes' escalation check lets the ServiceAccount create them only while it holds them.
 *
 * How it is checked, as the ServiceAccount itself (its scoped client):
 * - one SelfSubjectRulesReview per namespace holding needed permissions; each lists the rules
 *   of the ClusterRoleBindings and of that namespace's RoleBindings, which is exactly what
 *   RBAC consults for a request in that namespace (and for the escalation check of a Role);
 * - one more for cluster-wide permissions (cluster-scoped kinds, cluster-wide list/watch,
 *   ClusterRole rules, URLs). A rules review always names a namespace, and the rules of a
 *   real namespace may come from its RoleBindings, which never apply cluster-wide. So this
 *   review names a namespace that cannot exist (not a DNS label), which has no RoleBindings:
 *   its rules are exactly the cluster-wide ones;
 * - coverage is evaluated locally (preauthorize-atoms.ts). Where a review is incomplete
 *   (another authorizer, e.g. a webhook, cannot list its rules) or the server refuses the
 *   cluster review, each permission not already covered is asked with a SelfSubjectAccessReview.
 *
 * So a check costs one request per namespace plus one (three for a SingleNamespace install),
 * where asking one access review per permission would cost about 140 for a small bundle.
 */
import { TerminalError } from '../../shared/errors/index.ts';
import { goQuote } from '../../gocompat/gotext/index.ts';
import { ApiError, isInvalid, mapLimited, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import { computeInstallRules, foreignRoleBindings, ruleDangers, type PolicyRule, type KindScopes } from '../render/index.ts';
import { groupMissing, ruleCovers, uniqueAtoms, type Atom, type MissingPermission } from './preauthorize-atoms.ts';

export type { MissingPermission } from './preauthorize-atoms.ts';

/** What a release needs checked; see `preAuthorize`. */
export interface PreAuthorizeInput {
  /** The objects the new revision applies (rendered, labelled, namespaces set). */
  objects: readonly KubeObject[];
  /** Objects of the currently deployed revision that the new one drops (they will be DELETEd, except CRDs). */
  dropped?: readonly KubeObject[];
  installNamespace: string;
  serviceAccountName: string;
  /** CSV name, as `olmv1 rbac` uses it. */
  bundleName: string;
  /**
   * Scope and resource names of kinds: the static mapper `olmv1 rbac` uses
   * (`staticKindScopes(bundle.crds)` from pkg/operator-controller/render). It must also know the kinds of
   * `dropped` (for kinds defined by the old bundle's CRDs, build it from both bundles' CRDs).
   */
  mapper: KindScopes;
}

/** Upstream's first line of the message (v1.2-v1.10 `PreflightPermissions`), verbatim. */
export const PREAUTHORIZATION_FAILED = 'pre-authorization failed: service account requires the following permissions to manage cluster extension:';

/**
 * The namespace of the cluster-wide rules review: not a DNS label, so no namespace and no
 * RoleBinding can ever exist in it.
 */
export const CLUSTER_SCOPE_REVIEW_NAMESPACE = 'olmv1.cluster-scope';

const REVIEW_API = '/apis/authorization.k8s.io/v1';
const ACCESS_REVIEW_CONCURRENCY = 8;

interface RulesReviewStatus {
  resourceRules?: { verbs?: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] }[];
  nonResourceRules?: { verbs?: string[]; nonResourceURLs?: string[] }[];
  incomplete?: boolean;
  evaluationError?: string;
}

/** What one rules review says: the rules held, and whether the list may be incomplete. */
interface HeldRules {
  rules: PolicyRule[];
  incomplete: boolean;
}

/**
 * Checks, as the ServiceAccount (`client` is a scoped client acting as it), every permission
 * the release needs. Resolves the missing ones, grouped (`[]` when everything is allowed).
 * Throws only infrastructure errors, unchanged (e.g. ServiceAccountNotFoundError from the token
 * request, an ApiError when the ServiceAccount may not create self reviews, which every
 * authenticated user may by default); a kind the mapper does not know is a TerminalError.
 */
export async function preAuthorize(client: KubeClient, input: PreAuthorizeInput, signal?: AbortSignal): Promise<MissingPermission[]> {
  const derived = computeInstallRules(input.objects, {
    installNamespace: input.installNamespace,
    mapper: input.mapper,
    dropped: input.dropped ?? [],
  });
  if (!derived.ok) throw new TerminalError(`pre-authorization: ${derived.error}`);
  const atoms = uniqueAtoms(derived.value.scopes);
  const namespaces = [...new Set(atoms.map((a) => a.namespace))];
  // Errors pass through unchanged (ServiceAccountNotFoundError, ApiError, the abort reason):
  // the caller reports them with its own context, as for any other request of the release.
  const reviews = await Promise.all(namespaces.map((ns) => rulesReview(client, ns, signal)));
  const byNamespace = new Map(namespaces.map((ns, i) => [ns, reviews[i]]));
  const missing: Atom[] = [];
  const unsure: Atom[] = [];
  for (const atom of atoms) {
    const review = byNamespace.get(atom.namespace);
    if (review !== undefined && review.rules.some((r) => ruleCovers(r, atom))) continue;
    if (review === undefined || review.incomplete) unsure.push(atom);
    else missing.push(atom);
  }
  const allowed = await accessReviews(client, unsure, signal);
  for (const [i, atom] of unsure.entries()) if (!allowed[i]) missing.push(atom);
  return groupMissing(missing);
}

/**
 * The rules the ServiceAccount holds in `namespace` ('' = cluster-wide only). Undefined when
 * the server refuses the cluster-wide review's namespace: those atoms are then asked singly.
 */
async function rulesReview(client: KubeClient, namespace: string, signal: AbortSignal | undefined): Promise<HeldRules | undefined> {
  const body = {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectRulesReview',
    spec: { namespace: namespace === '' ? CLUSTER_SCOPE_REVIEW_NAMESPACE : namespace },
  };
  let res: { status?: RulesReviewStatus };
  try {
    // A review only asks: sent again on a stale keep-alive socket, as a GET is.
    res = await client.transport.request('POST', `${REVIEW_API}/selfsubjectrulesreviews`, { body, idempotent: true, signal });
  } catch (err) {
    if (namespace === '' && ((err instanceof ApiError && err.status === 400) || isInvalid(err))) return undefined;
    throw err;
  }
  const status = res.status ?? {};
  const rules: PolicyRule[] = [];
  for (const r of status.resourceRules ?? []) {
    rules.push({ verbs: r.verbs ?? [], apiGroups: r.apiGroups ?? [], resources: r.resources ?? [], resourceNames: r.resourceNames ?? [] });
  }
  for (const r of status.nonResourceRules ?? []) rules.push({ verbs: r.verbs ?? [], nonResourceURLs: r.nonResourceURLs ?? [] });
  return { rules, incomplete: status.incomplete === true };
}

/** One SelfSubjectAccessReview per atom, a few at a time; `allowed` per atom, in order. */
async function accessReviews(client: KubeClient, atoms: readonly Atom[], signal: AbortSignal | undefined): Promise<boolean[]> {
  return mapLimited(atoms, ACCESS_REVIEW_CONCURRENCY, async (atom) => {
    const body = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: accessSpec(atom) };
    const res = await client.transport.request<{ status?: { allowed?: boolean } }>('POST', `${REVIEW_API}/selfsubjectaccessreviews`, {
      body,
      idempotent: true,
      signal,
    });
    return res.status?.allowed === true;
  });
}

function accessSpec(a: Atom): Record<string, unknown> {
  if (a.url !== undefined) return { nonResourceAttributes: { path: a.url, verb: a.verb } };
  const slash = a.resource.indexOf('/');
  const attrs: Record<string, string> = { verb: a.verb, group: a.group, resource: slash === -1 ? a.resource : a.resource.slice(0, slash) };
  if (slash !== -1) attrs['subresource'] = a.resource.slice(slash + 1);
  if (a.name !== '') attrs['name'] = a.name;
  if (a.namespace !== '') attrs['namespace'] = a.namespace;
  return { resourceAttributes: attrs };
}

/** What `missingPermissionsAdvice` names: the `olmv1 rbac` command that prints the fix, and what the release applies. */
interface MissingPermissionsFix {
  bundleImage: string;
  installNamespace: string;
  serviceAccountName: string;
  watchNamespace?: string;
  /**
   * The objects the release applies (`PreAuthorizeInput.objects`). With them, a missing right
   * on one of their bindings whose role they do not ship (e.g. a ClusterRoleBinding of
   * `cluster-admin`) also counts as escalation; without them, only what the missing
   * permissions show by themselves counts (`*`, escalate/bind/impersonate, `system:` names).
   */
  objects?: readonly KubeObject[];
}

const MAX_ESCALATIONS_LISTED = 3;
const MAX_ESCALATION_CHARS = 200;
const RBAC_GROUP = 'rbac.authorization.k8s.io';

/**
 * The Progressing message, upstream v1.10's text exactly: its "pre-authorization failed: ..."
 * line, then one line per missing permission, sorted as upstream sorts them,
 * `  Namespace:"<ns>" APIGroups:[<group>] Resources:[<resource>] ResourceNames:[...] Verbs:[...]`
 * (empty parts omitted, the core group printed as `[]`, `NonResourceURLs:[...]` for URLs). Its
 * length is left to the condition's truncation (32768 bytes, as upstream's). What this project
 * adds (the `olmv1 rbac` command, the escalation warning) is `missingPermissionsAdvice`, for the
 * Warning Event. Returns '' when nothing is missing.
 */
export function formatMissingPermissions(missing: readonly MissingPermission[]): string {
  if (missing.length === 0) return '';
  const lines = missing.map((m) => `  ${missingLine(m)}`).sort();
  return [PREAUTHORIZATION_FAILED, ...lines].join('\n');
}

/**
 * What follows upstream's message in the PreAuthorizationFailed Event: the `olmv1 rbac` command
 * that prints the RBAC granting the missing permissions and, when some of them amount to
 * privilege escalation (`escalationSentence`), a line saying how many and which, so the
 * administrator reviews them instead of granting blindly. At most about 1.2 KB.
 */
export function missingPermissionsAdvice(missing: readonly MissingPermission[], fix: MissingPermissionsFix): string {
  const watch = fix.watchNamespace === undefined || fix.watchNamespace === '' ? '' : ` --watch-namespace ${fix.watchNamespace}`;
  const command = `grant them with the RBAC printed by: olmv1 rbac ${fix.bundleImage} --install-namespace ${fix.installNamespace}${watch} --service-account ${fix.serviceAccountName}`;
  const warning = escalationSentence(missing, fix);
  return warning === '' ? command : `${command}\n${warning}`;
}

/**
 * `warning: N of these grants amount(s) to privilege escalation (<first three>[, and K more]);
 * review them before granting`, or '' when none does. A missing permission amounts to
 * escalation by the classes of pkg/operator-controller/render's rbac-escalation.ts that it shows by itself (`*`,
 * escalate/bind/impersonate, `system:` names) and, with `fix.objects`, when it is a right on a
 * binding of theirs whose role they do not ship. Namespaces are not judged here: a release is
 * rendered into the install namespace and the namespaces its configuration names, which the
 * ClusterExtension's author chose (`olmv1 rbac` still points them out). At most about 1 KB:
 * three entries of at most 200 characters.
 */
function escalationSentence(missing: readonly MissingPermission[], fix: MissingPermissionsFix): string {
  const foreign = foreignRoleBindings(fix.objects ?? []);
  const entries: string[] = [];
  for (const m of missing) {
    const url = m.nonResourceURLs !== undefined && m.resource === '';
    const rule: PolicyRule = url
      ? { verbs: m.verbs, nonResourceURLs: m.nonResourceURLs ?? [] }
      : { verbs: m.verbs, apiGroups: [m.apiGroup], resources: [m.resource], resourceNames: m.resourceNames };
    const why = ruleDangers(rule).map((d) => d.short);
    if (!url && m.apiGroup === RBAC_GROUP && (m.resource === 'rolebindings' || m.resource === 'clusterrolebindings')) {
      const kind = m.resource === 'rolebindings' ? 'RoleBinding' : 'ClusterRoleBinding';
      for (const b of foreign) {
        if (b.kind === kind && b.namespace === m.namespace && m.resourceNames.includes(b.name))
          why.push(`binds ${b.roleKind} ${JSON.stringify(b.roleName)}`);
      }
    }
    if (why.length === 0) continue;
    const what = url ? `nonResourceURLs ${JSON.stringify(m.nonResourceURLs)}` : m.apiGroup === '' ? m.resource : `${m.apiGroup}/${m.resource}`;
    const where = m.namespace === '' ? '' : ` in ${goQuote(m.namespace)}`;
    const entry = `${what}${where}: ${why.join(', ')}`;
    entries.push(entry.length > MAX_ESCALATION_CHARS ? `${entry.slice(0, MAX_ESCALATION_CHARS).toWellFormed()}...` : entry);
  }
  if (entries.length === 0) return '';
  const more = entries.length > MAX_ESCALATIONS_LISTED ? `, and ${entries.length - MAX_ESCALATIONS_LISTED} more` : '';
  const verb = entries.length === 1 ? 'amounts' : 'amount';
  return `warning: ${entries.length} of these grants ${verb} to privilege escalation (${entries.slice(0, MAX_ESCALATIONS_LISTED).join('; ')}${more}); review them before granting`;
}

function missingLine(m: MissingPermission): string {
  const parts = [`Namespace:${goQuote(m.namespace)}`];
  const list = (label: string, values: readonly string[]): void => {
    if (values.length > 0) parts.push(`${label}:[${[...values].sort().join(',')}]`);
  };
  if (m.nonResourceURLs === undefined || m.resource !== '') {
    parts.push(`APIGroups:[${m.apiGroup}]`);
    list('Resources', [m.resource]);
  }
  list('ResourceNames', m.resourceNames);
  list('Verbs', m.verbs);
  list('NonResourceURLs', m.nonResourceURLs ?? []);
  return parts.join(' ');
}
