/**
 * A minimal HTTPS client for the test API server, independent of the project's kube module:
 * readiness checks, and tests that need a raw request as a given identity and its real status.
 */
import { request as httpsRequest } from 'node:https';
import type { ManagedProcess } from './process.ts';
import { waitUntil } from './wait.ts';
import { errorMessage } from '../../shared/errors/index.ts';

/** Where the API server is and which CA to trust. */
export interface KubeEndpoint {
  /** `https://127.0.0.1:PORT`. */
  server: string;
  /** PEM of the CA that signed the serving certificate. */
  caPem: string;
}

/** Identity of a request: a bearer token, a client certificate, or nobody (anonymous). */
export type KubeAuth = { token: string } | { certPem: string; keyPem: string } | { anonymous: true };

/** One request. */
export interface KubeRequest {
  method?: string;
  /** Path and query, e.g. `/api/v1/namespaces?limit=1`. */
  path: string;
  auth: KubeAuth;
  /** JSON-serialised unless it is a string. */
  body?: unknown;
  /** Default `application/json` when there is a body. */
  contentType?: string;
  timeoutMs?: number;
}

/** The response; non-2xx statuses are returned, not thrown. */
export interface KubeResponse {
  status: number;
  body: string;
  /** The body parsed as JSON; throws with the raw body when it is not JSON. */
  json<T = unknown>(): T;
}

/**
 * Sends one request and resolves with the response whatever its status. Rejects only on
 * transport failures (refused, TLS error, timeout), naming method, URL and cause.
 */
export async function kubeRequest(endpoint: KubeEndpoint, req: KubeRequest): Promise<KubeResponse> {
  const url = new URL(req.path, endpoint.server);
  const method = req.method ?? 'GET';
  const payload = req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (payload !== undefined) {
    headers['Content-Type'] = req.contentType ?? 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(payload));
  }
  const tls: { cert?: string; key?: string } = {};
  if ('token' in req.auth) headers['Authorization'] = `Bearer ${req.auth.token}`;
  if ('certPem' in req.auth) {
    tls.cert = req.auth.certPem;
    tls.key = req.auth.keyPem;
  }
  try {
    return await new Promise<KubeResponse>((resolve, reject) => {
      const r = httpsRequest(url, { method, headers, ca: endpoint.caPem, ...tls, agent: false, timeout: req.timeoutMs ?? 30_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body, json: <T>() => parseJson<T>(body) });
        });
      });
      r.on('timeout', () => r.destroy(new Error(`no response within ${req.timeoutMs ?? 30_000} ms`)));
      r.on('error', reject);
      r.end(payload);
    });
  } catch (err) {
    throw new Error(`${method} ${url.href} failed: ${errorMessage(err)}`, { cause: err });
  }
}

function parseJson<T>(body: string): T {
  try {
    return JSON.parse(body) as T;
  } catch {
    throw new Error(`response is not JSON: ${body.slice(0, 500)}`);
  }
}

/** Waits until `https://127.0.0.1:<port>/healthz` of `proc` answers 200 to anyone (waitUntil's errors). */
export async function waitForHealthz(name: string, port: number, caPem: string, proc: ManagedProcess, timeoutMs: number): Promise<void> {
  const endpoint = { server: `https://127.0.0.1:${port}`, caPem };
  await waitUntil(
    `${name} /healthz`,
    async () => (await kubeRequest(endpoint, { path: '/healthz', auth: { anonymous: true }, timeoutMs: 5000 })).status === 200,
    { timeoutMs, process: proc, intervalMs: 200 },
  );
}
