/**
 * The HTTP endpoint of `--pprof-bind-address`: upstream's `/debug/pprof/` paths, answered with the
 * V8 inspector's profiles of this process (profiles.ts), not Go's pprof protobuf (decision 0117).
 * Plain HTTP without authentication, like upstream's: bind it to loopback.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { Profiler } from './profiles.ts';

/** Go's net/http/pprof default when `seconds` is absent or not a positive whole number. */
const DEFAULT_SECONDS = 30;

interface PprofServerOptions {
  host: string;
  port: number;
  log: Logger;
  /** The longest CPU profile a request may ask for (default 300 s); a longer one is a 400. */
  maxSeconds?: number;
}

const INDEX = `<!DOCTYPE html>
<html><head><title>/debug/pprof/</title></head><body>
<p>Profiles of this Node.js process from the V8 inspector. They are Chrome DevTools formats (open them in
Chrome DevTools or speedscope), not Go's pprof protobuf: <code>go tool pprof</code> cannot read them.</p>
<ul>
<li><a href="profile?seconds=30">profile</a>: a CPU profile (<code>.cpuprofile</code> JSON) over <code>?seconds=N</code> (default 30)</li>
<li><a href="heap">heap</a>: a sampling heap profile (<code>.heapprofile</code> JSON) of the live sampled allocations since the endpoint started</li>
</ul>
</body></html>
`;

/** The pprof endpoint; `start` binds it, `stop` ends profiles in flight and closes it. */
export class PprofServer {
  readonly #o: PprofServerOptions;
  readonly #profiler = new Profiler();
  readonly #stopping = new AbortController();
  #server: Server | undefined;

  constructor(o: PprofServerOptions) {
    this.#o = o;
  }

  /** The bound port (after start). */
  get port(): number | undefined {
    return (this.#server?.address() as AddressInfo | null)?.port;
  }

  /** Starts heap sampling and listens. Throws when the address cannot be bound. */
  async start(): Promise<void> {
    await this.#profiler.startHeapSampling();
    const server = createServer((req, res) => {
      this.#handle(req, res).catch((err: unknown) => {
        this.#o.log.error({ err, path: req.url }, 'pprof request failed');
        if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'profile failed\n');
        else res.destroy();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#o.port, this.#o.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.#server = server;
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    const server = this.#server;
    this.#server = undefined;
    if (server !== undefined) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await this.#profiler.close();
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://pprof');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
      return;
    }
    switch (url.pathname) {
      case '/debug/pprof':
      case '/debug/pprof/':
        send(res, 200, 'text/html; charset=utf-8', INDEX);
        return;
      case '/debug/pprof/heap':
        sendProfile(res, 'heap.heapprofile', await this.#profiler.heapProfile());
        return;
      case '/debug/pprof/profile':
        await this.#cpu(res, url);
        return;
      default:
        send(res, 404, 'text/plain; charset=utf-8', 'Unknown profile\n');
    }
  }

  async #cpu(res: ServerResponse, url: URL): Promise<void> {
    const max = this.#o.maxSeconds ?? 300;
    const asked = url.searchParams.get('seconds') ?? '';
    const seconds = /^\d+$/.test(asked) && Number(asked) > 0 ? Number(asked) : DEFAULT_SECONDS;
    if (seconds > max) {
      send(res, 400, 'text/plain; charset=utf-8', `profile duration exceeds the limit of ${max} seconds\n`);
      return;
    }
    // A caller that goes away, or the server stopping, ends the profile early.
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    const profile = await this.#profiler.cpuProfile(seconds * 1000, AbortSignal.any([gone.signal, this.#stopping.signal]));
    if (profile === 'busy') {
      send(res, 500, 'text/plain; charset=utf-8', 'Could not enable CPU profiling: cpu profiling already in use\n');
      return;
    }
    if (!gone.signal.aborted) sendProfile(res, 'profile.cpuprofile', profile);
  }
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'Content-Type': type, 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

function sendProfile(res: ServerResponse, file: string, profile: unknown): void {
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Content-Disposition': `attachment; filename="${file}"`,
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(JSON.stringify(profile));
}
