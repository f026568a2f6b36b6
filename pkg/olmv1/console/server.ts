/**
 * The console's HTTP server: the guard (security.ts) before every route, the static bundle, and a
 * small JSON API over the catalogs, ClusterCatalogs, ClusterExtensions and the cluster-upgrade
 * gate, all read and written with the user's own kubeconfig identity through the injected
 * sources. Every API request needs the session cookie and the page's key; the writes (install,
 * uninstall, approve, rollback, catalog add and remove) are POSTs the guard lets through only with
 * the CSRF token too, from the console's own origin.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { Logger } from 'pino';
import type { DeclarativeConfig } from '../../shared/fbc/index.ts';
import { errorMessage } from '../../shared/errors/index.ts';
import type { DeletionPreview } from '../crd-deletion/index.ts';
import { deployedRelease, type Release } from '../../operator-controller/release/index.ts';
import type { ExtensionHistory } from '../../operator-controller/revisions/index.ts';
import { extensionDetail, extensionRow, releaseObjectsView, uninstallPreview, type InstallProgress, type ReleaseObjectRead } from './extensions.ts';
import { headBundleImage, hubTile, packageDetail, packageIcon, type HubTile } from './hub-index.ts';
import { installCommandLine, parseInstallForm } from './install-form.ts';
import { crdDeletionOutcome, uninstallCrdsArgs } from './crd-deletion.ts';
import { guard, SECURITY_HEADERS, type SessionSecrets } from './security.ts';
import {
  catalogAddArgs,
  catalogRemoveArgs,
  catalogView,
  failureText,
  rollbackArgs,
  upgradeApproveArgs,
  upgradePlanArgs,
  validName,
  type CommandRun,
} from './admin.ts';

/** A catalog's content, loadable one package at a time. */
interface ConsoleCatalog {
  packageNames: readonly string[];
  /** One package's content (catalogd's per-package answer, or a part of content already read). */
  load(pkg: string): DeclarativeConfig | Promise<DeclarativeConfig>;
}

/** Where the console reads from; every call acts as the user of the kubeconfig. */
interface ConsoleSources {
  /** The ClusterCatalogs with their content URL, or why they are not served. */
  listCatalogs(signal: AbortSignal): Promise<{ name: string; baseURL: string | { error: string } }[]>;
  /** Reads a catalog's content from catalogd. */
  loadCatalog(name: string, baseURL: string, signal: AbortSignal): Promise<ConsoleCatalog>;
  /** The ClusterExtension objects. */
  listExtensions(signal: AbortSignal): Promise<unknown[]>;
  /** One ClusterExtension; rejects with the API server's error (status 404 when there is none). */
  getExtension(name: string, signal: AbortSignal): Promise<unknown>;
  /** The Events about a ClusterExtension. */
  extensionEvents(name: string, signal: AbortSignal): Promise<unknown[]>;
  /** Its release records, newest first (as `olmv1 release history` reads them). */
  releaseHistory(name: string, signal: AbortSignal): Promise<Release[]>;
  /**
   * Its revisions, newest first, from its ClusterObjectSets when it has any (BoxcutterRuntime),
   * else its release records, as `olmv1 release history` reads them (pkg/operator-controller/revisions). When
   * given, read instead of releaseHistory.
   */
  revisionHistory?(name: string, signal: AbortSignal): Promise<ExtensionHistory>;
  /** Its CustomResourceDefinitions with their custom resources (as `olmv1 uninstall --delete-crds` previews them). */
  crdPreview(name: string, signal: AbortSignal): Promise<DeletionPreview>;
  /** `Kind namespace/name` of the ServiceAccount and RBAC `olmv1 install` created for it. */
  installerObjects(name: string, signal: AbortSignal): Promise<string[]>;
  /** Deletes the ClusterExtension, preconditioned on `uid`; rejects with the API server's error. */
  deleteExtension(name: string, uid: string, signal: AbortSignal): Promise<void>;
  /** Where the install of a ClusterExtension object stands (as `olmv1 install` judges it while it waits). */
  installState(obj: unknown): InstallProgress;
  /**
   * Runs `olmv1 uninstall` with these arguments (after `uninstall`) as the user: with
   * `--delete-crds`, the preview (`-o json`) and, with `--yes`, the deletion of the CRDs.
   */
  uninstall?(args: string[]): Promise<CommandRun>;
  /** Runs `olmv1 install` with these arguments (after `install`) as the user; its exit code and output. */
  install(args: string[], signal: AbortSignal): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Runs `olmv1 status -o json` as the user (the cluster-upgrade gate). */
  clusterStatus?(signal: AbortSignal): Promise<CommandRun>;
  /** The ClusterCatalog objects. */
  listCatalogObjects?(signal: AbortSignal): Promise<unknown[]>;
  /** Runs `olmv1 catalog add` with these arguments (after `catalog add`) as the user. */
  catalogAdd?(args: string[]): Promise<CommandRun>;
  /** Runs `olmv1 catalog remove` with these arguments as the user. */
  catalogRemove?(args: string[]): Promise<CommandRun>;
  /** Runs `olmv1 upgrade plan` with these arguments as the user. */
  upgradePlan?(args: string[]): Promise<CommandRun & { text?: string }>;
  /** Runs `olmv1 upgrade approve` with these arguments as the user. */
  upgradeApprove?(args: string[]): Promise<CommandRun>;
  /** True when objects of this kind are namespaced (discovery, as the user); rejects with the API server's error. */
  objectScope?(type: { apiVersion: string; kind: string }, signal: AbortSignal): Promise<boolean>;
  /** One object (of a release), read as the user; rejects with the API server's error (its `status`). */
  getObject?(ref: { apiVersion: string; kind: string; name: string; namespace: string }, signal: AbortSignal): Promise<unknown>;
  /** Runs `olmv1 release rollback` with these arguments (after `rollback`) as the user. */
  rollback?(args: string[]): Promise<CommandRun>;
  /** The RBAC `olmv1 rbac` computes for the bundle `image` (YAML on stdout, warnings on stderr). */
  bundleRbac?(image: string, installNamespace: string, serviceAccount: string): Promise<CommandRun>;
}

