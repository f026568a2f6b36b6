/**
 * How operator-controller reaches catalogd: the extra CAs of `--catalogd-ca-file` (re-read at
 * each request) and `--catalogd-cas-dir` (re-read on change), and the environment's proxy, as
 * upstream's catalog client does.
 */
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { CatalogClientOptions } from '../../pkg/operator-controller/catalogclient/index.ts';
import { caDirPem } from '../../pkg/shared/nodehttp/index.ts';
import { proxySelector } from '../shared/proxy.ts';
import type { OperatorControllerOptions } from './options.ts';

/**
 * The catalog client's options.
 * @throws Error when `--catalogd-cas-dir` cannot be read or holds no certificate (upstream's start-up check).
 */
export function catalogdClientOptions(
  o: Pick<OperatorControllerOptions, 'catalogdCaFile' | 'catalogdCasDir' | 'proxy'>,
  log: Logger,
): CatalogClientOptions {
  const file = o.catalogdCaFile;
  const dir = o.catalogdCasDir;
  let lastError = '';
  const fromDir =
    dir === undefined
      ? undefined
      : caDirPem(dir, {
          // Once per distinct problem: the directory is read again every second while in use.
          onError: (err) => {
            if (err.message !== lastError) log.warn({ err, dir }, 'catalogd CA directory unusable, keeping its last certificates');
            lastError = err.message;
          },
        });
  const proxy = o.proxy === undefined ? undefined : proxySelector(o.proxy);
  return {
    ...(file === undefined && fromDir === undefined
      ? {}
      : { caPem: () => (file === undefined ? '' : readFileSync(file, 'utf8')) + (fromDir === undefined ? '' : fromDir()) }),
    ...(proxy === undefined ? {} : { proxy }),
  };
}
