/**
 * What `olmv1 uninstall NAME --delete-crds` would delete (issue 63 item 4, decision 0119): every
 * CustomResourceDefinition the extension's revisions own (the CRDs its newest and installed revisions
 * name, and those carrying its owner labels, which an uninstall keeps) with the count of
 * its custom resources per namespace; and the CRDs that must not go, naming who still owns or
 * uses them: a CRD whose live owner labels name another ClusterExtension, one another
 * extension's release names, one whose API another installed extension's bundle requires
 * (`olm.gvk.required`, `olm.constraint`: only requirements met now and unmet once the CRD's
 * APIs go). Reads only, as the caller's client.
 */
import { OWNER_KIND_LABEL, OWNER_NAME_LABEL } from '../../shared/api/index.ts';
import type { Property } from '../../shared/fbc/types.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import { isNotFound, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import {
  DEFAULT_LIMITS,
  brokenDependent,
  bundleRequirements,
  installedCandidate,
  servedApisCandidate,
  type Candidate,
  type Gvk,
  type Predicate,
} from '../../operator-controller/dependencies/index.ts';
import { installed, newest, type Revision, type RevisionReader } from '../../operator-controller/revisions/index.ts';

/** The type of CustomResourceDefinitions, as read here. */
export const CRD_TYPE = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;

/** The custom resources of one CRD in one namespace ('' for cluster-scoped ones). */
interface NamespaceCount {
  readonly namespace: string;
  readonly count: number;
}

/** One CRD that would be deleted, with its custom resources. */
export interface CrdToDelete {
  readonly name: string;
  /** The uid read: the deletion is preconditioned on it, so a CRD made since is never deleted. */
  readonly uid: string;
  readonly group: string;
  readonly kind: string;
  readonly scope: string;
  /** Per namespace, by namespace name; empty when it has none. */
  readonly customResources: readonly NamespaceCount[];
}

/** A CRD that must not be deleted, and why (naming who owns or uses it). */
interface Refusal {
  readonly crd: string;
  readonly reason: string;
}

/** The preview: what would go, and what is refused. */
export interface DeletionPreview {
  readonly extension: string;
  readonly crds: readonly CrdToDelete[];
  readonly refusals: readonly Refusal[];
  /** Extensions whose catalog properties could not be read (their requirements were checked from their records only), with why. */
  readonly unchecked: readonly string[];
}

/** What the preview reads: the caller's client (CRDs, custom resources) and the extensions' revisions (either runtime's). */
export interface PreviewPorts {
  readonly client: Pick<KubeClient, 'get' | 'listAll'>;
  /** The one revision reader (pkg/operator-controller/revisions): Helm release records or ClusterObjectSets. */
  readonly revisions: Pick<RevisionReader, 'revisions' | 'list'>;
  /**
   * The properties the catalogs give an installed bundle (where `olm.gvk` and the
   * `olm.gvk.required` of a CSV's required CRDs are), as the controller reads dependents;
   * undefined when no catalog has it. Without it, or where it fails, only the properties the
   * release records keep (the CSV's `olm.properties`) are checked, and `unchecked` says so.
   */
  readonly catalogProperties?: (packageName: string, bundleName: string) => Promise<readonly Property[] | undefined>;
}

interface CrdSpec {
  group?: string;
  scope?: string;
  names?: { kind?: string };
  versions?: { name?: string; served?: boolean; storage?: boolean }[];
}

const isCrdIdentity = (o: KubeObject): boolean => o.kind === 'CustomResourceDefinition' && o.apiVersion.startsWith('apiextensions.k8s.io/');

/** Names of the CRDs the revisions name. */
function crdNamesOf(revisions: readonly Revision[]): Set<string> {
  const names = new Set<string>();
  for (const r of revisions) for (const o of r.objects.identities()) if (isCrdIdentity(o) && o.metadata.name) names.add(o.metadata.name);
  return names;
}

