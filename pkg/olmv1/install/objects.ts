/**
 * The objects `olmv1 install` writes (pure; `uninstall` and `update` read the labels too): the
 * install labels, the ClusterExtension of a request, everything in write order, and the install
 * state of a ClusterExtension's status.
 */
import {
  CLUSTER_EXTENSION,
  UPDATE_POLICY_ANNOTATION,
  type CrdUpgradeSafetyEnforcement,
  type UpdatePolicy,
  type UpgradeConstraintPolicy,
} from '../../shared/api/index.ts';
import type { LabelSelector } from '../../operator-controller/resolve/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';

/** Set to `olmv1` on every object `olmv1 install` creates. */
export const INSTALLED_BY_LABEL = 'olm.operatorframework.io/installed-by';
/** The ClusterExtension an object was created for by `olmv1 install` (with INSTALLED_BY_LABEL). */
export const INSTALLED_FOR_LABEL = 'olm.operatorframework.io/installed-for';

/** The labels of the objects `olmv1 install` creates for the ClusterExtension `extension`. */
function installLabels(extension: string): Record<string, string> {
  return { [INSTALLED_BY_LABEL]: 'olmv1', [INSTALLED_FOR_LABEL]: extension };
}

/** The label selector of the objects `olmv1 install` created for `extension` (what `uninstall` deletes). */
export function installedForSelector(extension: string): string {
  return `${INSTALLED_BY_LABEL}=olmv1,${INSTALLED_FOR_LABEL}=${extension}`;
}

/** What the ClusterExtension `install` writes asks for. */
export interface ExtensionRequest {
  name: string;
  packageName: string;
  namespace: string;
  serviceAccount: string;
  channels: readonly string[];
  version: string | undefined;
  selector: LabelSelector | undefined;
  upgradeConstraintPolicy: UpgradeConstraintPolicy | undefined;
  crdUpgradeSafety: CrdUpgradeSafetyEnforcement | undefined;
  watchNamespace: string | undefined;
  /** The update policy annotation (unset: Automatic). */
  updatePolicy?: UpdatePolicy | undefined;
}

/** The `spec.source.catalog` of `req`; unset fields are left out. */
export function catalogSource(req: ExtensionRequest) {
  return {
    packageName: req.packageName,
    ...(req.channels.length === 0 ? {} : { channels: [...req.channels] }),
    ...(req.version === undefined ? {} : { version: req.version }),
    ...(req.selector === undefined ? {} : { selector: req.selector }),
    ...(req.upgradeConstraintPolicy === undefined ? {} : { upgradeConstraintPolicy: req.upgradeConstraintPolicy }),
  };
}

/** The ClusterExtension manifest for `req`, labelled as installed by olmv1; unset fields are left out. */
function extensionManifest(req: ExtensionRequest): KubeObject {
  return {
    apiVersion: CLUSTER_EXTENSION.apiVersion,
    kind: CLUSTER_EXTENSION.kind,
    metadata: {
      name: req.name,
      labels: installLabels(req.name),
      ...(req.updatePolicy === undefined ? {} : { annotations: { [UPDATE_POLICY_ANNOTATION]: req.updatePolicy } }),
    },
    spec: {
      namespace: req.namespace,
      serviceAccount: { name: req.serviceAccount },
      source: { sourceType: 'Catalog', catalog: catalogSource(req) },
      ...(req.crdUpgradeSafety === undefined ? {} : { install: { preflight: { crdUpgradeSafety: { enforcement: req.crdUpgradeSafety } } } }),
      ...(req.watchNamespace === undefined ? {} : { config: { configType: 'Inline', inline: { watchNamespace: req.watchNamespace } } }),
    },
  };
}

/** Write order of the RBAC kinds: a binding names a role that exists, a role is there before the extension uses it. */
const KIND_ORDER = ['Namespace', 'ServiceAccount', 'ClusterRole', 'Role', 'ClusterRoleBinding', 'RoleBinding', 'ClusterExtension'];

/**
 * Everything `install` writes, in write order, each labelled for `req.name`: the namespace
 * (only when `createNamespace`, with the labels and annotations of the CSV's suggested-namespace
 * template, `namespace`, under install's own labels), the ServiceAccount and RBAC of `rbac` (what
 * `olmv1 rbac` prints for the bundle; none with `install --service-account`), then the ClusterExtension.
 */
export function installObjects(
  req: ExtensionRequest,
  rbac: readonly KubeObject[],
  createNamespace: boolean,
  namespace: { labels: Record<string, string>; annotations: Record<string, string> } = { labels: {}, annotations: {} },
): KubeObject[] {
  const labels = installLabels(req.name);
  const labelled = rbac.map((o) => ({ ...o, metadata: { ...o.metadata, labels: { ...o.metadata.labels, ...labels } } }));
  const annotations = Object.keys(namespace.annotations).length === 0 ? {} : { annotations: { ...namespace.annotations } };
  const objects: KubeObject[] = [
    ...(createNamespace
      ? [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: req.namespace, labels: { ...namespace.labels, ...labels }, ...annotations } }]
      : []),
    ...labelled,
    extensionManifest(req),
  ];
  const rank = (o: KubeObject) => {
    const i = KIND_ORDER.indexOf(o.kind);
    return i === -1 ? KIND_ORDER.length : i;
  };
  // Array sort is stable: objects of one kind keep the order `olmv1 rbac` gives them.
  return objects.sort((a, b) => rank(a) - rank(b));
}

/** A condition as the status of a ClusterExtension or ClusterCatalog holds it. */
interface StatusCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

/** The status conditions of `obj` (none when it has none); `olmv1 catalogs` reads ClusterCatalogs' with it. */
export function statusConditions(obj: KubeObject): StatusCondition[] {
  const status = obj.status as { conditions?: StatusCondition[] } | undefined;
  return Array.isArray(status?.conditions) ? status.conditions : [];
}

/** Where the install of a ClusterExtension stands, as `install` reports it while waiting. */
type InstallState =
  { state: 'installed'; bundle: string; version: string } | { state: 'waiting'; progress: string } | { state: 'failed'; progress: string };

/**
 * The state of the ClusterExtension `obj`'s current generation: installed (Installed=True and
 * Progressing Succeeded for it), failed for good (Progressing Blocked: nothing will change
 * without an edit), or still waiting, with the Progressing reason and message.
 */
export function installState(obj: KubeObject): InstallState {
  const generation = obj.metadata.generation;
  const find = (type: string) => statusConditions(obj).find((c) => c.type === type);
  const progressing = find('Progressing');
  const current = progressing !== undefined && (generation === undefined || progressing.observedGeneration === generation);
  const progress = !current ? 'waiting for operator-controller' : `${progressing.reason ?? ''}: ${progressing.message ?? ''}`;
  const install = (obj.status as { install?: { bundle?: { name?: string; version?: string } } } | undefined)?.install;
  if (current && find('Installed')?.status === 'True' && progressing.reason === 'Succeeded') {
    return { state: 'installed', bundle: install?.bundle?.name ?? '', version: install?.bundle?.version ?? '' };
  }
  if (current && progressing.reason === 'Blocked') return { state: 'failed', progress };
  return { state: 'waiting', progress };
}

/** `Kind namespace/name` (`Kind name` when cluster-scoped), as install and uninstall name objects. */
export function describeObject(o: KubeObject): string {
  return `${o.kind} ${o.metadata.namespace === undefined ? '' : `${o.metadata.namespace}/`}${o.metadata.name ?? ''}`;
}
