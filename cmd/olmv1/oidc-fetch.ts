/**
 * The OpenID Connect sign-in's HTTP port (pkg/olmv1/console/oidc-sign-in.ts FetchJson) over
 * node:https: JSON answers of the issuer, trusting `caPem` when given (a private issuer's CA),
 * else the system's roots. Rejects only when the issuer cannot be reached or answers no JSON.
 */
import { request } from 'node:https';
import type { FetchJson } from '../../pkg/olmv1/console/index.ts';

/** A FetchJson reaching the issuer over HTTPS. */
export function issuerFetch(caPem: string | undefined): FetchJson {
  return (url, init, signal) =>
    new Promise((resolve, reject) => {
      const form = init.method === 'POST' ? new URLSearchParams(init.form).toString() : undefined;
      const headers: Record<string, string> = { accept: 'application/json' };
      if (form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
      const req = request(url, { method: init.method, headers, signal, ...(caPem === undefined ? {} : { ca: caPem }) }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown });
          } catch (e) {
            reject(new Error(`${init.method} ${url} answered ${res.statusCode ?? 0} without JSON`, { cause: e }));
          }
        });
      });
      req.on('error', (e) => reject(new Error(`cannot reach the OpenID Connect issuer at ${url}: ${e.message}`, { cause: e })));
      req.end(form);
    });
}
