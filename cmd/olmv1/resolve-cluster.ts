/**
 * `olmv1 resolve --cluster EXTENSION`: what the named ClusterExtension would get next,
 * decided as operator-controller decides it: its `spec.source.catalog` (package, channels,
 * version range, selector, upgradeConstraintPolicy), the cluster's ClusterCatalogs
 * (selector, `Unavailable` dropped, not-served catalogs failing the resolution, priorities:
 * pkg/operator-controller/clusterextension's `selectedCatalogs`), catalogd's content (pkg/operator-controller/catalogclient's
 * cache) and the installed bundle of its deployed release record (pkg/operator-controller/release), resolved by
 * pkg/operator-controller/resolve, so the error texts are the Progressing condition's.
 */
import { CLUSTER_CATALOG, CLUSTER_EXTENSION, parseClusterExtension } from '../../pkg/shared/api/index.ts';
import type { Deprecation } from '../../pkg/shared/fbc/index.ts';
import type { CatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { isNotFound, type KubeContext } from '../../pkg/shared/kube/index.ts';
import { selectedCatalogs } from '../../pkg/operator-controller/clusterextension/index.ts';
import { createReleaseStore, deployedRelease } from '../../pkg/operator-controller/release/index.ts';
import { metadataFor, resolve } from '../../pkg/operator-controller/resolve/index.ts';
import type { ClusterFlags } from './cluster-access.ts';
import { EXIT } from './io.ts';
import { CommandError, runCommand, type CommandIo } from './render.ts';

/** `--cluster`: everything else comes from the ClusterExtension. */
export interface ClusterSpec {
  extension: string;
  catalogdUrl: URL | undefined;
  kubeconfig: string | undefined;
  context: string | undefined;
  systemNamespace: string;
}

/** What `--cluster` needs (composed in commands.ts). */
export interface ResolveClusterDeps {
  /** Connects to the cluster (kubeconfig resolution of every olmv1 command). */
  connectCluster(flags: ClusterFlags): Promise<KubeContext>;
  /** catalogd content, read through `/api/v1/metas` (or `/api/v1/all` where that is not served). */
  catalogContent: CatalogContentCache;
}

/**
 * Resolves for the ClusterExtension `spec.extension`. Prints one JSON object as
 * `olmv1 resolve` does, plus `extension` and `installed` (null when nothing is installed).
 * Exit 0 resolved; 1 nothing resolves (`{"error":...}`) or the cluster could not be read
 * (stderr).
 */
export async function runResolveCluster(spec: ClusterSpec, io: CommandIo, deps: ResolveClusterDeps): Promise<number> {
  let code: number = EXIT.ok;
  const failed = await runCommand(io, async () => {
    const kube = await deps.connectCluster({ kubeconfig: spec.kubeconfig, context: spec.context });
    try {
      code = await resolveFor(spec, kube, io, deps);
    } finally {
      kube.close();
    }
  });
  return failed === EXIT.ok ? code : failed;
}

async function resolveFor(spec: ClusterSpec, kube: KubeContext, io: CommandIo, deps: ResolveClusterDeps): Promise<number> {
  let object;
  try {
    object = await kube.client.get({ ...CLUSTER_EXTENSION, name: spec.extension });
  } catch (e) {
    if (isNotFound(e)) throw new CommandError(`ClusterExtension ${JSON.stringify(spec.extension)} not found`, EXIT.failed);
    throw new CommandError(`error reading ClusterExtension ${JSON.stringify(spec.extension)}: ${errorMessage(e)}`, EXIT.failed);
  }
  const parsed = parseClusterExtension(object);
  if (!parsed.ok) throw new CommandError(`ClusterExtension ${JSON.stringify(spec.extension)} does not parse: ${parsed.error}`, EXIT.failed);
  const src = parsed.value.spec.source.catalog;
  if (src === undefined) throw new CommandError(`ClusterExtension ${JSON.stringify(spec.extension)} has no spec.source.catalog`, EXIT.failed);

  let history;
  try {
    history = await createReleaseStore({ client: kube.client, namespace: spec.systemNamespace }).history(spec.extension);
  } catch (e) {
    throw new CommandError(
      `error reading the release records of ${JSON.stringify(spec.extension)} in ${spec.systemNamespace}: ${errorMessage(e)}`,
      EXIT.failed,
    );
  }
  const deployed = deployedRelease(history)?.bundle;
  const installed = deployed === undefined ? null : { name: deployed.name, version: deployed.version, release: deployed.release ?? null };

  const { items } = await kube.client.listAll(CLUSTER_CATALOG);
  const catalogdUrl = spec.catalogdUrl;
  const selection = await selectedCatalogs(
    {
      catalogs: { list: () => items },
      content: deps.catalogContent,
      ...(catalogdUrl === undefined
        ? {}
        : { baseURL: (_name: string, base: string) => `${catalogdUrl.origin}${new URL(base).pathname}`.replace(/\/+$/, '') }),
    },
    src.selector,
    src.packageName,
  );
  const channels = src.channels ?? [];
  const result = selection.ok
    ? resolve({
        packageName: src.packageName,
        channels,
        versionRange: src.version ?? '',
        upgradeConstraintPolicy: src.upgradeConstraintPolicy,
        installed,
        catalogs: selection.value.inputs,
      })
    : selection;
  const write = (value: unknown) => io.stdout.write(`${JSON.stringify(value)}\n`);
  if (!result.ok) {
    write({ extension: spec.extension, installed, error: result.error });
    return EXIT.failed;
  }
  const { bundle, versionRelease, catalog, deprecation } = result.value;
  write({
    extension: spec.extension,
    installed,
    bundle: { name: bundle.name, version: metadataFor(bundle.name, versionRelease).version, image: bundle.image },
    catalog,
    deprecation: relevantDeprecation(deprecation, channels, bundle.name),
  });
  return EXIT.ok;
}

/**
 * The entries of `deprecation` a ClusterExtension's deprecation conditions would use
 * (pkg/operator-controller/resolve/deprecation.ts): the package's, those of `channels` (all
 * channels when empty), and those naming `bundleName`, the resolved bundle. Null stays null.
 */
export function relevantDeprecation(deprecation: Deprecation | null, channels: readonly string[], bundleName: string): Deprecation | null {
  if (deprecation === null) return null;
  const entries = deprecation.entries.filter((e) => {
    if (e.reference.schema === 'olm.package') return true;
    if (e.reference.schema === 'olm.channel') return channels.length === 0 || channels.includes(e.reference.name ?? '');
    return e.reference.schema === 'olm.bundle' && e.reference.name === bundleName;
  });
  return { ...deprecation, entries };
}
