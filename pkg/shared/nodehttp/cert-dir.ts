/**
 * Certificate directories, read as upstream reads them, and re-read while in use:
 *
 * - A registry certificate directory (`--pull-cas-dir`, containers/image's `DockerCertPath`):
 *   `*.crt` files are CAs trusted besides the system roots; `NAME.cert` with `NAME.key` is a
 *   client certificate (one without the other fails the requests with containers/image's text).
 *   We also read a subdirectory named `host[:port]` (as `certs.d`), for that registry only, its
 *   client certificate first. Node presents one client certificate: the first pair by name.
 * - A CA directory (`--catalogd-cas-dir`, upstream's NewCertPool): every file's PEM certificates
 *   are trusted (links followed, subdirectories skipped); none is `no certificates found in ...`.
 *
 * Instead of upstream's watcher, a directory is re-read on use once `refreshMs` (default 1 s)
 * passed; equal content gives an equal material id, so connection pools are kept.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { TlsMaterial } from './agents.ts';
import { errorMessage, isErrno } from '../errors/index.ts';

/** Options of the directory sources. */
interface CertDirOptions {
  /** Least age of a reading before the directory is read again (default 1000 ms). */
  refreshMs?: number;
  now?: () => number;
}

/** The TLS material of a registry certificate directory, by request URL. */
interface RegistryCertDir {
  /**
   * Material for `url`'s host (undefined when the directory holds none for it).
   * @throws Error when the directory or the host's subdirectory is inconsistent or unreadable.
   */
  tlsFor(url: URL): TlsMaterial | undefined;
}

/** What one directory level holds. */
interface Level {
  ca: string[];
  pair: { cert: string; key: string } | undefined;
  /** Certificates found (CAs and client certificates). */
  count: number;
}

/**
 * Reads `dir` as a registry certificate directory now, subdirectories included (but `.*` ones).
 * @throws Error when `dir` cannot be read, a level is inconsistent, or no certificate is found.
 */
export function checkRegistryCertDir(dir: string): void {
  let count = readLevel(dir, true)?.count ?? 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || !isDirectory(join(dir, entry.name))) continue;
    count += readLevel(join(dir, entry.name), false)?.count ?? 0;
  }
  if (count === 0) throw new Error(`no certificates found in ${JSON.stringify(dir)}`);
}

/** A registry certificate directory read on use (see the module comment). */
export function registryCertDir(dir: string, o: CertDirOptions = {}): RegistryCertDir {
  const refreshMs = o.refreshMs ?? 1000;
  const now = o.now ?? Date.now;
  let readAt = -Infinity;
  let top: Level | Error | undefined;
  const hosts = new Map<string, TlsMaterial | Error | undefined>();
  return {
    tlsFor(url) {
      if (now() - readAt >= refreshMs) {
        readAt = now();
        top = attempt(() => readLevel(dir, false));
        hosts.clear();
      }
      let material = hosts.get(url.host);
      if (!hosts.has(url.host)) {
        material = attempt(() => {
          if (top instanceof Error) throw top;
          return combine(top, url.host.startsWith('.') ? undefined : readLevel(join(dir, url.host), false));
        });
        hosts.set(url.host, material);
      }
      if (material instanceof Error) throw material;
      return material;
    },
  };
}

/** A CA directory read on use: the PEM of its certificates (see the module comment). */
export function caDirPem(dir: string, o: CertDirOptions & { onError?: (err: Error) => void } = {}): () => string {
  const refreshMs = o.refreshMs ?? 1000;
  const now = o.now ?? Date.now;
  let readAt = now();
  // The first reading must succeed: upstream refuses to start otherwise.
  let pem = readCaDir(dir);
  return () => {
    if (now() - readAt < refreshMs) return pem;
    readAt = now();
    try {
      pem = readCaDir(dir);
    } catch (err) {
      // Upstream exits and restarts; keeping the last good trust keeps catalogd reachable.
      o.onError?.(err as Error);
    }
    return pem;
  };
}

/** The certificates of every file in `dir`, as one PEM bundle. @throws as the module comment says. */
export function readCaDir(dir: string): string {
  const certs: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (isDirectory(path)) continue;
    certs.push(...certificatesOf(readCertFile(path)));
  }
  if (certs.length === 0) throw new Error(`no certificates found in ${JSON.stringify(dir)}`);
  return certs.join('');
}

/** containers/image's SetupCertificates for one directory; undefined when it does not exist. */
function readLevel(dir: string, mustExist: boolean): Level | undefined {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (err) {
    const code = isErrno(err) ? err.code : undefined;
    if (!mustExist && (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES')) return undefined;
    throw new Error(`reading certificate directory ${JSON.stringify(dir)}: ${errorMessage(err)}`, { cause: err });
  }
  const level: Level = { ca: [], pair: undefined, count: 0 };
  for (const name of names) {
    if (name.endsWith('.crt')) {
      const text = readCertFile(join(dir, name), true);
      const certs = text === undefined ? [] : certificatesOf(text);
      level.ca.push(...certs);
      level.count += certs.length;
    } else if (name.endsWith('.cert')) {
      const key = `${name.slice(0, -'.cert'.length)}.key`;
      if (!names.includes(key)) {
        throw new Error(`missing key ${key} for client certificate ${name}. Note that CA certificates should use the extension .crt`);
      }
      level.count++;
      level.pair ??= { cert: readCertFile(join(dir, name)), key: readCertFile(join(dir, key)) };
    } else if (name.endsWith('.key')) {
      const cert = `${name.slice(0, -'.key'.length)}.cert`;
      if (!names.includes(cert)) throw new Error(`missing client certificate ${cert} for key ${name}`);
    }
  }
  return level;
}

/** The directory's material combined with the host's: CAs of both, the host's client certificate first. */
function combine(shared: Level | undefined, host: Level | undefined): TlsMaterial | undefined {
  const ca = [...(shared?.ca ?? []), ...(host?.ca ?? [])];
  const pair = host?.pair ?? shared?.pair;
  if (ca.length === 0 && pair === undefined) return undefined;
  const material: TlsMaterial = { id: '', ...(ca.length > 0 ? { ca: ca.join('') } : {}), ...(pair ?? {}) };
  material.id = createHash('sha256')
    .update(JSON.stringify([material.ca ?? '', pair?.cert ?? '', pair?.key ?? '']))
    .digest('hex');
  return material;
}

function readCertFile(path: string): string;
function readCertFile(path: string, missingIsFine: true): string | undefined;
function readCertFile(path: string, missingIsFine = false): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    // A file removed between the listing and the read is an expected race (containers/image).
    if (missingIsFine && isErrno(err, 'ENOENT')) return undefined;
    throw new Error(`error reading cert file ${JSON.stringify(path)}: ${errorMessage(err)}`, { cause: err });
  }
}

/** The PEM certificate blocks of `text` that parse, each ending in a newline (Go's AppendCertsFromPEM skips the rest). */
function certificatesOf(text: string): string[] {
  const blocks = text.match(/-----BEGIN CERTIFICATE-----\r?\n[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  return blocks.filter(parses).map((b) => `${b}\n`);
}

function parses(pem: string): boolean {
  try {
    new X509Certificate(pem);
    return true;
  } catch {
    return false;
  }
}

// Links followed, as Go's os.Stat: Kubernetes mounts Secrets and ConfigMaps as links.
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function attempt<T>(read: () => T): T | Error {
  try {
    return read();
  } catch (err) {
    return err as Error;
  }
}
