/**
 * A hostile registry for tests: a front on loopback that passes every request through to a
 * real registry, except for the repositories it is told about:
 *
 * - slowed (`slowDown`): their layer blobs are sent a byte at a time, one byte per
 *   `intervalMs`, and never finished (the last byte is held back), as an overloaded or
 *   malicious registry could. Each byte keeps the client's inactivity timeout from firing, so
 *   only a bound on the whole ingest ends such a download.
 * - stalled (`stall`): every request is accepted and read, and never answered (the connection
 *   stays open), as a registry whose backend hangs; only the client's read timeout ends it.
 *
 * It records every slowed download (repository, digest, when it started and when the client
 * went away) and every stalled request.
 */
import { type IncomingMessage, type ServerResponse, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One slowed layer download. */
export interface SlowDownload {
  repo: string;
  digest: string;
  startedAt: number;
  /** When the client closed the connection; undefined while it is still reading. */
  endedAt?: number;
}

/** One request a stalled repository did not answer. */
export interface StalledRequest {
  repo: string;
  /** `METHOD path`. */
  request: string;
  startedAt: number;
  /** When the client closed the connection; undefined while it still waits. */
  endedAt?: number;
}

/** A running slow registry front. */
export interface SlowRegistry {
  /** `127.0.0.1:<port>`: the registry host to put in image references. */
  host: string;
  /** Every slowed download so far, oldest first. */
  downloads: SlowDownload[];
  /** Makes the layers of `repo` (e.g. `hostile/one`) slow. */
  slowDown(repo: string): void;
  /** Every stalled request so far, oldest first. */
  stalled: StalledRequest[];
  /** Leaves every request for `repo` unanswered from now on. */
  stall(repo: string): void;
  /** Answers `repo` again (requests already stalled stay so). */
  unstall(repo: string): void;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host']);

/** Starts a front for the registry at `upstream` (`127.0.0.1:<port>`, plain HTTP). */
export async function startSlowRegistry(upstream: string, intervalMs = 1_000): Promise<SlowRegistry> {
  const slow = new Set<string>();
  const stalledRepos = new Set<string>();
  const stalled: StalledRequest[] = [];
  const layers = new Set<string>(); // digests of layers of slow repositories, from their manifests
  const downloads: SlowDownload[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const [upHost = '', upPort = '80'] = upstream.split(':');

  const forward = (req: IncomingMessage, res: ServerResponse, handle: (up: IncomingMessage) => void): void => {
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !HOP_BY_HOP.has(k)));
    const up = request({ host: upHost, port: Number(upPort), method: req.method, path: req.url, headers: { ...headers, host: upstream } }, handle);
    up.on('error', () => res.destroy());
    req.pipe(up);
  };
  const head = (res: ServerResponse, up: IncomingMessage): void => {
    const headers = Object.fromEntries(Object.entries(up.headers).filter(([k]) => !HOP_BY_HOP.has(k)));
    res.writeHead(up.statusCode ?? 502, headers);
  };

  const server = createServer((req, res) => {
    const m = /^\/v2\/(.+)\/(manifests|blobs)\/([^/?]+)/.exec(req.url ?? '');
    const repo = m?.[1] ?? '';
    if (stalledRepos.has(repo)) {
      const entry: StalledRequest = { repo, request: `${req.method} ${req.url}`, startedAt: Date.now() };
      stalled.push(entry);
      req.resume();
      res.on('close', () => (entry.endedAt = Date.now()));
      return;
    }
    if (m === null || !slow.has(repo) || req.method !== 'GET') {
      forward(req, res, (up) => (head(res, up), up.pipe(res)));
      return;
    }
    const digest = m[3] ?? '';
    forward(req, res, (up) => {
      const chunks: Buffer[] = [];
      up.on('data', (c: Buffer) => chunks.push(c));
      up.on('end', () => {
        const body = Buffer.concat(chunks);
        head(res, up);
        if (m[2] === 'manifests') {
          try {
            for (const l of (JSON.parse(body.toString()) as { layers?: Array<{ digest: string }> }).layers ?? []) layers.add(l.digest);
          } catch {
            // not JSON: nothing to learn
          }
          res.end(body);
          return;
        }
        if (!layers.has(digest) || up.statusCode !== 200) {
          res.end(body);
          return;
        }
        const download: SlowDownload = { repo, digest, startedAt: Date.now() };
        downloads.push(download);
        let sent = 0;
        const timer = setInterval(() => {
          if (sent < body.length - 1) res.write(body.subarray(sent, ++sent));
        }, intervalMs);
        timers.add(timer);
        res.on('close', () => {
          clearInterval(timer);
          timers.delete(timer);
          download.endedAt = Date.now();
        });
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    downloads,
    slowDown: (repo) => void slow.add(repo),
    stalled,
    stall: (repo) => void stalledRepos.add(repo),
    unstall: (repo) => void stalledRepos.delete(repo),
    close: async () => {
      for (const t of timers) clearInterval(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
