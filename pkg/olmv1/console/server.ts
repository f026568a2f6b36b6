/**
 * The console's HTTP server: the guard (security.ts) before every request, the static bundle, and
 * the declared routes of api-routes.ts, all read and written with the user's own identity through
 * the injected sources. Every API request needs the session cookie and the page's key; the writes
 * (install, uninstall, approve, rollback, catalog add and remove) are POSTs the guard lets through
 * only with the CSRF token too, from the console's own origin.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { Logger } from 'pino';
import { errorMessage } from '../../shared/errors/index.ts';
import { createHubSnapshots } from './hub-snapshot.ts';
import { indexTiles, readCatalogs, type CatalogSet, type HubSnapshot } from './hub-read.ts';
import type { SharedCatalogs } from './shared-catalogs.ts';
import { guard, SECURITY_HEADERS, type SessionSecrets } from './security.ts';
import { consoleRoutes, json, send } from './api-routes.ts';
import { matchRoute } from './routes.ts';
import { tenantRoutes } from './tenant-routes.ts';
import { instanceRoutes } from './instance-routes.ts';
import { updateRoutes } from './update-routes.ts';
import { podRoutes } from './pod-routes.ts';
import { sendFavicon } from './favicon.ts';
import { createChangeFeed, type StartWatches } from './live.ts';
import type { ConsoleSources } from './sources.ts';

/** How one console runs. */
interface ConsoleOptions {
  /** Port on 127.0.0.1 (0: a free one). */
  port: number;
  /** The sign-in token, session cookie, page key, CSRF token and icon key (security.ts). */
  secrets: SessionSecrets;
  /** Directory of the built bundle (index.js, index.css and assets). */
  assetsDir: string;
  sources: ConsoleSources;
  /** The watches behind `/api/events` (watches.ts); without them the stream stays silent. */
  watches?: StartWatches;
  log: Logger;
  /** How long a read of the catalogs is used before it is read again behind the visits (hub-snapshot.ts), in milliseconds. */
  catalogTtlMs: number;
  now(): number;
}

/** A listening console. */
interface RunningConsole {
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  close(): Promise<void>;
}

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

/** What one console's routes are made of (the local console's, or one in-cluster session's). */
type AppOptions = Pick<ConsoleOptions, 'secrets' | 'assetsDir' | 'sources' | 'watches' | 'log' | 'catalogTtlMs' | 'now'> & {
  /** Where the page offers to sign out (the in-cluster console's sign-out page). */
  signOut?: string;
  /** Catalog reads shared with the other sessions of an in-cluster console (shared-catalogs.ts). */
  sharedCatalogs?: SharedCatalogs;
};

/** A console's routes over its sources: what a request the guard passed is dispatched to. */
export interface ConsoleApp {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  close(): void;
}

/** The bundle and routes of one console (its hub snapshots and change feed its own). */
export function consoleApp(o: AppOptions): ConsoleApp {
  // The newest read of the catalogs: the first step of the hub's read (hub-read.ts).
  let catalogsRead: Promise<CatalogSet> | undefined;
  const snapshots = createHubSnapshots<HubSnapshot>({
    read: async () => {
      const reading = readCatalogs(o.sources, o.sharedCatalogs, AbortSignal.timeout(120_000));
      catalogsRead = reading;
      return indexTiles(await reading, o.now());
    },
    ttlMs: o.catalogTtlMs,
    now: o.now,
  });
  // The catalogs: the hub's once it is read, else those of the read under way, without waiting for its tiles.
  const catalogs = (): Promise<CatalogSet> => {
    const hub = snapshots.get();
    if (snapshots.peek() !== undefined || catalogsRead === undefined) return hub;
    hub.catch(() => undefined);
    return catalogsRead;
  };
  // Read at start, so the first visit finds the index built or on its way.
  snapshots.get().catch((e: unknown) => o.log.warn({ err: e }, 'reading the catalogs failed'));
  const feed = createChangeFeed(o.watches ?? (() => undefined));
  const routes = [
    ...consoleRoutes({
      sources: o.sources,
      secrets: o.secrets,
      feed,
      hub: snapshots.get,
      catalogs,
      dropHub: snapshots.drop,
      page: PAGE,
      ...(o.signOut === undefined ? {} : { signOut: o.signOut }),
    }),
    ...tenantRoutes(o.sources.tenant),
    ...instanceRoutes({ sources: o.sources, catalogs }),
    ...updateRoutes(o.sources),
    ...podRoutes(o.sources),
  ];
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://x');
    const method = req.method ?? 'GET';
    if ((method === 'GET' || method === 'HEAD') && url.pathname.startsWith('/assets/'))
      return asset(res, o.assetsDir, url.pathname.slice('/assets/'.length));
    if ((method === 'GET' || method === 'HEAD') && url.pathname === '/favicon.ico') return sendFavicon(res);
    const m = matchRoute(routes, method, url.pathname);
    if (!m.ok) return json(res, m.status, { error: m.status === 405 ? 'no such action' : 'not found' });
    let body: unknown;
    if (m.route.body !== undefined) {
      const parsed = m.route.body.safeParse((await readJson(req)) ?? {});
      if (!parsed.success) return json(res, 400, { error: parsed.error.issues[0]?.message ?? 'not a valid request body' });
      body = parsed.data;
    }
    await m.route.handle({ params: m.params, query: url.searchParams, body, req, res });
  };
  return { handle, close: () => feed.close() };
}

/** The HTTP status an error carries: its own, or the first its causes carry (an API error wrapped with context). */
function statusOf(e: unknown): number | undefined {
  let cur: unknown = e;
  for (let depth = 0; depth < 5 && typeof cur === 'object' && cur !== null; depth++) {
    const status = (cur as { status?: unknown }).status;
    if (typeof status === 'number') return status;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Answers a request whose handling failed: the API server's status and words when it has them,
 * else 502. A refusal of the API server (4xx) is the user's answer, logged without a stack; only
 * other failures are logged as errors with theirs.
 */
export function failed(log: Logger, req: IncomingMessage, res: ServerResponse, e: unknown): void {
  const status = statusOf(e) ?? 502;
  if (status >= 400 && status < 500) log.info({ url: req.url, status, error: errorMessage(e) }, 'console request refused');
  else log.warn({ err: e, url: req.url }, 'console request failed');
  if (!res.headersSent) json(res, status >= 400 && status < 600 ? status : 502, { error: errorMessage(e) });
  else res.end();
}

/** Starts the console on 127.0.0.1. */
export async function startConsole(o: ConsoleOptions): Promise<RunningConsole> {
  let hostPort = '';
  const app = consoleApp(o);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
    const verdict = guard({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers }, { secrets: o.secrets, hostPort });
    if (verdict.kind === 'deny') return send(res, verdict.status, 'text/plain; charset=utf-8', `${verdict.message}\n`);
    if (verdict.kind === 'redirect') {
      res.setHeader('set-cookie', verdict.setCookie);
      res.setHeader('location', verdict.location);
      return send(res, 303, 'text/plain; charset=utf-8', '');
    }
    await app.handle(req, res);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => failed(o.log, req, res, e));
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
        app.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A file of the built bundle, or 404. */
export async function asset(res: ServerResponse, dir: string, rel: string): Promise<void> {
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
