/**
 * The console API's route table: each route declares its method, a path pattern whose `:name`
 * segments are parameters, the schema its JSON body must satisfy (POSTs), and its handler.
 * `matchRoute` is pure: the server reads the body and calls the handler.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';

/** What a handler is called with. */
interface RouteCall<B = unknown> {
  /** The path's `:name` segments, URI-decoded. */
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  /** The JSON body as its route's schema parsed it (undefined for a route without one). */
  body: B;
  req: IncomingMessage;
  res: ServerResponse;
}

/** One declared route. */
export interface Route<B = unknown> {
  method: 'GET' | 'POST';
  /** `/api/extensions/:name/plan`: literal segments and `:param` segments (one segment each). */
  path: string;
  /** The JSON body's schema; a body that fails it is answered 400 with the first issue's message. */
  body?: z.ZodType<B>;
  handle(call: RouteCall<B>): Promise<void>;
}

/** Declares a route, its body type inferred from its schema. */
export function route<B = undefined>(r: Route<B>): Route {
  return r as unknown as Route;
}

/** The route of a request with its parameters, or why none answers (404: no path; 405: not this method). */
type RouteMatch = { ok: true; route: Route; params: Record<string, string> } | { ok: false; status: 404 | 405 };

/** Finds the route for `method` (HEAD as GET) and `path`; a segment that is not valid URI encoding matches nothing. */
export function matchRoute(routes: readonly Route[], method: string, path: string): RouteMatch {
  const segments = path.split('/');
  let pathMatched = false;
  for (const r of routes) {
    const params = matchPath(r.path, segments);
    if (params === undefined) continue;
    pathMatched = true;
    if (r.method === method || (method === 'HEAD' && r.method === 'GET')) return { ok: true, route: r, params };
  }
  return { ok: false, status: pathMatched ? 405 : 404 };
}

function matchPath(pattern: string, segments: readonly string[]): Record<string, string> | undefined {
  const want = pattern.split('/');
  if (want.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, w] of want.entries()) {
    const s = segments[i] ?? '';
    if (w.startsWith(':')) {
      if (s === '') return undefined;
      try {
        params[w.slice(1)] = decodeURIComponent(s);
      } catch {
        return undefined;
      }
    } else if (w !== s) return undefined;
  }
  return params;
}
