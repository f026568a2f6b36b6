/**
 * What an OpenShift rendering gives each component for reaching registries and catalogd, read
 * from the objects alone, so that upstream's rendered OpenShift manifests
 * (test/fixtures/upstream-manifests/openshift-*.yaml) and ours can be compared although
 * they say it differently: upstream points Go's SSL_CERT_DIR at a CA directory, ours passes it
 * as --pull-cas-dir; upstream's operator-controller trusts catalogd with the directory
 * (--catalogd-cas-dir), ours with one file of it (--catalogd-ca-file).
 */
import type { KubeObject } from '../../pkg/shared/kube/index.ts';

/** Where a file of a mounted volume comes from: `ConfigMap NAME KEY` (or `Secret ...`). */
interface FileSource {
  /** The file's name in the mounted directory. */
  file: string;
  source: string;
}

interface Container {
  args?: string[];
  env?: { name: string; value?: string }[];
  volumeMounts?: { name: string; mountPath: string }[];
}
interface Items {
  name?: string;
  secretName?: string;
  items?: { key: string; path: string }[];
}
interface Volume {
  name: string;
  configMap?: Items;
  secret?: Items;
  projected?: { sources: { configMap?: Items; secret?: Items }[] };
}
interface PodSpec {
  serviceAccountName: string;
  containers: Container[];
  volumes?: Volume[];
}

type Deployment = KubeObject & { spec: { template: { spec: PodSpec } } };

/** The label that has OpenShift's network operator write the trusted CA bundle into a ConfigMap. */
export const INJECT_TRUSTED_CA = 'config.openshift.io/inject-trusted-cabundle';

/** The Deployment `name` of `objects` (any namespace). @throws Error when there is none. */
export function deploymentOf(objects: readonly KubeObject[], name: string): Deployment {
  const found = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name);
  if (found === undefined) throw new Error(`no Deployment ${name}`);
  return found as Deployment;
}

/** The value of `--flag=VALUE` among the first container's args. */
export function flagOf(deployment: Deployment, flag: string): string | undefined {
  const prefix = `--${flag}=`;
  return deployment.spec.template.spec.containers[0]?.args?.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

/** The value of an environment variable of the first container. */
export function envOf(deployment: Deployment, name: string): string | undefined {
  return deployment.spec.template.spec.containers[0]?.env?.find((e) => e.name === name)?.value;
}

/**
 * The files the first container sees in directory `dir` (a volume mounted there), each with its
 * source; a ConfigMap that `objects` hold in the Deployment's namespace with the trusted-CA label
 * is named `the trusted CA bundle` (upstream's and ours are per component, in other namespaces).
 */
export function filesIn(objects: readonly KubeObject[], deployment: Deployment, dir: string): FileSource[] {
  const pod = deployment.spec.template.spec;
  const mount = pod.containers[0]?.volumeMounts?.find((m) => m.mountPath.replace(/\/$/, '') === dir.replace(/\/$/, ''));
  const volume = pod.volumes?.find((v) => v.name === mount?.name);
  if (volume === undefined) return [];
  const injected = (name: string | undefined): boolean =>
    objects.some(
      (o) =>
        o.kind === 'ConfigMap' &&
        o.metadata.name === name &&
        o.metadata.namespace === deployment.metadata.namespace &&
        o.metadata.labels?.[INJECT_TRUSTED_CA] === 'true',
    );
  const sources = volume.projected?.sources ?? [{ configMap: volume.configMap, secret: volume.secret }];
  return sources.flatMap(({ configMap, secret }) => [
    ...(configMap?.items ?? []).map((i) => ({
      file: i.path,
      source: injected(configMap?.name) ? `the trusted CA bundle ${i.key}` : `ConfigMap ${configMap?.name} ${i.key}`,
    })),
    ...(secret?.items ?? []).map((i) => ({ file: i.path, source: `Secret ${secret?.secretName} ${i.key}` })),
  ]);
}

/** The source of one file, `path`, of a directory mounted in the first container. */
export function sourceOfFile(objects: readonly KubeObject[], deployment: Deployment, path: string): string | undefined {
  const cut = path.lastIndexOf('/');
  return filesIn(objects, deployment, path.slice(0, cut)).find((f) => f.file === path.slice(cut + 1))?.source;
}

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs: string[];
}
interface Binding {
  roleRef: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
}

/** A request on a core resource: `verb` of `resource` (named `name`) in `namespace`. */
interface Request {
  verb: string;
  resource: string;
  namespace: string;
  name: string;
}

/**
 * Whether the Roles, ClusterRoles and their bindings among `objects` let ServiceAccount
 * `namespace/name` make `request` (as RBAC decides it: a rule with resourceNames allows list and
 * watch only of the object a field selector on metadata.name names, which `request.name` is).
 */
export function allows(objects: readonly KubeObject[], account: { namespace: string; name: string }, request: Request): boolean {
  const holds = (list: string[] | undefined, value: string): boolean => list?.includes(value) === true || list?.includes('*') === true;
  const ruleAllows = (r: Rule): boolean =>
    holds(r.apiGroups, '') &&
    holds(r.resources, request.resource) &&
    holds(r.verbs, request.verb) &&
    (r.resourceNames === undefined || r.resourceNames.length === 0 || r.resourceNames.includes(request.name));
  const roleOf = (ref: Binding['roleRef']): KubeObject | undefined =>
    objects.find(
      (o) => o.kind === ref.kind && o.metadata.name === ref.name && (ref.kind === 'ClusterRole' || o.metadata.namespace === request.namespace),
    );
  return objects.some((o) => {
    if (o.kind !== 'ClusterRoleBinding' && !(o.kind === 'RoleBinding' && o.metadata.namespace === request.namespace)) return false;
    const b = o as unknown as Binding;
    if (!(b.subjects ?? []).some((s) => s.kind === 'ServiceAccount' && s.name === account.name && s.namespace === account.namespace)) return false;
    return ((roleOf(b.roleRef) as unknown as { rules?: Rule[] } | undefined)?.rules ?? []).some(ruleAllows);
  });
}
