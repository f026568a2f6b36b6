/**
 * The console's routes (routes.ts): the page, the session, the live change stream (live.ts) and
 * the JSON API over the catalogs, ClusterCatalogs, ClusterExtensions and the cluster-upgrade gate,
 * each answered through the injected sources as the signed-in user.
 */
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { errorMessage } from '../../shared/errors/index.ts';
import { extensionDetail, extensionRow, releaseObjectsView, uninstallPreview } from './extensions.ts';
import { createHubAnswers } from './hub-answer.ts';
import { headBundleImage, packageDetail, packageIcon, type HubTile } from './hub-index.ts';
import { installRequest, parseInstallForm } from './install-form.ts';
import { installAnswer } from './install-result.ts';
import { objectsToYaml } from '../../operator-controller/render/index.ts';
import { crdDeletionOutcome } from './crd-deletion.ts';
import type { SessionSecrets } from './security.ts';
import { approveVersion, catalogAddForm, catalogView, rollbackRevision, validName } from './admin.ts';
import { approvalLines } from '../upgrade/index.ts';
import { route, type Route } from './routes.ts';
import { statusExitCode } from '../status/index.ts';
import { createChangeFeed, streamChanges, type ChangeFeed } from './live.ts';
import { historyOf, installedRelease, installedTiles, readReleaseObjects, tileKey } from './reads.ts';
import type { ConsoleCatalog, ConsoleSources } from './sources.ts';
import type { CatalogBadge } from './catalog-badge.ts';
import type { CatalogSet } from './hub-read.ts';

/** What the routes share with the server. */
interface RouteContext {
  sources: ConsoleSources;
  secrets: SessionSecrets;
  feed: ChangeFeed;
  /** The catalogs read (cached for a while) and their hub tiles. */
  hub(): Promise<{ catalogs: Map<string, ConsoleCatalog>; tiles: HubTile[]; problems: string[]; badges: Record<string, CatalogBadge> }>;
  /** The catalogs read, without waiting for the hub's tiles when the hub is being read (server.ts). */
  catalogs(): Promise<CatalogSet>;
  /** Drops the cached catalogs (after a ClusterCatalog is added or removed). */
  dropHub(): void;
  page: string;
  /** Where a signed-in user signs out (the in-cluster console's `/signout`); none for the local console. */
  signOut?: string;
}

/** A JSON object body; its fields are checked by the route's own parser. */
const anyObject = z.record(z.string(), z.unknown());
const uninstallBody = z.object({
  uid: z.string({ error: 'the uid of the ClusterExtension previewed is required' }).min(1, 'the uid of the ClusterExtension previewed is required'),
  deleteCrds: z
    .string({ error: 'deleteCrds: the digest of the CustomResourceDefinitions previewed' })
    .min(1, 'deleteCrds: the digest of the CustomResourceDefinitions previewed')
    .optional(),
});

const NOT_AN_EXTENSION = { error: 'not a ClusterExtension name' };