/** How one console runs. */
interface ConsoleOptions {
  /** Port on 127.0.0.1 (0: a free one). */
  port: number;
  /** The sign-in token, session cookie, page key, CSRF token and icon key (security.ts). */
  secrets: SessionSecrets;
  /** Directory of the built bundle (index.js, index.css and assets). */
  assetsDir: string;
  sources: ConsoleSources;
  log: Logger;
  /** How long a read of the catalogs is reused, in milliseconds. */
  catalogTtlMs: number;
  now(): number;
}

/** A listening console. */
interface RunningConsole {
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  close(): Promise<void>;
}

interface HubSnapshot {
  at: number;
  catalogs: Map<string, ConsoleCatalog>;
  tiles: HubTile[];
  problems: string[];
}

/** Packages read at once while the hub index is built. */
const INDEX_CONCURRENCY = 4;
/** Objects of a release read at once for its health. */
const OBJECT_READ_CONCURRENCY = 4;

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.gif': 'image/gif',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>OLM v1 console</title>
<link rel="stylesheet" href="/assets/main.css">
<script type="module" src="/assets/main.js"></script>
</head>
<body><div id="root"></div></body>
</html>
`;

/** Starts the console on 127.0.0.1. */
export async function startConsole(o: ConsoleOptions): Promise<RunningConsole> {
  let hostPort = '';
  let snapshot: Promise<HubSnapshot> | undefined;
  let snapshotAt = 0;
  const hub = (): Promise<HubSnapshot> => {
    if (snapshot === undefined || o.now() - snapshotAt > o.catalogTtlMs) {
      snapshotAt = o.now();
      snapshot = readHub(o.sources, o.now);
      snapshot.catch(() => (snapshot = undefined));
    }
    return snapshot;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
    const verdict = guard({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers }, { secrets: o.secrets, hostPort });
    if (verdict.kind === 'deny') return send(res, verdict.status, 'text/plain; charset=utf-8', `${verdict.message}\n`);
    if (verdict.kind === 'redirect') {
      res.setHeader('set-cookie', verdict.setCookie);
      res.setHeader('location', verdict.location);
      return send(res, 303, 'text/plain; charset=utf-8', '');
    }
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const uninstall = /^\/api\/extensions\/([^/]+)\/uninstall$/.exec(path);
    if (req.method === 'POST' && uninstall !== null) {
      const body = await readJson(req);
      const uid = typeof body?.uid === 'string' ? body.uid : '';
      if (uid === '') return json(res, 400, { error: 'the uid of the ClusterExtension previewed is required' });
      const name = decodeURIComponent(uninstall[1] ?? '');
      if (body?.deleteCrds === undefined) {
        await o.sources.deleteExtension(name, uid, AbortSignal.timeout(60_000));
        return json(res, 202, { deleting: true });
      }
      // Opt in: the CRDs previewed (named by their digest) go too, through `olmv1 uninstall --delete-crds --yes`.
      if (typeof body.deleteCrds !== 'string' || body.deleteCrds === '')
        return json(res, 400, { error: 'deleteCrds: the digest of the CustomResourceDefinitions previewed' });
      if (!validName(name)) return json(res, 400, { error: 'not a ClusterExtension name' });
      const run = need(o.sources.uninstall, 'uninstall');
      const now = crdDeletionOutcome(await run(uninstallCrdsArgs(name, false)));
      if (!now.ok) return json(res, 422, { error: now.error });
      if (now.view.digest !== body.deleteCrds)
        return json(res, 409, {
          error: 'the CustomResourceDefinitions or their custom resources changed since the preview; nothing was deleted: review the preview again',
          preview: now.view,
        });
      // Preconditioned on the uid previewed, as without the option; the command then waits for it to go and deletes the CRDs.
      await o.sources.deleteExtension(name, uid, AbortSignal.timeout(60_000));
      if (now.view.customResourceDefinitions.length === 0) return json(res, 202, { deleting: true, deleted: now.view });
      const done = crdDeletionOutcome(await run(uninstallCrdsArgs(name, true)));
      if (!done.ok) return json(res, 422, { error: `ClusterExtension ${name} is being uninstalled, but: ${done.error}` });
      return json(res, 200, { deleting: true, deleted: done.view, log: done.log });
    }
    if (req.method === 'POST' && path === '/api/install') {
      const body = await readJson(req);
      const parsed = parseInstallForm(body);
      if (!parsed.ok) return json(res, 400, { error: parsed.error });
      const c = (await hub()).catalogs.get(parsed.form.catalog);
      if (c === undefined || !c.packageNames.includes(parsed.form.package)) return json(res, 404, { error: 'no such package' });
      const dryRun = body?.dryRun === true;
      const out = await o.sources.install(installCommandLine(parsed.form, dryRun), AbortSignal.timeout(300_000));
      if (out.code !== 0) return json(res, 422, { error: out.stderr.trim() || `olmv1 install exited with ${out.code}`, log: out.stderr });
      return json(res, dryRun ? 200 : 201, { yaml: dryRun ? out.stdout : '', log: out.stderr, name: parsed.form.name });
    }
    if (req.method === 'POST' && path === '/api/catalogs') {
      const parsed = catalogAddArgs(await readJson(req));
      if (!parsed.ok) return json(res, 400, { error: parsed.error });
      const out = await need(o.sources.catalogAdd, 'catalog add')(parsed.args);
      snapshot = undefined;
      if (out.code !== 0) return json(res, 422, { error: failureText(out, 'catalog add') });
      return json(res, 201, { name: parsed.name });
    }
    const catalogRemove = /^\/api\/catalogs\/([^/]+)\/remove$/.exec(path);
    if (req.method === 'POST' && catalogRemove !== null) {
      const name = decodeURIComponent(catalogRemove[1] ?? '');
      if (!validName(name)) return json(res, 400, { error: 'not a ClusterCatalog name' });
      const out = await need(o.sources.catalogRemove, 'catalog remove')(catalogRemoveArgs(name));
      snapshot = undefined;
      if (out.code !== 0) return json(res, 422, { error: failureText(out, 'catalog remove') });
      return json(res, 202, { deleting: true });
    }
    const approve = /^\/api\/extensions\/([^/]+)\/approve$/.exec(path);
    if (req.method === 'POST' && approve !== null) {
      const name = decodeURIComponent(approve[1] ?? '');
      if (!validName(name)) return json(res, 400, { error: 'not a ClusterExtension name' });
      const parsed = upgradeApproveArgs(name, (await readJson(req))?.version, []);
      if (!parsed.ok) return json(res, 400, { error: parsed.error });
      const out = await need(o.sources.upgradeApprove, 'upgrade approve')(parsed.args);
      if (out.code !== 0) return json(res, 422, { error: failureText(out, 'upgrade approve') });
      return json(res, 200, { approved: out.stdout.trim(), log: out.stderr });
    }
    const rollback = /^\/api\/extensions\/([^/]+)\/rollback$/.exec(path);
    if (req.method === 'POST' && rollback !== null) {
      const name = decodeURIComponent(rollback[1] ?? '');
      if (!validName(name)) return json(res, 400, { error: 'not a ClusterExtension name' });
      const revision = (await readJson(req))?.revision;
      const parsed = rollbackArgs(name, revision);
      if (!parsed.ok) return json(res, 400, { error: parsed.error });
      const out = await need(o.sources.rollback, 'release rollback')(parsed.args);
      // The command's refusal as it prints it (unsafe CRD change, no catalog offers the bundle, ...).
      if (out.code !== 0) return json(res, 422, { error: failureText(out, 'release rollback') });
      return json(res, 200, { report: out.stdout, log: out.stderr });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 404, { error: 'no such action' });
    if (path === '/' || path === '/index.html') return send(res, 200, 'text/html; charset=utf-8', PAGE);
    if (path.startsWith('/assets/')) return asset(res, o.assetsDir, path.slice('/assets/'.length));
    if (path === '/api/session') return json(res, 200, { csrfToken: o.secrets.csrfToken, iconKey: o.secrets.iconKey });
    const signal = AbortSignal.timeout(60_000);
    if (path === '/api/hub') {
      const problems: string[] = [];
      const [h, installed] = await Promise.all([hub(), installedPackages(o.sources, signal, problems)]);
      return json(res, 200, { tiles: h.tiles.map((t) => ({ ...t, installed: installed.has(t.name) })), problems: [...h.problems, ...problems] });
    }
    if (path === '/api/cluster') {
      const out = await need(o.sources.clusterStatus, 'status')(signal);
      // 0 allowed, 1 blocked, 3 undecidable: each prints the report; 2 is a failure to read the cluster.
      if (out.code === 2 || out.stdout.trim() === '') return json(res, 502, { error: failureText(out, 'status') });
      return json(res, 200, { code: out.code, report: JSON.parse(out.stdout) as unknown });
    }
    if (path === '/api/catalogs') {
      const items = await need(o.sources.listCatalogObjects, 'catalogs')(signal);
      return json(res, 200, { catalogs: items.map(catalogView).sort((a, b) => (a.name < b.name ? -1 : 1)) });
    }
    const plan = /^\/api\/extensions\/([^/]+)\/plan$/.exec(path);
    if (plan !== null) {
      const name = decodeURIComponent(plan[1] ?? '');
      if (!validName(name)) return json(res, 400, { error: 'not a ClusterExtension name' });
      const out = await need(o.sources.upgradePlan, 'upgrade plan')(upgradePlanArgs(name, []));
      // Exit 1 with a plan on stdout: the plan says why (its error); without one, stderr does.
      if (out.stdout.trim() === '') return json(res, 422, { error: failureText(out, 'upgrade plan') });
      return json(res, 200, { plan: JSON.parse(out.stdout) as unknown, text: out.text ?? '', log: out.stderr });
    }
    if (path === '/api/extensions') return json(res, 200, { extensions: (await o.sources.listExtensions(signal)).map(extensionRow) });
    const crdDeletion = /^\/api\/extensions\/([^/]+)\/crd-deletion$/.exec(path);
    if (crdDeletion !== null) {
      const name = decodeURIComponent(crdDeletion[1] ?? '');
      if (!validName(name)) return json(res, 400, { error: 'not a ClusterExtension name' });
      const out = crdDeletionOutcome(await need(o.sources.uninstall, 'uninstall')(uninstallCrdsArgs(name, false)));
      if (!out.ok) return json(res, 422, { error: out.error });
      return json(res, 200, { preview: out.view, log: out.log });
    }
    const objects = /^\/api\/extensions\/([^/]+)\/objects$/.exec(path);
    if (objects !== null) {
      const name = decodeURIComponent(objects[1] ?? '');
      if (!validName(name)) return json(res, 400, { error: 'not a ClusterExtension name' });
      const release = deployedRelease((await historyOf(o.sources, name, signal)).releases);
      const reads = release === undefined ? [] : await readReleaseObjects(o.sources, release, signal);
      return json(res, 200, releaseObjectsView(release, reads));
    }
    const ext = /^\/api\/extensions\/([^/]+)(\/uninstall-preview)?$/.exec(path);
    if (ext !== null) {
      const name = decodeURIComponent(ext[1] ?? '');
      const obj = await o.sources.getExtension(name, signal);
      const problems: string[] = [];
      const part = <T>(what: string, p: Promise<T>, none: T): Promise<T> =>
        p.catch((e: unknown) => {
          problems.push(`${what}: ${errorMessage(e)}`);
          return none;
        });
      const revisions = await part('release history', historyOf(o.sources, name, signal), { releases: [], objectSets: undefined });
      const history = revisions.releases;
      if (ext[2] === undefined) {
        const events = await part('Events', o.sources.extensionEvents(name, signal), []);
        const detail = extensionDetail(obj, o.sources.installState(obj), events, history, problems, revisions.objectSets);
        return json(res, 200, detail);
      }
      const [crds, installer] = await Promise.all([
        part('CustomResourceDefinitions', o.sources.crdPreview(name, signal), undefined),
        part('installer ServiceAccount and RBAC', o.sources.installerObjects(name, signal), []),
      ]);
      return json(res, 200, uninstallPreview(obj, history, crds, installer, problems));
    }
    const rbac = /^\/api\/packages\/([^/]+)\/([^/]+)\/rbac$/.exec(path);
    if (rbac !== null) {
      const [, catalog = '', pkg = ''] = rbac.map((x) => decodeURIComponent(x));
      const c = (await hub()).catalogs.get(catalog);
      if (c === undefined || !c.packageNames.includes(pkg)) return json(res, 404, { error: 'no such package' });
      const ns = new URL(req.url ?? '/', 'http://x').searchParams.get('namespace') ?? '';
      if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(ns)) return json(res, 400, { error: 'namespace: a DNS label' });
      const image = headBundleImage(await c.load(pkg), pkg);
      if (image === '') return json(res, 422, { error: 'the package has no head bundle image' });
      const out = await need(o.sources.bundleRbac, 'rbac')(image, ns, `${pkg}-installer`.slice(0, 253));
      if (out.code !== 0) return json(res, 422, { error: `head bundle image ${image}: ${failureText(out, 'rbac')}`, image });
      return json(res, 200, { image, yaml: out.stdout, warnings: out.stderr });
    }
    const m = /^\/api\/(packages|icons)\/([^/]+)\/([^/]+)$/.exec(path);
    if (m !== null) {
      const [, kind, catalog = '', pkg = ''] = m.map((x) => decodeURIComponent(x));
      const c = (await hub()).catalogs.get(catalog);
      if (c === undefined || !c.packageNames.includes(pkg)) return json(res, 404, { error: 'no such package' });
      const dc = await c.load(pkg);
      if (kind === 'icons') {
        const icon = packageIcon(dc, pkg);
        if (icon === undefined) return json(res, 404, { error: 'no icon' });
        // Opened directly, an SVG would be a document: a sandbox without script keeps it an image.
        res.setHeader('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
        res.setHeader('cache-control', 'private, max-age=300');
        return send(res, 200, icon.mediatype, icon.data);
      }
      const installed = await installedPackages(o.sources, signal, []);
      return json(res, 200, { ...packageDetail(catalog, pkg, dc), installed: installed.has(pkg) });
    }
    return json(res, 404, { error: 'not found' });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      const status = typeof (e as { status?: unknown }).status === 'number' ? (e as { status: number }).status : 502;
      o.log.warn({ err: e, url: req.url }, 'console request failed');
      if (!res.headersSent) json(res, status >= 400 && status < 600 ? status : 502, { error: errorMessage(e) });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : o.port;
  hostPort = `127.0.0.1:${port}`;
  return {
    origin: `http://${hostPort}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function readHub(sources: ConsoleSources, _now: () => number): Promise<HubSnapshot> {
  const signal = AbortSignal.timeout(120_000);
  const refs = await sources.listCatalogs(signal);
  const catalogs = new Map<string, ConsoleCatalog>();
  const tiles: HubTile[] = [];
  const problems: string[] = [];
  for (const ref of refs) {
    if (typeof ref.baseURL !== 'string') {
      problems.push(`catalog ${ref.name}: ${ref.baseURL.error}`);
      continue;
    }
    try {
      const c = await sources.loadCatalog(ref.name, ref.baseURL, signal);
      catalogs.set(ref.name, c);
      // A few packages at a time, each dropped once its tile is made: the index holds tiles, not content.
      const queue = [...c.packageNames];
      const worker = async (): Promise<void> => {
        for (let pkg = queue.shift(); pkg !== undefined; pkg = queue.shift()) {
          try {
            tiles.push(hubTile(ref.name, pkg, await c.load(pkg)));
          } catch (e) {
            problems.push(`catalog ${ref.name}, package ${pkg}: ${errorMessage(e)}`);
          }
        }
      };
      await Promise.all(Array.from({ length: INDEX_CONCURRENCY }, worker));
    } catch (e) {
      problems.push(`catalog ${ref.name}: ${errorMessage(e)}`);
    }
  }
  tiles.sort((a, b) => (a.displayName.toLowerCase() < b.displayName.toLowerCase() ? -1 : 1));
  return { at: _now(), catalogs, tiles, problems };
}

