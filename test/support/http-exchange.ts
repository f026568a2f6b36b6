/**
 * One HTTP/1.1 request to a listening test server, on a connection of its own, and the
 * response as received: status, headers (lower-case names), and the body bytes undecoded (a
 * gzip body stays compressed).
 */
import http, { type IncomingHttpHeaders } from 'node:http';

export interface ExchangeRequest {
  method?: string;
  /** Path and query, e.g. `/catalogs/c/api/v1/all?x=1`. */
  url: string;
  headers?: Record<string, string>;
  payload?: string;
}

export interface ExchangeResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** The body as UTF-8 text. */
  body: string;
  /** The body bytes as sent. */
  rawPayload: Buffer;
}

/** Sends `req` to `origin` (`http://127.0.0.1:PORT`) and reads the whole response. The path is sent as given, not normalized. */
export function exchange(origin: string, req: ExchangeRequest): Promise<ExchangeResponse> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const options = { host: hostname, port, path: req.url, method: req.method ?? 'GET', headers: req.headers, agent: false };
    const out = http.request(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const rawPayload = Buffer.concat(chunks);
        resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: rawPayload.toString(), rawPayload });
      });
    });
    out.on('error', reject);
    out.end(req.payload);
  });
}