/** The revisions that speak for an extension now: its newest and its installed one. */
function current(history: readonly Revision[]): Revision[] {
  const last = newest(history);
  const out = last === undefined ? [] : [last];
  const now = installed(history);
  if (now !== undefined && now !== last) out.push(now);
  return out;
}

const propertiesOf = (r: Revision | undefined): Property[] =>
  (r?.properties ?? []).filter((p): p is Property => typeof p === 'object' && p !== null && typeof (p as { type?: unknown }).type === 'string');

const gvkKey = (g: Gvk): string => `${g.group}/${g.version}/${g.kind}`;

/** The GVKs a predicate names (to say which CRD a broken requirement is about). */
function gvksIn(p: Predicate, out: Gvk[]): Gvk[] {
  if (p.kind === 'gvk') out.push(p.gvk);
  if (p.kind === 'all' || p.kind === 'any' || p.kind === 'not') for (const c of p.constraints) gvksIn(c.predicate, out);
  return out;
}

/** The served GVKs of a CRD. */
function servedGvks(spec: CrdSpec): Gvk[] {
  return (spec.versions ?? [])
    .filter((v) => v.served !== false && v.name)
    .map((v) => ({ group: spec.group ?? '', version: v.name ?? '', kind: spec.names?.kind ?? '' }));
}

/** Counts the custom resources of `crd` per namespace (metadata only, paged). */
async function countCustomResources(client: PreviewPorts['client'], spec: CrdSpec): Promise<NamespaceCount[]> {
  const versions = spec.versions ?? [];
  const version = versions.find((v) => v.storage === true && v.served !== false) ?? versions.find((v) => v.served !== false);
  if (version?.name === undefined || spec.group === undefined || spec.names?.kind === undefined) return [];
  const { items } = await client.listAll({ apiVersion: `${spec.group}/${version.name}`, kind: spec.names.kind }, { metadataOnly: true });
  const counts = new Map<string, number>();
  for (const o of items) counts.set(o.metadata.namespace ?? '', (counts.get(o.metadata.namespace ?? '') ?? 0) + 1);
  return [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([namespace, count]) => ({ namespace, count }));
}

