/** Reads the console makes for several routes, as the user: an extension's revisions, its deployed objects, the tiles that say Installed. */
import { errorMessage } from '../../shared/errors/index.ts';
import type { Release } from '../../operator-controller/release/index.ts';
import { installed, revisionOf, type Revision } from '../../operator-controller/revisions/index.ts';
import type { ReleaseObjectRead } from './extensions.ts';
import { installedCatalogs, installedFrom } from './installed-catalogs.ts';
import type { DeclarativeConfig } from '../../shared/fbc/index.ts';
import type { ConsoleCatalog, ConsoleSources } from './sources.ts';

/** Objects of a release read at once for its health. */
const OBJECT_READ_CONCURRENCY = 4;

/** The revisions of extension `name`, newest first: revisionHistory when the sources have it, else the release records. */
export async function historyOf(sources: ConsoleSources, name: string, signal: AbortSignal): Promise<Revision[]> {
  if (sources.revisionHistory !== undefined) return sources.revisionHistory(name, signal);
  return (await sources.releaseHistory(name, signal)).map((r) => revisionOf(r));
}

/** The record of the installed revision of extension `name`; undefined when none is installed. */
export async function installedRelease(sources: ConsoleSources, name: string, signal: AbortSignal): Promise<Release | undefined> {
  return installed(await historyOf(sources, name, signal))?.record;
}

/**
 * Reads each object of `release` as the user, a few at a time: a namespaced object the manifest
 * names without a namespace is read in the release's namespace, where operator-controller applies
 * it. A refusal (or a kind no longer served) is that object's outcome, not the request's.
 */
export async function readReleaseObjects(sources: ConsoleSources, release: Release, signal: AbortSignal): Promise<ReleaseObjectRead[]> {
  const { objectScope: scope, getObject: get } = sources;
  if (scope === undefined || get === undefined) throw Object.assign(new Error('this console cannot read the objects of a release'), { status: 501 });
  const scopes = new Map<string, Promise<boolean>>();
  const ids = release.manifest.identities();
  const out: ReleaseObjectRead[] = new Array<ReleaseObjectRead>(ids.length);
  const failed = (e: unknown) => {
    const status = (e as { status?: unknown }).status;
    return { status: typeof status === 'number' ? status : undefined, error: errorMessage(e) };
  };
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < ids.length; i = next++) {
      const id = ids[i] as (typeof ids)[number];
      const type = { apiVersion: id.apiVersion, kind: id.kind };
      const identity = { ...type, name: id.metadata.name ?? '', namespace: id.metadata.namespace ?? '' };
      try {
        const key = `${type.apiVersion}/${type.kind}`;
        if (!scopes.has(key)) scopes.set(key, scope(type, signal));
        const namespaced = await (scopes.get(key) as Promise<boolean>);
        if (!namespaced) identity.namespace = '';
        else if (identity.namespace === '') identity.namespace = release.namespace ?? '';
        out[i] = { identity, read: { object: await get(identity, signal) } };
      } catch (e) {
        out[i] = { identity, read: failed(e) };
      }
    }
  };
  await Promise.all(Array.from({ length: OBJECT_READ_CONCURRENCY }, worker));
  return out;
}

/** The key of a catalog's package in {@link installedTiles}'s answer. */
export const tileKey = (catalog: string, pkg: string): string => `${catalog}/${pkg}`;

/**
 * The tiles (catalog and package, {@link tileKey}) that say Installed: for each ClusterExtension,
 * the catalogs it was installed from (installed-catalogs.ts); when the user may not list them,
 * none, and why in `problems`.
 */
export async function installedTiles(
  sources: ConsoleSources,
  catalogs: ReadonlyMap<string, ConsoleCatalog>,
  signal: AbortSignal,
  problems: string[],
): Promise<Set<string>> {
  let extensions: unknown[];
  try {
    extensions = await sources.listExtensions(signal);
  } catch (e) {
    problems.push(`ClusterExtensions (for the Installed badges): ${errorMessage(e)}`);
    return new Set();
  }
  const out = new Set<string>();
  for (const from of extensions.map(installedFrom).filter((f) => f.package !== '')) {
    const candidates: { catalog: string; content: DeclarativeConfig }[] = [];
    for (const [name, cat] of catalogs) {
      if (!cat.packageNames.includes(from.package)) continue;
      // A package that cannot be read now is not where the extension came from.
      const content = await Promise.resolve(cat.load(from.package)).catch(() => undefined);
      if (content !== undefined) candidates.push({ catalog: name, content });
    }
    for (const name of installedCatalogs(from, candidates)) out.add(tileKey(name, from.package));
  }
  return out;
}
