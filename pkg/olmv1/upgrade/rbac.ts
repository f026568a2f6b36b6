/**
 * What an approval adds for an extension `olmv1 install` created: exactly the grants (verb x
 * group x resource x name, and URLs) the new bundle's RBAC needs that the roles install or an
 * earlier approval created do not cover, in a Role or ClusterRole named after the new bundle and
 * labelled like the rest. The old roles stay: the upgrade still deletes old objects.
 */
import { atomsOfRule, ruleCovers, type Atom } from '../../operator-controller/applier/index.ts';
import type { Release } from '../../operator-controller/release/index.ts';
import {
  extensionRenderOptions,
  policyRules,
  renderedClusterProxy,
  renderFeatures,
  ruleText,
  type PolicyRule,
} from '../../operator-controller/render/index.ts';
import { errorMessage, err, ok, type Result } from '../../shared/errors/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import { planGates } from './gates.ts';
import type { ReadExtension, UpgradeDeps } from './ports.ts';

const RBAC = 'rbac.authorization.k8s.io/v1';

/** One role or binding granted (or, in a dry run, that would be): `Role ns/name` and its rules as text. */
export interface Grant {
  object: string;
  rules: string[];
}

/** The grants an approval made for an extension `olmv1 install` created. */
export interface RbacGrants {
  /** `namespace/name` of the extension's ServiceAccount. */
  serviceAccount: string;
  /** The bundle whose permissions they are. */
  bundle: string;
  /** Empty: the ServiceAccount already holds every permission the bundle needs. */
  grants: Grant[];
}

/** The rules of a Role ('' namespace) or ClusterRole. */
function scopeOf(o: KubeObject): string {
  return o.kind === 'ClusterRole' ? '' : (o.metadata.namespace ?? '');
}

/** The atoms as rules: one rule per group and resource with the names sharing a set of verbs; URLs by verb set. */
function rulesOf(atoms: readonly Atom[]): PolicyRule[] {
  const byResource = new Map<string, Map<string, string[]>>(); // group\0resource -> name -> verbs
  const byUrl = new Map<string, string[]>();
  for (const a of atoms) {
    if (a.url !== undefined) {
      byUrl.set(a.url, [...(byUrl.get(a.url) ?? []), a.verb]);
      continue;
    }
    const key = `${a.group}\0${a.resource}`;
    const names = byResource.get(key) ?? new Map<string, string[]>();
    byResource.set(key, names);
    names.set(a.name, [...(names.get(a.name) ?? []), a.verb]);
  }
  const rules: PolicyRule[] = [];
  for (const [key, names] of byResource) {
    const [group = '', resource = ''] = key.split('\0');
    const byVerbs = new Map<string, string[]>();
    for (const [name, verbs] of names) {
      const v = [...new Set(verbs)].sort().join(',');
      byVerbs.set(v, [...(byVerbs.get(v) ?? []), name]);
    }
    for (const [verbs, list] of byVerbs) {
      const named = list.filter((n) => n !== '').sort();
      // A grant without a name covers every name: it needs a rule of its own.
      if (list.includes('')) rules.push({ apiGroups: [group], resources: [resource], verbs: verbs.split(',') });
      if (named.length > 0) rules.push({ apiGroups: [group], resources: [resource], resourceNames: named, verbs: verbs.split(',') });
    }
  }
  for (const [url, verbs] of byUrl) rules.push({ nonResourceURLs: [url], verbs: [...new Set(verbs)].sort() });
  return rules;
}

/**
 * `wanted`'s roles and bindings cut to the grants `held` does not cover (a ClusterRole's covers
 * every namespace); empty roles go with their bindings, the ServiceAccount is not repeated.
 */