/**
 * Reads each object of `release` as the user, a few at a time: a namespaced object the manifest
 * names without a namespace is read in the release's namespace, where operator-controller applies
 * it. A refusal (or a kind no longer served) is that object's outcome, not the request's.
 */
/** The revisions of extension `name`: revisionHistory when the sources have it, else the release records. */
async function historyOf(sources: ConsoleSources, name: string, signal: AbortSignal): Promise<ExtensionHistory> {
  if (sources.revisionHistory !== undefined) return sources.revisionHistory(name, signal);
  return { releases: await sources.releaseHistory(name, signal), objectSets: undefined };
}

async function readReleaseObjects(sources: ConsoleSources, release: Release, signal: AbortSignal): Promise<ReleaseObjectRead[]> {
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

/** The packages ClusterExtensions name; when the user may not list them, none, and why in `problems`. */
async function installedPackages(sources: ConsoleSources, signal: AbortSignal, problems: string[]): Promise<Set<string>> {
  try {
    return new Set((await sources.listExtensions(signal)).map((o) => extensionRow(o).package).filter((p) => p !== ''));
  } catch (e) {
    problems.push(`ClusterExtensions (for the Installed badges): ${errorMessage(e)}`);
    return new Set();
  }
}

async function asset(res: ServerResponse, dir: string, rel: string): Promise<void> {
  const file = normalize(join(dir, rel));
  const type = TYPES[extname(file)];
  if (!file.startsWith(dir + sep) || type === undefined) return json(res, 404, { error: 'not found' });
  const data = await readFile(file).catch(() => undefined);
  if (data === undefined) return json(res, 404, { error: 'not found' });
  res.setHeader('cache-control', 'private, max-age=3600');
  return send(res, 200, type, data);
}

/** The JSON object of a request body of at most 4 KiB; undefined when it is not one. */
async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > 4096) return undefined;
    chunks.push(c);
  }
  try {
    const v: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** An optional source, or a 501 saying which command this console cannot run. */
function need<A extends unknown[], R>(f: ((...a: A) => Promise<R>) | undefined, command: string): (...a: A) => Promise<R> {
  if (f === undefined) return () => Promise.reject(Object.assign(new Error(`this console cannot run olmv1 ${command}`), { status: 501 }));
  return f;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.statusCode = status;
  res.setHeader('content-type', type);
  res.end(body);
}