/** The console's route table. */
export function consoleRoutes(c: RouteContext): Route[] {
  const { sources } = c;
  const read = (): AbortSignal => AbortSignal.timeout(60_000);
  const hubAnswer = createHubAnswers();
  return [
    route({ method: 'GET', path: '/', handle: async ({ res }) => send(res, 200, 'text/html; charset=utf-8', c.page) }),
    route({ method: 'GET', path: '/index.html', handle: async ({ res }) => send(res, 200, 'text/html; charset=utf-8', c.page) }),
    route({
      method: 'GET',
      path: '/api/session',
      handle: async ({ res }) =>
        json(res, 200, { csrfToken: c.secrets.csrfToken, iconKey: c.secrets.iconKey, ...(c.signOut === undefined ? {} : { signOut: c.signOut }) }),
    }),
    route({ method: 'GET', path: '/api/events', handle: async ({ res }) => streamChanges(c.feed, res) }),
    route({
      method: 'GET',
      path: '/api/hub',
      handle: async ({ res }) => {
        const problems: string[] = [];
        const h = await c.hub();
        const installed = await installedTiles(sources, h.catalogs, read(), problems);
        const installedTile = (t: HubTile): boolean => installed.has(tileKey(t.catalog, t.name));
        const body = hubAnswer({ tiles: h.tiles, installed: installedTile, problems: [...h.problems, ...problems], badges: h.badges });
        send(res, 200, 'application/json; charset=utf-8', body);
      },
    }),
    route({
      method: 'GET',
      path: '/api/cluster',
      handle: async ({ res }) => {
        // The verdict as `olmv1 status` exits: 0 allowed, 1 blocked, 3 undecidable (a cluster it cannot read rejects: 502).
        const report = await need(sources.clusterStatus, 'status')(read());
        json(res, 200, { code: statusExitCode(report), report });
      },
    }),
    route({
      method: 'GET',
      path: '/api/catalogs',
      handle: async ({ res }) => {
        const items = await need(sources.listCatalogObjects, 'catalogs')(read());
        json(res, 200, { catalogs: items.map(catalogView).sort((a, b) => (a.name < b.name ? -1 : 1)) });
      },
    }),
    route({
      method: 'POST',
      path: '/api/catalogs',
      body: anyObject,
      handle: async ({ res, body }) => {
        const parsed = catalogAddForm(body);
        if (!parsed.ok) return json(res, 400, { error: parsed.error });
        const out = await need(sources.catalogAdd, 'catalog add')(parsed.catalog);
        c.dropHub();
        if (!out.ok) return json(res, 422, { error: out.error });
        json(res, 201, { name: parsed.catalog.name });
      },
    }),
    route({
      method: 'POST',
      path: '/api/catalogs/:name/remove',
      handle: async ({ res, params }) => {
        const name = params.name ?? '';
        if (!validName(name)) return json(res, 400, { error: 'not a ClusterCatalog name' });
        const out = await need(sources.catalogRemove, 'catalog remove')(name);
        c.dropHub();
        if (!out.ok) return json(res, 422, { error: out.error });
        json(res, 202, { deleting: true });
      },
    }),
    route({
      method: 'POST',
      path: '/api/install',
      body: anyObject,
      handle: async ({ res, body }) => {
        const parsed = parseInstallForm(body);
        if (!parsed.ok) return json(res, 400, { error: parsed.error });
        const cat = (await c.catalogs()).catalogs.get(parsed.form.catalog);
        if (cat === undefined || !cat.packageNames.includes(parsed.form.package)) return json(res, 404, { error: 'no such package' });
        const dryRun = body.dryRun === true;
        const out = await sources.install(installRequest(parsed.form, dryRun));
        if (!out.ok) return json(res, 422, { error: out.error });
        json(res, dryRun ? 200 : 201, installAnswer(out.value));
      },
    }),
    route({
      method: 'GET',
      path: '/api/extensions',
      handle: async ({ res }) => {
        const extensions = (await sources.listExtensions(read())).map(extensionRow);
        // As on an extension's page: the Ready Nodes when the user may count them, so the list can explain health without one.
        const nodes = await sources.readyNodes?.(AbortSignal.timeout(60_000)).catch(() => undefined);
        json(res, 200, nodes === undefined ? { extensions } : { extensions, readyNodes: nodes });
      },
    }),
    route({ method: 'GET', path: '/api/extensions/:name', handle: async ({ res, params }) => extension(c, res, params.name ?? '', false) }),
    route({
      method: 'GET',
      path: '/api/extensions/:name/uninstall-preview',
      handle: async ({ res, params }) => extension(c, res, params.name ?? '', true),
    }),
    route({
      method: 'GET',
      path: '/api/extensions/:name/plan',
      handle: async ({ res, params }) => {
        const name = params.name ?? '';
        if (!validName(name)) return json(res, 400, NOT_AN_EXTENSION);
        // A plan whose resolution fails is a plan (it says why); no plan at all is the error.
        const out = await need(sources.upgradePlan, 'upgrade plan')(name);
        if (!out.ok) return json(res, 422, { error: out.error });
        json(res, 200, { plan: out.plan });
      },
    }),
    route({
      method: 'GET',
      path: '/api/extensions/:name/crd-deletion',
      handle: async ({ res, params }) => {
        const name = params.name ?? '';
        if (!validName(name)) return json(res, 400, NOT_AN_EXTENSION);
        const out = crdDeletionOutcome(await need(sources.uninstall, 'uninstall')(name, true));
        if (!out.ok) return json(res, 422, { error: out.error });
        json(res, 200, { preview: out.view });
      },
    }),
    route({
      method: 'GET',
      path: '/api/extensions/:name/objects',
      handle: async ({ res, params }) => {
        const name = params.name ?? '';
        if (!validName(name)) return json(res, 400, NOT_AN_EXTENSION);
        const signal = read();
        const release = await installedRelease(sources, name, signal);
        const reads = release === undefined ? [] : await readReleaseObjects(sources, release, signal);
        json(res, 200, releaseObjectsView(release, reads));
      },
    }),
    route({
      method: 'GET',
      path: '/api/extensions/:name/objects/events',
      handle: async ({ res, params }) => {
        const name = params.name ?? '';
        if (!validName(name)) return json(res, 400, NOT_AN_EXTENSION);
        const watch = sources.watchObjects;
        if (watch === undefined) return json(res, 501, { error: 'this console cannot watch the objects of a release' });
        // The objects of the deployed release, where the objects read finds them, watched while the page shows them.
        const signal = read();
        const release = await installedRelease(sources, name, signal);
        const refs = release === undefined ? [] : (await readReleaseObjects(sources, release, signal)).map((r) => r.identity);
        const feed = createChangeFeed((emit, stop) => watch(refs, () => emit({ topic: 'extensions', kind: 'Object', name }), stop));
        streamChanges(feed, res, () => feed.close());
      },
    }),
    route({
      method: 'POST',
      path: '/api/extensions/:name/uninstall',
      body: uninstallBody,
      handle: async ({ res, params, body }) => uninstall(sources, res, params.name ?? '', body),
    }),
    route({
      method: 'POST',
      path: '/api/extensions/:name/approve',
      body: anyObject,
      handle: async ({ res, params, body }) => {
        const name = params.name ?? '';
        if (!validName(name)) return json(res, 400, NOT_AN_EXTENSION);
        const parsed = approveVersion(body.version);
        if (!parsed.ok) return json(res, 400, { error: parsed.error });
        const out = await need(sources.upgradeApprove, 'upgrade approve')(name, parsed.version);
        // The roles granted before a refusal are part of its message, as the command prints them.
        if (!out.ok) return json(res, 422, { error: [...approvalLines(out), out.error].join('\n') });
        json(res, 200, { approval: out, approved: approvalLines(out).join('\n') });
      },
    }),
    route({
      method: 'POST',
      path: '/api/extensions/:name/rollback',
      body: anyObject,
      handle: async ({ res, params, body }) => {
        const name = params.name ?? '';
        if (!validName(name)) return json(res, 400, NOT_AN_EXTENSION);
        const parsed = rollbackRevision(body.revision);
        if (!parsed.ok) return json(res, 400, { error: parsed.error });
        const out = await need(sources.rollback, 'release rollback')(name, parsed.revision);
        // The service's refusal as the command prints it (unsafe CRD change, no catalog offers the bundle, ...).
        if (!out.ok) return json(res, 422, { error: out.error.trim() });
        json(res, 200, { report: out.report });
      },
    }),
    route({
      method: 'GET',
      path: '/api/packages/:catalog/:pkg/rbac',
      handle: async ({ res, params, query }) => {
        const pkg = params.pkg ?? '';
        const cat = await catalogOf(c, params.catalog ?? '', pkg);
        if (cat === undefined) return json(res, 404, { error: 'no such package' });
        const ns = query.get('namespace') ?? '';
        if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(ns)) return json(res, 400, { error: 'namespace: a DNS label' });
        const image = headBundleImage(await cat.load(pkg), pkg);
        if (image === '') return json(res, 422, { error: 'the package has no head bundle image' });
        const out = await need(sources.bundleRbac, 'rbac')(image, ns, `${pkg}-installer`.slice(0, 253));
        if (!out.ok) return json(res, 422, { error: `head bundle image ${image}: ${out.error}`, image });
        const { objects, warnings, escalations } = out.value;
        json(res, 200, { image, objects, yaml: objectsToYaml(objects), warnings, escalations });
      },
    }),
    route({
      method: 'GET',
      path: '/api/packages/:catalog/:pkg',
      handle: async ({ res, params }) => {
        const { catalog = '', pkg = '' } = params;
        const cat = await catalogOf(c, catalog, pkg);
        if (cat === undefined) return json(res, 404, { error: 'no such package' });
        const dc = await cat.load(pkg);
        const set = await c.catalogs();
        const installed = await installedTiles(sources, set.catalogs, read(), []);
        json(res, 200, {
          ...packageDetail(catalog, pkg, dc),
          installed: installed.has(tileKey(catalog, pkg)),
          badge: set.badges[catalog],
        });
      },
    }),
    route({
      method: 'GET',
      path: '/api/icons/:catalog/:pkg',
      handle: async ({ res, params }) => {
        const pkg = params.pkg ?? '';
        const cat = await catalogOf(c, params.catalog ?? '', pkg);
        if (cat === undefined) return json(res, 404, { error: 'no such package' });
        const icon = packageIcon(await cat.load(pkg), pkg);
        if (icon === undefined) return json(res, 404, { error: 'no icon' });
        // Opened directly, an SVG would be a document: a sandbox without script keeps it an image.
        res.setHeader('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
        res.setHeader('cache-control', 'private, max-age=300');
        send(res, 200, icon.mediatype, icon.data);
      },
    }),
  ];
}

