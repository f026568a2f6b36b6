/**
 * A real OCI registry (distribution) on loopback for tests: filesystem storage in a temp
 * directory, deletes enabled, optionally HTTPS, basic auth or a raw auth section (token auth).
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { runCommand } from './exec.ts';
import { isPortTaken, withFreePorts } from './ports.ts';
import { startServer, type ManagedProcess } from './process.ts';
import { buildRegistryConfig } from './registry-config.ts';
import { waitUntil } from './wait.ts';
import { createWorkspace } from './workspace.ts';
import { errorMessage } from '../../shared/errors/index.ts';

/** Binaries a registry needs. */
export interface RegistryBinaries {
  registry: string;
  /** Only used when `htpasswd` credentials are requested. */
  htpasswd: string;
}

/** Options of startRegistry. */
export interface StartRegistryOptions {
  binaries: RegistryBinaries;
  /** Require HTTP basic authentication with these credentials. */
  htpasswd?: { username: string; password: string };
  /** Serve HTTPS with this certificate (must cover 127.0.0.1) and key. */
  tls?: { certPath: string; keyPath: string };
  /** Raw `auth:` section of the registry configuration (e.g. token auth); excludes `htpasswd`. */
  auth?: Record<string, unknown>;
  /** Parent of the temp directory (default: the OS temp dir). */
  tmpRoot?: string;
  /** Readiness timeout (default 30 s). */
  startTimeoutMs?: number;
  /** Listen on this port of 127.0.0.1 (default: a free one); a taken port is an error. */
  port?: number;
  /**
   * Listen on this address instead of 127.0.0.1, e.g. a node's bridge address, where Pods
   * reach it (decision 0101); `host` and `url` then name it.
   */
  address?: string;
}

/** Connection data of a running registry; plain data, safe to hand to test workers. */
export interface RegistryInfo {
  /** `127.0.0.1:PORT`: what image references start with. */
  host: string;
  /** `http://127.0.0.1:PORT` or `https://...`. */
  url: string;
  /** Present when started with `htpasswd`. */
  username?: string;
  password?: string;
  /** Root of the filesystem storage. */
  storageDir: string;
}

/** A running registry. */
export interface Registry extends RegistryInfo {
  /** Plain-data copy of the connection fields. */
  readonly info: RegistryInfo;
  readonly logPath: string;
  /** Stops the registry and deletes its storage. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts a registry and resolves once `GET /v2/` answers (200, or 401 with authentication).
 * Throws, having cleaned up, when the options conflict or it does not come up (with its log tail).
 */
export async function startRegistry(options: StartRegistryOptions): Promise<Registry> {
  if (options.htpasswd !== undefined) validateCredentials(options.htpasswd);
  const ws = await createWorkspace('olmv1-registry-', options.tmpRoot);
  const { dir, reaper } = ws;
  let proc: ManagedProcess | undefined;
  ws.track(() => proc);
  const stop = (): Promise<void> => ws.stop();

  try {
    const storageDir = join(dir, 'storage');
    const logPath = join(dir, 'registry.log');
    const configPath = join(dir, 'config.json');
    let htpasswdPath: string | undefined;
    if (options.htpasswd !== undefined) {
      htpasswdPath = join(dir, 'htpasswd');
      const { stdout } = await runCommand(options.binaries.htpasswd, [], {
        input: `${options.htpasswd.username}\n${options.htpasswd.password}\n`,
        timeoutMs: 30_000,
      });
      await writeFile(htpasswdPath, stdout, { mode: 0o600 });
    }
    const scheme = options.tls === undefined ? 'http' : 'https';
    const address = options.address ?? '127.0.0.1';
    return await withFreePorts(1, async ([free = 0]) => {
      const port = options.port ?? free;
      await writeFile(
        configPath,
        JSON.stringify(
          buildRegistryConfig({
            port,
            address,
            storageDir,
            httpSecret: randomBytes(16).toString('hex'),
            ...(options.tls !== undefined ? { tls: options.tls } : {}),
            ...(htpasswdPath !== undefined ? { htpasswdPath } : {}),
            ...(options.auth !== undefined ? { auth: options.auth } : {}),
          }),
          null,
          2,
        ) + '\n',
      );
      const url = `${scheme}://${address}:${port}`;
      const server = {
        name: 'registry',
        command: options.binaries.registry,
        args: ['serve', configPath],
        logPath,
        reaper,
        // A clean environment: REGISTRY_* variables would override the config file, and the
        // default OpenTelemetry exporter would try to reach a collector.
        env: { OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none' },
      };
      try {
        proc = await startServer(server, (started) =>
          waitUntil('registry /v2/', async () => [200, 401].includes(await probeStatus(`${url}/v2/`)), {
            timeoutMs: options.startTimeoutMs ?? 30_000,
            process: started,
          }),
        );
      } catch (err) {
        if (isPortTaken(err) && options.port !== undefined) throw new Error(`port ${port} of ${address} is in use`, { cause: err });
        throw err;
      }
      const info: RegistryInfo = { host: `${address}:${port}`, url, storageDir };
      if (options.htpasswd !== undefined) {
        info.username = options.htpasswd.username;
        info.password = options.htpasswd.password;
      }
      return { ...info, info, logPath, stop };
    });
  } catch (err) {
    await stop();
    throw new Error(`starting the envtest registry failed: ${errorMessage(err)}`, { cause: err });
  }
}

function validateCredentials(creds: { username: string; password: string }): void {
  if (creds.username === '' || /[:\n\r]/.test(creds.username)) {
    throw new Error('registry htpasswd username must be non-empty and contain no ":" or line breaks');
  }
  if (/[\n\r]/.test(creds.password)) throw new Error('registry htpasswd password must not contain line breaks');
  if (Buffer.byteLength(creds.password) > 72) throw new Error('registry htpasswd password must be at most 72 bytes (bcrypt limit)');
}

/** Status code of a GET, trusting any certificate: readiness only, no data is exchanged. */
async function probeStatus(url: string): Promise<number> {
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise<number>((resolve, reject) => {
    const req = request(url, { method: 'GET', rejectUnauthorized: false, agent: false, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}
