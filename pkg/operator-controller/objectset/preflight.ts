/**
 * What a revision is checked for before any of its objects is written (issue 69):
 *
 * - Objects that belong to the system (decision 0126): RBAC objects named `system:...`, anything
 *   in (or being) the namespaces kube-system, kube-public and kube-node-lease, anything labelled
 *   `kubernetes.io/bootstrapping`. A revision never adopts, changes, deletes or releases one,
 *   whatever its collision protection: one naming such an object is refused whole.
 * - Kinds the cluster does not serve: upstream's controller starts a watch of every kind of the
 *   revision first and applies nothing when one has no REST mapping
 *   (`establish watch: no matches for kind ...`). A kind that a CustomResourceDefinition of an
 *   earlier phase of the same revision defines is not missing: that phase establishes it first.
 */
import type { KubeClient, KubeObject } from '../../shared/kube/index.ts';
import { isNoKindMatch } from '../../shared/kube/index.ts';

/** Namespaces whose content is the cluster's own. */
const SYSTEM_NAMESPACES = new Set(['kube-system', 'kube-public', 'kube-node-lease']);

/** RBAC kinds whose `system:` names are the cluster's own. */
const SYSTEM_RBAC_KINDS = new Set(['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);

/** The label the API server and kubeadm put on the objects they bootstrap. */
const BOOTSTRAPPING_LABEL = 'kubernetes.io/bootstrapping';

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** Why `obj` (a manifest or a live object) belongs to the system, or undefined. */
export function systemObjectReason(obj: KubeObject): string | undefined {
  const name = obj.metadata.name ?? '';
  const ns = obj.metadata.namespace ?? '';
  if (groupOf(obj.apiVersion) === 'rbac.authorization.k8s.io' && SYSTEM_RBAC_KINDS.has(obj.kind) && name.startsWith('system:')) {
    return 'its name starts with "system:"';
  }
  if (SYSTEM_NAMESPACES.has(ns)) return `it is in namespace ${ns}`;
  if (obj.apiVersion === 'v1' && obj.kind === 'Namespace' && SYSTEM_NAMESPACES.has(name)) return 'it is a namespace of the system';
  if (obj.metadata.labels?.[BOOTSTRAPPING_LABEL] !== undefined) return `it is labelled ${BOOTSTRAPPING_LABEL}`;
  return undefined;
}

/** `Kind ns/name` or `Kind name`. */
function describe(obj: KubeObject): string {
  const ns = obj.metadata.namespace ?? '';
  return `${obj.kind} ${ns === '' ? '' : `${ns}/`}${obj.metadata.name ?? ''}`;
}

/** The message of an object a revision refuses because it belongs to the system. */
export function systemObjectRefusal(obj: KubeObject, reason: string): string {
  return `${describe(obj)} belongs to the system (${reason}): a revision never adopts, changes or deletes it, whatever its collision protection`;
}

/** Progressing's message of a revision naming objects of the system, or undefined when it names none. */
export function systemObjectsMessage(phases: readonly { objects: readonly { manifest: KubeObject }[] }[]): string | undefined {
  const refused: string[] = [];
  for (const phase of phases) {
    for (const { manifest } of phase.objects) {
      const reason = systemObjectReason(manifest);
      if (reason !== undefined) refused.push(systemObjectRefusal(manifest, reason));
    }
  }
  if (refused.length === 0) return undefined;
  return `revision refused, nothing of it is applied: ${refused.join('; ')}`;
}

/** `group/Kind` keys of the kinds the CustomResourceDefinitions among `objects` define, with their versions. */
function definedKinds(objects: readonly KubeObject[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const o of objects) {
    if (o.kind !== 'CustomResourceDefinition' || groupOf(o.apiVersion) !== 'apiextensions.k8s.io') continue;
    const spec = o['spec'] as { group?: unknown; names?: { kind?: unknown }; versions?: { name?: unknown }[] } | undefined;
    if (typeof spec?.group !== 'string' || typeof spec.names?.kind !== 'string') continue;
    const key = `${spec.group}/${spec.names.kind}`;
    const versions = out.get(key) ?? new Set<string>();
    for (const v of spec.versions ?? []) if (typeof v.name === 'string') versions.add(v.name);
    out.set(key, versions);
  }
  return out;
}

/**
 * The first kind of the revision (phase order) the cluster does not serve and no earlier phase's
 * CRD defines, as the mapper's error (`no matches for kind "K" in version "G/V"`); undefined when
 * every kind is served. Other discovery failures are thrown.
 */
export async function firstMissingKind(
  client: Pick<KubeClient, 'resourceFor'>,
  phases: readonly { objects: readonly { manifest: KubeObject }[] }[],
  signal?: AbortSignal,
): Promise<string | undefined> {
  const earlier: KubeObject[] = [];
  const checked = new Set<string>();
  for (const phase of phases) {
    const defined = definedKinds(earlier);
    for (const { manifest } of phase.objects) {
      const type = { apiVersion: manifest.apiVersion, kind: manifest.kind };
      const key = `${type.apiVersion}/${type.kind}`;
      if (checked.has(key)) continue;
      checked.add(key);
      const slash = type.apiVersion.lastIndexOf('/');
      const version = slash < 0 ? type.apiVersion : type.apiVersion.slice(slash + 1);
      if (defined.get(`${groupOf(type.apiVersion)}/${type.kind}`)?.has(version) === true) continue;
      try {
        await client.resourceFor(type, signal);
      } catch (err) {
        if (isNoKindMatch(err)) return err.message;
        throw err;
      }
    }
    earlier.push(...phase.objects.map((o) => o.manifest));
  }
  return undefined;
}