async function catalogOf(c: RouteContext, catalog: string, pkg: string): Promise<ConsoleCatalog | undefined> {
  const cat = (await c.catalogs()).catalogs.get(catalog);
  return cat !== undefined && cat.packageNames.includes(pkg) ? cat : undefined;
}

/** An extension's detail page, or (preview) what uninstalling it removes. */
async function extension(c: RouteContext, res: ServerResponse, name: string, preview: boolean): Promise<void> {
  const { sources } = c;
  const signal = AbortSignal.timeout(60_000);
  // Gone (uninstalled, or never there) is an answer the page shows, not a failure to log.
  const obj = await sources.getExtension(name, signal).catch((e: unknown) => {
    if ((e as { status?: unknown }).status === 404) return undefined;
    throw e;
  });
  if (obj === undefined) return json(res, 404, { error: `there is no ClusterExtension ${name}`, gone: true });
  const problems: string[] = [];
  const part = <T>(what: string, p: Promise<T>, none: T): Promise<T> =>
    p.catch((e: unknown) => {
      problems.push(`${what}: ${errorMessage(e)}`);
      return none;
    });
  const history = await part('release history', historyOf(sources, name, signal), []);
  if (!preview) {
    const events = await part('Events', sources.extensionEvents(name, signal), []);
    // A Node count the user may not read is left out: the page then explains nothing.
    const nodes = await sources.readyNodes?.(signal).catch(() => undefined);
    const detail = extensionDetail(obj, sources.installState(obj), events, history, problems);
    return json(res, 200, nodes === undefined ? detail : { ...detail, readyNodes: nodes });
  }
  const [crds, installer] = await Promise.all([
    part('CustomResourceDefinitions', sources.crdPreview(name, signal), undefined),
    part('installer ServiceAccount and RBAC', sources.installerObjects(name, signal), []),
  ]);
  json(res, 200, uninstallPreview(obj, history, crds, installer, problems));
}

