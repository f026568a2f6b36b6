/**
 * How the probe port answers a request, the same whichever thread holds the port: HealthServer's
 * main thread while its worker starts, then the worker (health-worker.ts, decision 0136). Only
 * Node's built-ins' types and small modules of its own: the worker loads it.
 */
import type * as NodeHttp from 'node:http';
import { errorMessage } from '../errors/index.ts';
import { type CheckOutcome, type ProbeAnswer, probeAnswer } from './health-report.ts';

const TEXT = 'text/plain; charset=utf-8';

/** An answer with its content type. */
type TypedAnswer = ProbeAnswer & { contentType: string };

/** What the thread holding the port knows or asks: the event loop's health, the main thread's answers. */
interface ProbeSource {
  /** The `event-loop` check of `/healthz`. */
  eventLoop(): CheckOutcome;
  /** `/metrics` is served; without, it is not found. */
  metrics: boolean;
  /** The main thread's answer to `/readyz` or `/metrics`. */
  answer(path: '/readyz' | '/metrics', verbose: boolean): Promise<TypedAnswer>;
  /** A request that could not be answered (logged by the main thread). */
  failed(message: string, url: string | undefined): void;
}

/** The request listener of the probe port. */
export function probeListener(source: ProbeSource): (req: NodeHttp.IncomingMessage, res: NodeHttp.ServerResponse) => void {
  const answer = async (req: NodeHttp.IncomingMessage): Promise<TypedAnswer & { allow?: string }> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return { status: 405, contentType: TEXT, body: 'method not allowed\n', allow: 'GET, HEAD' };
    const url = new URL(req.url ?? '/', 'http://localhost');
    const verbose = url.searchParams.has('verbose');
    if (url.pathname === '/healthz') {
      const outcomes: Array<[string, CheckOutcome]> = [
        ['ping', true],
        ['event-loop', source.eventLoop()],
      ];
      return { ...probeAnswer('healthz', outcomes, verbose), contentType: TEXT };
    }
    if (url.pathname === '/readyz' || (url.pathname === '/metrics' && source.metrics)) return source.answer(url.pathname, verbose);
    return { status: 404, contentType: TEXT, body: 'not found\n' };
  };
  return (req, res) => {
    answer(req).then(
      (a) => {
        const headers: Record<string, string> = { 'Content-Type': a.contentType, 'X-Content-Type-Options': 'nosniff' };
        if (a.allow !== undefined) headers['Allow'] = a.allow;
        res.writeHead(a.status, headers);
        res.end(a.body);
      },
      (err: unknown) => {
        source.failed(errorMessage(err), req.url);
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': TEXT });
        res.end('internal error\n');
      },
    );
  };
}