/** Reads the preview of deleting `extension`'s CRDs; API failures are thrown (with the server's message). */
export async function previewCrdDeletion(ports: PreviewPorts, extension: string): Promise<DeletionPreview> {
  const { client, revisions: reader } = ports;
  const own = current(await reader.revisions(extension));
  const names = crdNamesOf(own);
  const selector = `${OWNER_KIND_LABEL}=ClusterExtension,${OWNER_NAME_LABEL}=${extension}`;
  for (const o of (await client.listAll(CRD_TYPE, { labelSelector: selector, metadataOnly: true })).items)
    if (o.metadata.name) names.add(o.metadata.name);

  const refusals: Refusal[] = [];
  const live = new Map<string, KubeObject>();
  for (const name of [...names].sort()) {
    let crd: KubeObject;
    try {
      crd = await client.get({ ...CRD_TYPE, name });
    } catch (e) {
      if (isNotFound(e)) continue;
      throw e;
    }
    const labels = crd.metadata.labels ?? {};
    const owner = labels[OWNER_KIND_LABEL] === 'ClusterExtension' ? labels[OWNER_NAME_LABEL] : undefined;
    if (owner !== extension) {
      refusals.push({
        crd: name,
        reason:
          owner === undefined
            ? `it does not carry ClusterExtension ${JSON.stringify(extension)}'s owner labels`
            : `ClusterExtension ${JSON.stringify(owner)} owns it`,
      });
      continue;
    }
    live.set(name, crd);
  }

  // Other extensions: their releases naming one of these CRDs, and their requirements on their APIs.
  const ourGvks = new Map<string, { gvk: Gvk; crd: string }>();
  for (const [name, crd] of live) for (const g of servedGvks((crd.spec ?? {}) as CrdSpec)) ourGvks.set(gvkKey(g), { gvk: g, crd: name });
  const unchecked: string[] = [];
  // The bundle's properties: its record's, and the catalogs' when they can be read.
  const allProperties = async (name: string, r: Revision | undefined): Promise<Property[]> => {
    if (r === undefined || ports.catalogProperties === undefined || live.size === 0) return propertiesOf(r);
    try {
      return [...propertiesOf(r), ...((await ports.catalogProperties(r.bundle.package, r.bundle.name)) ?? [])];
    } catch (e) {
      unchecked.push(`ClusterExtension ${JSON.stringify(name)} (${errorMessage(e)})`);
      return propertiesOf(r);
    }
  };
  const others: { name: string; release: Revision | undefined; properties: Property[]; candidate: Candidate }[] = [];
  for (const other of (await reader.list()).filter((n) => n !== extension).sort()) {
    const revisions = current(await reader.revisions(other));
    for (const name of crdNamesOf(revisions)) {
      if (live.has(name)) refusals.push({ crd: name, reason: `the release of ClusterExtension ${JSON.stringify(other)} includes it` });
    }
    const release = installed(revisions) ?? revisions[0];
    const properties = await allProperties(other, release);
    others.push({
      name: other,
      release,
      properties,
      candidate: installedCandidate({ name: other, packageName: release?.bundle.package ?? '', version: release?.bundle.version ?? '', properties }),
    });
  }
  const self = installed(own) ?? own[0];
  const selfProperties = await allProperties(extension, self);
  const selfCandidate = (properties: Property[]): Candidate =>
    installedCandidate({ name: extension, packageName: self?.bundle.package ?? '', version: self?.bundle.version ?? '', properties });
  const withoutOurs = selfProperties.filter((p) => {
    if (p.type !== 'olm.gvk' || typeof p.value !== 'object' || p.value === null || Array.isArray(p.value)) return true;
    const v = p.value as Record<string, unknown>;
    return !ourGvks.has(`${String(v.group)}/${String(v.version)}/${String(v.kind)}`);
  });
  const otherCandidates = others.map((o) => o.candidate);
  const before = [servedApisCandidate([...ourGvks.values()].map((g) => g.gvk)), ...otherCandidates, selfCandidate(selfProperties)];
  const after = [servedApisCandidate([]), ...otherCandidates, selfCandidate(withoutOurs)];
  for (const other of others) {
    if (other.release === undefined || live.size === 0) continue;
    const reqs = bundleRequirements({ name: other.release.bundle.name, properties: other.properties }, DEFAULT_LIMITS);
    if (!reqs.ok) continue;
    const broken = brokenDependent([{ name: other.name, requirements: reqs.value }], before, after);
    if (broken === undefined) continue;
    const named = gvksIn(broken.unmet.requirement.constraint.predicate, []).flatMap((g) => ourGvks.get(gvkKey(g))?.crd ?? []);
    const crds = named.length > 0 ? [...new Set(named)] : [...live.keys()];
    const reason = `ClusterExtension ${JSON.stringify(other.name)} requires ${broken.unmet.description} (${broken.unmet.requirement.property})`;
    for (const crd of crds) refusals.push({ crd, reason });
  }

  const crds: CrdToDelete[] = [];
  for (const [name, crd] of live) {
    const spec = (crd.spec ?? {}) as CrdSpec;
    crds.push({
      name,
      uid: crd.metadata.uid ?? '',
      group: spec.group ?? '',
      kind: spec.names?.kind ?? '',
      scope: spec.scope ?? '',
      customResources: await countCustomResources(client, spec),
    });
  }
  return { extension, crds, refusals, unchecked };
}

/** The preview without what identifies a CRD read (uids): what a summary is compared with. */
export function previewSummary(p: DeletionPreview): { extension: string; customResourceDefinitions: Omit<CrdToDelete, 'uid'>[] } {
  return { extension: p.extension, customResourceDefinitions: p.crds.map(({ uid: _uid, ...rest }) => rest) };
}