export function rbacDelta(held: readonly KubeObject[], wanted: readonly KubeObject[]): KubeObject[] {
  const heldRules = held.map((o) => ({ scope: scopeOf(o), rules: policyRules(o['rules']) }));
  const covered = (a: Atom) => heldRules.some((h) => (h.scope === '' || h.scope === a.namespace) && h.rules.some((r) => ruleCovers(r, a)));
  const out: KubeObject[] = [];
  const kept = new Set<string>();
  for (const role of wanted.filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role')) {
    const missing = policyRules(role['rules'])
      .flatMap((r) => atomsOfRule(r, scopeOf(role)))
      .filter((a) => !covered(a));
    if (missing.length === 0) continue;
    out.push({ ...role, rules: rulesOf(missing) });
    kept.add(`${role.kind}/${scopeOf(role)}/${role.metadata.name ?? ''}`);
  }
  for (const binding of wanted.filter((o) => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding')) {
    const ref = binding['roleRef'] as { kind?: string; name?: string } | undefined;
    const scope = ref?.kind === 'ClusterRole' ? '' : (binding.metadata.namespace ?? '');
    if (kept.has(`${ref?.kind ?? ''}/${scope}/${ref?.name ?? ''}`)) out.push(binding);
  }
  return out;
}

/** What the approval knows of the extension. */
interface Approved {
  ce: ReadExtension;
  release: Release;
  pick: { bundle: string; image: string };
}

/** Why the grants stopped, with those made before. */
interface GrantFailure {
  error: string;
  grants: Grant[];
}

/**
 * For an extension `olmv1 install` created (others' RBAC is not ours: undefined), grants the
 * rbacDelta of the picked bundle, rendered as the controller will render it; `dryRun` grants
 * nothing and says what it would.
 * @throws what `deps.bundles.load` throws (the bundle cannot be pulled or does not parse).
 */
export async function grantUpgradeRbac(
  deps: Pick<UpgradeDeps, 'client' | 'bundles' | 'gateParser' | 'rbac' | 'progress'>,
  a: Approved,
  o: { dryRun: boolean; systemNamespace: string },
): Promise<Result<RbacGrants | undefined, GrantFailure>> {
  const labels = a.ce.object.metadata.labels ?? {};
  const serviceAccount = a.ce.extension.spec.serviceAccount?.name;
  if (labels[deps.rbac.installedBy.label] !== deps.rbac.installedBy.value || serviceAccount === undefined) return ok(undefined);
  const name = a.ce.object.metadata.name ?? '';
  const spec = a.ce.extension.spec;
  if (deps.bundles === undefined) return err({ error: 'fetching bundle images is not available', grants: [] });
  deps.progress?.(`pulling bundle image ${a.pick.image} of ${a.pick.bundle} for the permissions it needs...`);
  const bundle = await deps.bundles.load(a.pick.image);
  // Rendered as the controller will render it: its gates (gates.ts, as the plan reads them) and
  // the cluster-wide proxy the deployed release has.
  const installed = a.release.manifest.objects();
  const gates = await planGates(deps.client, o.systemNamespace, {}, installed, deps.gateParser);
  if (!gates.ok) return err({ error: gates.error, grants: [] });
  const options = extensionRenderOptions(spec, renderFeatures(gates.value.values), renderedClusterProxy(installed));
  const args = { installNamespace: spec.namespace, ...(options.certProvider === undefined ? {} : { certProvider: options.certProvider }) };
  let wanted: KubeObject[];
  try {
    wanted = deps.rbac.wanted(bundle, options, serviceAccount, args);
  } catch (e) {
    return err({ error: errorMessage(e), grants: [] });
  }
  const held: KubeObject[] = [];
  for (const kind of ['ClusterRole', 'Role']) {
    const { items } = await deps.client.listAll({ apiVersion: RBAC, kind }, { labelSelector: deps.rbac.selector(name) });
    held.push(...items.map((i) => ({ ...i, kind })));
  }
  const delta = rbacDelta(held, wanted).map((d): KubeObject => ({
    ...d,
    metadata: { ...d.metadata, labels: { ...d.metadata.labels, ...installLabelsOf(labels) } },
  }));
  const grants: Grant[] = [];
  for (const d of delta) {
    const what = `${d.kind} ${d.metadata.namespace === undefined ? '' : `${d.metadata.namespace}/`}${d.metadata.name ?? ''}`;
    if (!o.dryRun) {
      try {
        await deps.client.create(d);
      } catch (e) {
        return err({ error: `error creating ${what} for the upgrade's permissions: ${errorMessage(e)}`, grants });
      }
    }
    grants.push({ object: what, rules: policyRules(d['rules']).map(ruleText) });
  }
  return ok({ serviceAccount: `${spec.namespace}/${serviceAccount}`, bundle: a.pick.bundle, grants });
}

/** The install labels of an extension's own labels, for what is created on its behalf. */
function installLabelsOf(labels: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).filter(([k]) => k.startsWith('olm.operatorframework.io/installed-')));
}
