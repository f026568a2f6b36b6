/**
 * `olmv1 status`'s service: reads the ClusterCatalogs, the ClusterExtensions with their deployed
 * revisions, operator-controller's advice Events, the cluster's version and the Kubernetes minor
 * to check against, and builds the report (report.ts). The command and the console call it alike.
 */
import { CLUSTER_CATALOG, CLUSTER_EXTENSION } from '../../shared/api/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import {
  nextMinorVersion,
  parseClusterVersion,
  parseKubernetesVersion,
  type ClusterMinor,
  type DeployedExtension,
  type ObjectIdentity,
} from '../../operator-controller/gating/index.ts';
import { readServerVersion } from '../../operator-controller/dependencies/index.ts';
import { isForbidden, isNoKindMatch, isNotFound, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';
import { createRevisionReader, installed, objectSetView, type ObjectSetView } from '../../operator-controller/revisions/index.ts';
import { ADVICE_REASONS, buildStatusReport, type ClusterVersionInfo, type KubernetesTargetInfo, type StatusReport } from './report.ts';

/** What the status is read with: the client, and the transport for the API server's /version. */
export interface StatusReader {
  client: KubeClient;
  transport: Parameters<typeof readServerVersion>[0];
}

/** What the status is read for. */
interface StatusOptions {
  /** operator-controller's namespace (its release records). */
  namespace: string;
  /** The cluster's version (default: the ClusterVersion `version`). */
  clusterVersion?: ClusterMinor | undefined;
  /** The Kubernetes minor to check installed API versions against (default: the one after the API server's). */
  kubernetesVersion?: ClusterMinor | undefined;
  signal?: AbortSignal;
}

/** Reads everything the report needs; rejects (an Error with its cause) when the cluster cannot be read, except for its version. */
export async function collectStatus(reader: StatusReader, o: StatusOptions): Promise<StatusReport> {
  const { client } = reader;
  const signal = o.signal === undefined ? {} : { signal: o.signal };
  try {
    const [version, kubernetes, catalogs, extensions, advice] = await Promise.all([
      currentVersion(client, o.clusterVersion),
      kubernetesTarget(reader.transport, o.kubernetesVersion),
      client.listAll(CLUSTER_CATALOG, signal),
      client.listAll(CLUSTER_EXTENSION, signal),
      adviceEvents(client),
    ]);
    // ClusterObjectSets for an extension that has them (BoxcutterRuntime), else its release records.
    const store = createRevisionReader({ client, namespace: o.namespace });
    const deployed = new Map<string, DeployedExtension>();
    const objects = new Map<string, readonly ObjectIdentity[]>();
    const objectSets = new Map<string, ObjectSetView>();
    const unreadable: string[] = [];
    for (const e of extensions.items) {
      const name = e.metadata.name ?? '';
      try {
        // The whole history, as `olmv1 release history` reads it: the deployed revision's objects too.
        const revisions = await store.revisions(name, signal);
        const current = installed(revisions);
        // The installed revision's ClusterObjectSet, else the newest one's.
        const shown = current?.objectSet === undefined ? revisions.find((r) => r.objectSet !== undefined) : current;
        const set = shown === undefined ? undefined : objectSetView(shown);
        if (set !== undefined) objectSets.set(name, set);
        if (current === undefined) continue;
        deployed.set(name, { extension: name, bundle: current.bundle.name, properties: current.properties });
        objects.set(name, current.objects.identities());
      } catch {
        unreadable.push(name);
      }
    }
    return buildStatusReport({
      version,
      kubernetes,
      objects,
      catalogs: catalogs.items,
      extensions: extensions.items,
      deployed,
      unreadable,
      adviceEvents: advice,
      ...(objectSets.size === 0 ? {} : { objectSets }),
    });
  } catch (e) {
    throw new Error(errorMessage(e), { cause: e });
  }
}

/** operator-controller's advice Events (in namespace default, as for cluster-scoped objects); none when the user may not list them. */
async function adviceEvents(client: KubeClient): Promise<KubeObject[]> {
  try {
    const lists = await Promise.all(
      ADVICE_REASONS.map((reason) =>
        client.listAll({ apiVersion: 'events.k8s.io/v1', kind: 'Event' }, { namespace: 'default', fieldSelector: `reason=${reason}` }),
      ),
    );
    return lists.flatMap((l) => l.items);
  } catch {
    return [];
  }
}

/** The flag's minor, else the one after the API server's `/version`; unknown (saying why) when that cannot be read. */
async function kubernetesTarget(transport: StatusReader['transport'], flag: ClusterMinor | undefined): Promise<KubernetesTargetInfo> {
  if (flag !== undefined) return { ok: true, target: flag, source: 'flag' };
  let gitVersion: string;
  try {
    gitVersion = await readServerVersion(transport);
  } catch (e) {
    return { ok: false, error: `cannot read the API server's version: ${errorMessage(e)}` };
  }
  const v = parseKubernetesVersion(gitVersion);
  return v.ok ? { ok: true, target: nextMinorVersion(v.value), source: 'server' } : { ok: false, error: v.error };
}

/** The flag's version, else the ClusterVersion `version`; unknown (saying why) when absent, unusable or unreadable. */
export async function currentVersion(client: KubeClient, flag: ClusterMinor | undefined): Promise<ClusterVersionInfo> {
  if (flag !== undefined) return { ok: true, current: flag, source: 'flag' };
  let desired: unknown;
  try {
    const cv = await client.get({ apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', name: 'version' });
    desired = (cv.status as { desired?: { version?: unknown } } | undefined)?.desired?.version;
  } catch (e) {
    if (isNoKindMatch(e)) return { ok: false, error: 'the cluster serves no config.openshift.io/v1 ClusterVersion API (it is not OpenShift)' };
    if (isNotFound(e)) return { ok: false, error: 'the config.openshift.io/v1 ClusterVersion "version" does not exist' };
    if (isForbidden(e)) return { ok: false, error: `cannot read the ClusterVersion "version": ${errorMessage(e)}` };
    throw e;
  }
  if (typeof desired !== 'string' || desired === '') return { ok: false, error: 'the ClusterVersion "version" has no status.desired.version' };
  const parsed = parseClusterVersion(desired);
  if (!parsed.ok) return { ok: false, error: `the ClusterVersion "version" has status.desired.version ${JSON.stringify(desired)}: ${parsed.error}` };
  return { ok: true, current: parsed.value, source: 'ClusterVersion' };
}
