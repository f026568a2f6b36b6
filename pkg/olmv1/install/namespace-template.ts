/**
 * The labels and annotations of a CSV's suggested-namespace template (pure; issue 71, HUBPERF
 * item 2). OperatorHub creates the namespace a CSV suggests from the JSON Namespace object of its
 * `operatorframework.io/suggested-namespace-template` annotation; install does the same when it
 * creates that namespace, taking from the template only its labels and annotations, and only when
 * the template names the namespace being created. The template is catalog content, hostile input:
 * it is size-bounded, each key must be a Kubernetes qualified name and each label value a label
 * value, keys of Kubernetes itself (`kubernetes.io/`, `k8s.io/`) and of OLM
 * (`olm.operatorframework.io/`, whose labels `uninstall` selects by) are dropped, and every dropped
 * entry is named in the install's warnings. What is applied is shown with the Namespace in a
 * dry run (the console's preview). Entries that would weaken the namespace's Pod security (Pod
 * Security admission's levels other than `restricted` and versions other than `latest`, which may
 * be weaker than the cluster's default; OpenShift's SCC label sync, run level and SCC ranges) are
 * applied only when the user accepts them (`--accept-namespace-labels`, the console's checkbox
 * naming them; decision 0157): otherwise they are dropped and named (`podSecurity` either way).
 */

/** The CSV annotation holding the template (a JSON Namespace object). */
export const SUGGESTED_NAMESPACE_TEMPLATE_ANNOTATION = 'operatorframework.io/suggested-namespace-template';

/** Bounds on the template: its text, the entries of each map, an annotation's value. */
const MAX_TEMPLATE = 64 * 1024;
const MAX_ENTRIES = 64;
const MAX_ANNOTATION_VALUE = 4096;

const NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
/** Prefixes a template may not set: Kubernetes' own, and OLM's (install's and uninstall's labels). */
const RESERVED = [/^(.+\.)?kubernetes\.io$/, /^(.+\.)?k8s\.io$/, /^(.+\.)?olm\.operatorframework\.io$/];
/** Kubernetes' own prefixes that are for cluster users to set (Pod Security admission's levels). */
const ALLOWED_RESERVED = new Set(['pod-security.kubernetes.io']);

/** What the template gives the namespace `name`, and what of it was dropped (why, for the warnings). */
interface NamespaceTemplateMetadata {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  dropped: string[];
  /** The template's entries that weaken Pod security (`label KEY=VALUE`), in `labels`/`annotations` only when accepted. */
  podSecurity: string[];
}

/** How the user acknowledges the entries that weaken Pod security (the CLI flag; the console's checkbox sends the same). */
const ACCEPT_NAMESPACE_LABELS_FLAG = '--accept-namespace-labels';

const POD_SECURITY_PREFIX = 'pod-security.kubernetes.io/';
/** OpenShift's namespace metadata that weakens Pod security: SCC-to-Pod-Security label sync, the run level exempting a namespace from SCC admission, the UID/group/SELinux ranges the restricted SCC admits. */
const OPENSHIFT_WEAKENING = [/^security\.openshift\.io\//, /^openshift\.io\/run-level$/, /^openshift\.io\/sa\.scc\./];

/**
 * Whether the template's `key: value` may weaken the namespace's Pod security: a Pod Security
 * admission level other than `restricted` (the cluster's default level cannot be read through
 * the API, and only `restricted` is never weaker than it) or a version other than `latest`, and
 * any of OpenShift's keys above.
 */
function weakensPodSecurity(key: string, value: string): boolean {
  if (key.startsWith(POD_SECURITY_PREFIX)) return key.endsWith('-version') ? value !== 'latest' : value !== 'restricted';
  return OPENSHIFT_WEAKENING.some((r) => r.test(key));
}

/** The template's labels and annotations for namespace `name` (none when there is no template for that name). */
export function namespaceTemplateMetadata(
  csvAnnotations: Readonly<Record<string, string>> | null | undefined,
  name: string,
  acceptPodSecurity = false,
): NamespaceTemplateMetadata {
  const out: NamespaceTemplateMetadata = { labels: {}, annotations: {}, dropped: [], podSecurity: [] };
  const text = csvAnnotations?.[SUGGESTED_NAMESPACE_TEMPLATE_ANNOTATION];
  if (text === undefined || text === '') return out;
  const what = `${SUGGESTED_NAMESPACE_TEMPLATE_ANNOTATION}`;
  if (text.length > MAX_TEMPLATE) return { ...out, dropped: [`${what}: longer than ${MAX_TEMPLATE} characters, not applied`] };
  let template: unknown;
  try {
    template = JSON.parse(text);
  } catch {
    return { ...out, dropped: [`${what}: not JSON, not applied`] };
  }
  const o = objectOf(template);
  const metadata = objectOf(o['metadata']);
  if ((o['kind'] !== undefined && o['kind'] !== 'Namespace') || metadata['name'] !== name) return out;
  take(objectOf(metadata['labels']), 'label', out.labels, out.dropped, (v) => LABEL_VALUE.test(v));
  take(objectOf(metadata['annotations']), 'annotation', out.annotations, out.dropped, (v) => v.length <= MAX_ANNOTATION_VALUE);
  for (const [kind, into] of [
    ['label', out.labels],
    ['annotation', out.annotations],
  ] as const) {
    for (const [key, value] of Object.entries(into)) {
      if (!weakensPodSecurity(key, value)) continue;
      out.podSecurity.push(`${kind} ${key}=${value}`);
      if (acceptPodSecurity) continue;
      delete into[key];
      out.dropped.push(
        `${SUGGESTED_NAMESPACE_TEMPLATE_ANNOTATION}: ${kind} ${JSON.stringify(`${key}=${value}`)} not applied (it weakens the namespace's Pod security; ` +
          `accept it with ${ACCEPT_NAMESPACE_LABELS_FLAG}, or the console's checkbox)`,
      );
    }
  }
  return out;
}

function take(from: Record<string, unknown>, kind: string, into: Record<string, string>, dropped: string[], valueOk: (v: string) => boolean): void {
  const entries = Object.entries(from);
  for (const [i, [key, value]] of entries.entries()) {
    const shown = JSON.stringify(key.length > 80 ? `${key.slice(0, 79)}…` : key);
    const why =
      i >= MAX_ENTRIES
        ? `more than ${MAX_ENTRIES} ${kind}s`
        : !qualifiedName(key)
          ? 'not a qualified name'
          : reserved(key)
            ? 'a reserved prefix'
            : typeof value !== 'string' || !valueOk(value)
              ? `not a valid ${kind} value`
              : undefined;
    if (why === undefined) into[key] = value as string;
    else dropped.push(`${SUGGESTED_NAMESPACE_TEMPLATE_ANNOTATION}: ${kind} ${shown} not applied (${why})`);
  }
}

/** `[prefix/]name`: a DNS subdomain prefix of at most 253 characters, a name of at most 63. */
function qualifiedName(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash === -1) return NAME_PART.test(key);
  const prefix = key.slice(0, slash);
  return prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix) && NAME_PART.test(key.slice(slash + 1));
}

function reserved(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash === -1) return false;
  const prefix = key.slice(0, slash);
  return !ALLOWED_RESERVED.has(prefix) && RESERVED.some((r) => r.test(prefix));
}

function objectOf(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
