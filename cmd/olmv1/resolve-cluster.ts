/**
 * `olmv1 resolve --cluster EXTENSION`: what the extension would get next, decided as
 * operator-controller decides (its spec, the selected ClusterCatalogs, catalogd's content, the
 * deployed release, dependencies and minKubeVersion: decision 0104), so error texts are the
 * Progressing condition's. What the CLI's user cannot read is said in a note.
 */
import { CLUSTER_CATALOG, CLUSTER_EXTENSION, parseClusterExtension, type ClusterExtension } from '../../pkg/shared/api/index.ts';
import type { Bundle, Deprecation } from '../../pkg/shared/fbc/index.ts';
import type { CatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { errorMessage, ok, type Result } from '../../pkg/shared/errors/index.ts';
import { isNotFound, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import {
  dependencyCheck,
  providersText,
  selectedCatalogs,
  selectedPackageNames,
  upgradeHold,
  type CatalogSource,
} from '../../pkg/operator-controller/dependencyview/index.ts';
import { createRevisionReader, type RevisionReader } from '../../pkg/operator-controller/revisions/index.ts';
import { readServerVersion } from '../../pkg/operator-controller/dependencies/index.ts';
import { metadataFor, packageMissing, resolutionHints, resolve, type ResolveInput } from '../../pkg/operator-controller/resolve/index.ts';
import { withCluster, type ClusterFlags } from './cluster-access.ts';
import { type CommandIO, EXIT } from './io.ts';
import { CommandError, runCommand } from './render.ts';

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
 * Prints `olmv1 resolve`'s JSON plus `extension` and `installed` (null: nothing installed).
 * Exit 1 when nothing resolves (`error` and `hints`) or the cluster could not be read.
 */
export async function runResolveCluster(spec: ClusterSpec, io: CommandIO, deps: ResolveClusterDeps): Promise<number> {
  return runCommand(io, () =>
    withCluster(deps.connectCluster({ kubeconfig: spec.kubeconfig, context: spec.context }), (kube) => resolveFor(spec, kube, io, deps)),
  );
}

async function resolveFor(spec: ClusterSpec, kube: KubeContext, io: CommandIO, deps: ResolveClusterDeps): Promise<number> {
  const { source: src } = await readClusterExtension(kube, spec.extension);
  const deployed = (await readInstalled(kube, spec.systemNamespace, spec.extension))?.bundle;
  const installed = deployed === undefined ? null : { name: deployed.name, version: deployed.version, release: deployed.release ?? null };
  const input = await clusterResolveInput(kube, deps, spec.catalogdUrl, src, installed);
  const channels = src.channels ?? [];
  const checked: Awaited<ReturnType<typeof clusterResolve>> = input.ok
    ? await clusterResolve(kube, deps, spec.catalogdUrl, spec.extension, src.selector, input.value)
    : { result: input };
  const result = checked.result;
  const note = checked.note === undefined ? {} : { dependencyNote: checked.note };
  const write = (value: unknown) => io.stdout.write(`${JSON.stringify(value)}\n`);
  if (!result.ok) {
    // `error` is operator-controller's Progressing message; `hints` what its ResolutionFailed Event adds.
    const hints = input.ok ? await clusterResolutionHints(kube, deps, spec.catalogdUrl, input.value, src.selector, result.error) : [];
    write({ extension: spec.extension, installed, error: result.error, hints, ...note });
    return EXIT.failed;
  }
  const { bundle, versionRelease, catalog, deprecation } = result.value;
  write({
    extension: spec.extension,
    installed,
    bundle: { name: bundle.name, version: metadataFor(bundle.name, versionRelease).version, image: bundle.image },
    catalog,
    deprecation: relevantDeprecation(deprecation, channels, bundle.name),
    ...note,
  });
  return EXIT.ok;
}

/** A ClusterExtension read and parsed, with its catalog source. */
interface ReadExtension {
  /** The object as read (metadata.resourceVersion and annotations included). */
  object: KubeObject;
  extension: ClusterExtension;
  source: NonNullable<ClusterExtension['spec']['source']['catalog']>;
}

/**
 * Reads and parses the ClusterExtension `name`.
 * @throws CommandError (exit 1) when it is missing, unreadable, does not parse or has no catalog source.
 */
export async function readClusterExtension(kube: KubeContext, name: string): Promise<ReadExtension> {
  let object;
  try {
    object = await kube.client.get({ ...CLUSTER_EXTENSION, name });
  } catch (e) {
    if (isNotFound(e)) throw new CommandError(`ClusterExtension ${JSON.stringify(name)} not found`, EXIT.failed);
    throw new CommandError(`error reading ClusterExtension ${JSON.stringify(name)}: ${errorMessage(e)}`, EXIT.failed);
  }
  const parsed = parseClusterExtension(object);
  if (!parsed.ok) throw new CommandError(`ClusterExtension ${JSON.stringify(name)} does not parse: ${parsed.error}`, EXIT.failed);
  const source = parsed.value.spec.source.catalog;
  if (source === undefined) throw new CommandError(`ClusterExtension ${JSON.stringify(name)} has no spec.source.catalog`, EXIT.failed);
  return { object, extension: parsed.value, source };
}

/**
 * The installed revision of `name`, read without its objects through the one revision reader
 * (pkg/operator-controller/revisions: its Helm release records, or under BoxcutterRuntime its
 * ClusterObjectSets), undefined when none.
 * @throws CommandError (exit 1) when the records cannot be read.
 */
async function readInstalled(kube: KubeContext, systemNamespace: string, name: string): ReturnType<RevisionReader['installed']> {
  try {
    return await createRevisionReader({ client: kube.client, namespace: systemNamespace }).installed(name);
  } catch (e) {
    throw new CommandError(`error reading the release records of ${JSON.stringify(name)} in ${systemNamespace}: ${errorMessage(e)}`, EXIT.failed);
  }
}

/** The resolver's input for `src`: the catalogs operator-controller would select, or the error it would report. */
export async function clusterResolveInput(
  kube: KubeContext,
  deps: ResolveClusterDeps,
  catalogdUrl: URL | undefined,
  src: ReadExtension['source'],
  installed: ResolveInput['installed'],
): Promise<Result<ResolveInput, string>> {
  const selection = await selectedCatalogs(await clusterCatalogSource(kube, deps, catalogdUrl), src.selector, src.packageName);
  if (!selection.ok) return selection;
  return ok({
    packageName: src.packageName,
    channels: src.channels ?? [],
    versionRange: src.version ?? '',
    upgradeConstraintPolicy: src.upgradeConstraintPolicy,
    installed,
    catalogs: selection.value.inputs,
  });
}

/**
 * The controller's `dependencyCheck` for `self` over what the CLI's user can read (`unread` names
 * the rest; `items` undefined when the ClusterExtensions cannot be listed).
 */
export async function clusterDependencyCheck(
  kube: Pick<KubeContext, 'client' | 'transport' | 'mapper'>,
  source: CatalogSource,
  self: string,
  inputs: ResolveInput['catalogs'],
): Promise<{ check: Awaited<ReturnType<typeof dependencyCheck>>; unread: string[]; items: KubeObject[] | undefined }> {
  const unread: string[] = [];
  const items = await kube.client.listAll(CLUSTER_EXTENSION).then(
    (l) => l.items,
    (e: unknown) => (unread.push(`the ClusterExtensions (${errorMessage(e)})`), undefined),
  );
  const version = await readServerVersion(kube.transport).catch((e: unknown) => (unread.push(`the server version (${errorMessage(e)})`), undefined));
  const ports = {
    extensions: { list: () => items ?? [] },
    serves: servesOf(kube),
    ...(version === undefined ? {} : { serverVersion: () => Promise.resolve(version) }),
  };
  return { check: await dependencyCheck(ports, source, self, inputs), unread, items };
}

/**
 * Resolves with the controller's dependency and minKubeVersion checks (decision 0104), an unmet
 * dependency's text completed with its providers. Best effort over what the user can read:
 * what was not checked is said in `note`.
 */
export async function clusterResolve(
  kube: Pick<KubeContext, 'client' | 'transport' | 'mapper'>,
  deps: ResolveClusterDeps,
  catalogdUrl: URL | undefined,
  self: string,
  selector: ReadExtension['source']['selector'],
  input: ResolveInput,
): Promise<{ result: ReturnType<typeof resolve>; note?: string }> {
  const source = await clusterCatalogSource(kube, deps, catalogdUrl);
  const { check, unread, items } = await clusterDependencyCheck(kube, source, self, input.catalogs);
  if (check === undefined) return { result: resolve(input) };
  const note = unread.length === 0 ? {} : { note: `dependencies checked in part: cannot read ${unread.join(' or ')}` };
  if (items === undefined) {
    const note = `dependencies not checked, bundles that declare them resolved as if they were met: cannot read ${unread.join(' or ')}`;
    return { result: resolve({ ...input, dependencies: () => undefined }), note };
  }
  const result = resolve({ ...input, dependencies: check.check });
  const unmet = result.ok ? undefined : check.unmet.get(result.error);
  if (result.ok || unmet === undefined) return { result, ...note };
  return { result: { ok: false, error: result.error + (await providersText(source, selector, unmet)) }, ...note };
}

/** The cluster's ClusterCatalogs with their content read through catalogd (at `catalogdUrl`'s origin when given). */
export async function clusterCatalogSource(
  kube: Pick<KubeContext, 'client'>,
  deps: ResolveClusterDeps,
  catalogdUrl: URL | undefined,
): Promise<CatalogSource> {
  const { items } = await kube.client.listAll(CLUSTER_CATALOG);
  return {
    catalogs: { list: () => items },
    content: deps.catalogContent,
    ...(catalogdUrl === undefined
      ? {}
      : { baseURL: (_name: string, base: string) => `${catalogdUrl.origin}${new URL(base).pathname}`.replace(/\/+$/, '') }),
  };
}

/** What the catalogs offer instead after "no bundles found" (the ResolutionFailed Event's hints); else empty. */
export async function clusterResolutionHints(
  kube: KubeContext,
  deps: ResolveClusterDeps,
  catalogdUrl: URL | undefined,
  input: ResolveInput,
  selector: ReadExtension['source']['selector'],
  error: string,
): Promise<string[]> {
  if (!error.includes('no bundles found for package')) return [];
  const names = packageMissing(input) ? await selectedPackageNames(await clusterCatalogSource(kube, deps, catalogdUrl), selector) : [];
  return resolutionHints(input, names);
}

/** The entries of `deprecation` the deprecation conditions would use: the package's, `channels`' (all when empty), `bundleName`'s. */
export function relevantDeprecation(deprecation: Deprecation | null, channels: readonly string[], bundleName: string): Deprecation | null {
  if (deprecation === null) return null;
  const entries = deprecation.entries.filter((e) => {
    if (e.reference.schema === 'olm.package') return true;
    if (e.reference.schema === 'olm.channel') return channels.length === 0 || channels.includes(e.reference.name ?? '');
    return e.reference.schema === 'olm.bundle' && e.reference.name === bundleName;
  });
  return { ...deprecation, entries };
}

/** Why operator-controller would hold `self`'s move to `target` (a dependent would lose a requirement: decision 0104), if it would. */
export async function clusterDependentsHold(
  kube: KubeContext,
  deps: ResolveClusterDeps,
  catalogdUrl: URL | undefined,
  self: { name: string; packageName: string; installed: { name: string; version: string } },
  target: Bundle,
): Promise<string | undefined> {
  const { items } = await kube.client.listAll(CLUSTER_EXTENSION);
  return upgradeHold(
    { extensions: { list: () => items }, serves: servesOf(kube) },
    await clusterCatalogSource(kube, deps, catalogdUrl),
    self,
    target,
  );
}

/** Whether the cluster serves an API, as discovery (the connection's mapper) tells the CLI's user. */
function servesOf(kube: Pick<KubeContext, 'mapper'>): (gvk: { group: string; version: string; kind: string }) => Promise<boolean> {
  return (gvk) =>
    kube.mapper.resolve(gvk).then(
      () => true,
      () => false,
    );
}