/** Deletes the extension previewed (its uid); opted in, the CRDs previewed (their digest) too, through the uninstall service. */
async function uninstall(sources: ConsoleSources, res: ServerResponse, name: string, body: z.infer<typeof uninstallBody>): Promise<void> {
  if (body.deleteCrds === undefined) {
    await sources.deleteExtension(name, body.uid, AbortSignal.timeout(60_000));
    return json(res, 202, { deleting: true });
  }
  if (!validName(name)) return json(res, 400, NOT_AN_EXTENSION);
  const run = need(sources.uninstall, 'uninstall');
  const now = crdDeletionOutcome(await run(name, true));
  if (!now.ok) return json(res, 422, { error: now.error });
  if (now.view.digest !== body.deleteCrds)
    return json(res, 409, {
      error: 'the CustomResourceDefinitions or their custom resources changed since the preview; nothing was deleted: review the preview again',
      preview: now.view,
    });
  // Preconditioned on the uid previewed, as without the option; the service then waits for it to go and deletes the CRDs.
  await sources.deleteExtension(name, body.uid, AbortSignal.timeout(60_000));
  if (now.view.customResourceDefinitions.length === 0) return json(res, 202, { deleting: true, deleted: now.view });
  const done = crdDeletionOutcome(await run(name, false));
  if (!done.ok) return json(res, 422, { error: `ClusterExtension ${name} is being uninstalled, but: ${done.error}` });
  json(res, 200, { deleting: true, deleted: done.view });
}

/** An optional source, or a 501 saying which command this console cannot run. */
function need<A extends unknown[], R>(f: ((...a: A) => Promise<R>) | undefined, command: string): (...a: A) => Promise<R> {
  if (f === undefined) return () => Promise.reject(Object.assign(new Error(`this console cannot run olmv1 ${command}`), { status: 501 }));
  return f;
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));
}

export function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.statusCode = status;
  res.setHeader('content-type', type);
  res.end(body);
}
