/**
 * What `olmv1 upgrade approve` adds for an extension `olmv1 install` created: exactly the grants
 * (verb x group x resource x name, and URLs) the new bundle's RBAC needs that the roles install
 * or an earlier approval created do not cover, in a Role or ClusterRole named after the new
 * bundle and labelled like the rest. The old roles stay: the upgrade still deletes old objects.
 */
import { atomsOfRule, ruleCovers, type Atom } from '../../pkg/operator-controller/applier/index.ts';
import type { Release } from '../../pkg/operator-controller/release/index.ts';
import {
  extensionRenderOptions,
  policyRules,
  renderedClusterProxy,
  renderFeatures,
  ruleText,
  type PolicyRule,
} from '../../pkg/operator-controller/render/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { BUNDLE_IMAGE_LIMITS } from '../../pkg/shared/image/index.ts';
import type { KubeContext, KubeObject } from '../../pkg/shared/kube/index.ts';
import { type CommandIO, EXIT } from './io.ts';
import { INSTALLED_BY_LABEL, installedForSelector } from './install-objects.ts';
import { installRbac } from './rbac.ts';
import { CommandError, loadBundle, type BundleSourceDeps } from './render.ts';
import type { readClusterExtension } from './resolve-cluster.ts';
import { planGates } from './upgrade-gates.ts';

const RBAC = 'rbac.authorization.k8s.io/v1';

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
  ce: Awaited<ReturnType<typeof readClusterExtension>>;
  release: Release;
  pick: { bundle: string; image: string };
}

/**
 * For an extension `olmv1 install` created (others' RBAC is not ours), grants and prints the
 * rbacDelta of the picked bundle; `dryRun` only prints.
 * @throws CommandError (exit 1) when the bundle cannot be pulled or rendered, or a role cannot be created.
 */
export async function grantUpgradeRbac(
  kube: Pick<KubeContext, 'client'>,
  deps: BundleSourceDeps,
  a: Approved,
  o: { dryRun: boolean; systemNamespace: string },
  io: CommandIO,
): Promise<void> {
  const { dryRun, systemNamespace } = o;
  const labels = a.ce.object.metadata.labels ?? {};
  const serviceAccount = a.ce.extension.spec.serviceAccount?.name;
  if (labels[INSTALLED_BY_LABEL] !== 'olmv1' || serviceAccount === undefined) return;
  const name = a.ce.object.metadata.name ?? '';
  const spec = a.ce.extension.spec;
  io.stderr.write(`pulling bundle image ${a.pick.image} of ${a.pick.bundle} for the permissions it needs...\n`);
  const bundle = await loadBundle({ source: a.pick.image, values: {}, imageLimits: BUNDLE_IMAGE_LIMITS }, deps, 'catalog');
  // Rendered as the controller will render it: its gates (upgrade-gates.ts, as the plan reads
  // them) and the cluster-wide proxy the deployed release has.
  const installed = a.release.manifest.objects();
  const gates = await planGates(kube.client, systemNamespace, {}, installed);
  const options = extensionRenderOptions(spec, renderFeatures(gates.values), renderedClusterProxy(installed));
  const args = { installNamespace: spec.namespace, ...(options.certProvider === undefined ? {} : { certProvider: options.certProvider }) };
  const wanted = installRbac(bundle, options, serviceAccount, args, io);
  const held: KubeObject[] = [];
  for (const kind of ['ClusterRole', 'Role']) {
    const { items } = await kube.client.listAll({ apiVersion: RBAC, kind }, { labelSelector: installedForSelector(name) });
    held.push(...items.map((o) => ({ ...o, kind })));
  }
  const delta = rbacDelta(held, wanted).map((o): KubeObject => ({
    ...o,
    metadata: { ...o.metadata, labels: { ...o.metadata.labels, ...installLabelsOf(labels) } },
  }));
  if (delta.length === 0) {
    io.stdout.write(`ServiceAccount ${spec.namespace}/${serviceAccount} already holds every permission ${a.pick.bundle} needs\n`);
    return;
  }
  for (const o of delta) {
    const what = `${o.kind} ${o.metadata.namespace === undefined ? '' : `${o.metadata.namespace}/`}${o.metadata.name ?? ''}`;
    if (!dryRun) {
      try {
        await kube.client.create(o);
      } catch (e) {
        throw new CommandError(`error creating ${what} for the upgrade's permissions: ${errorMessage(e)}`, EXIT.failed);
      }
    }
    const rules = policyRules(o['rules']);
    io.stdout.write(`${dryRun ? 'would grant' : 'granted'} ${what}${rules.length === 0 ? '' : `: ${rules.map(ruleText).join(', ')}`}\n`);
  }
}

/** The install labels of an extension's own labels, for what is created on its behalf. */
function installLabelsOf(labels: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).filter(([k]) => k.startsWith('olm.operatorframework.io/installed-')));
}
