/**
 * TLS material of the components' servers (catalogd's catalog server, the metrics servers),
 * reloaded when the files change. Secret volumes are updated by swapping a symlink, which
 * file-system events do not reliably report, so the files are polled. A changed pair that does
 * not load (half-written, mismatched) is logged and the server keeps the previous certificate.
 */
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { type SecureContextOptions, createSecureContext } from 'node:tls';
import type { Logger } from 'pino';
import { errorMessage } from '../errors/index.ts';

/** Paths of a PEM certificate (chain) and its private key. */
export interface CertificatePaths {
  certPath: string;
  keyPath: string;
}

/** A certificate and key read from disk. */
interface Certificate {
  cert: Buffer;
  key: Buffer;
}

/** Reads and checks the pair; throws with the file at fault named. */
export function loadCertificate(paths: CertificatePaths): Certificate {
  const cert = readFileSync(paths.certPath);
  const key = readFileSync(paths.keyPath);
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    throw new Error(`invalid TLS certificate ${paths.certPath} or key ${paths.keyPath}: ${errorMessage(err)}`, { cause: err });
  }
  return { cert, key };
}

/** Anything that can switch its TLS context (node:https and node:tls servers). */
export interface SecureContextTarget {
  setSecureContext(options: { cert: Buffer; key: Buffer }): void;
}

/**
 * A target that installs a new pair on `server` together with `options` (a TLS profile's
 * minimum version, ciphers and curves): Node's `setSecureContext` replaces the whole context,
 * so a reload without them would silently fall back to Node's defaults.
 */
export function keepingOptions(
  server: { setSecureContext(options: SecureContextOptions): void },
  options: SecureContextOptions,
): SecureContextTarget {
  return { setSecureContext: (pair) => server.setSecureContext({ ...options, ...pair }) };
}

/** Polls both files every `intervalMs`, installing a changed pair that loads; returns the stop. */
export function watchCertificate(server: SecureContextTarget, paths: CertificatePaths, log: Logger, intervalMs = 10_000): () => void {
  const onChange = (): void => {
    try {
      server.setSecureContext(loadCertificate(paths));
      log.info({ certPath: paths.certPath }, 'reloaded TLS certificate');
    } catch (err) {
      log.warn({ err, certPath: paths.certPath }, 'keeping previous TLS certificate');
    }
  };
  const opts = { interval: intervalMs, persistent: false };
  watchFile(paths.certPath, opts, onChange);
  watchFile(paths.keyPath, opts, onChange);
  return () => {
    unwatchFile(paths.certPath, onChange);
    unwatchFile(paths.keyPath, onChange);
  };
}
