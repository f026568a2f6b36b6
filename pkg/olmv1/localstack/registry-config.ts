/**
 * The distribution registry's configuration for a test registry (pure). Written as JSON, which
 * the registry's YAML parser reads as-is.
 */

/** Inputs of renderRegistryConfig. */
interface RegistryConfigOptions {
  port: number;
  /** Listen address (default 127.0.0.1). */
  address?: string;
  storageDir: string;
  /** Random secret for upload state (the registry warns and picks one itself otherwise). */
  httpSecret: string;
  /** Serving certificate and key: HTTPS instead of HTTP. */
  tls?: { certPath: string; keyPath: string };
  /** htpasswd file with bcrypt entries: HTTP basic authentication. */
  htpasswdPath?: string;
  /** Raw `auth:` section (e.g. `{ token: { realm, service, issuer, rootcertbundle } }`). */
  auth?: Record<string, unknown>;
}

/**
 * The configuration: filesystem storage with deletes, no upload purging, quiet logs. Throws
 * when both `htpasswdPath` and `auth` are given: the registry accepts one access controller.
 */
export function buildRegistryConfig(options: RegistryConfigOptions): Record<string, unknown> {
  if (options.htpasswdPath !== undefined && options.auth !== undefined) {
    throw new Error('registry: give either htpasswd credentials or a raw auth section, not both');
  }
  const http: Record<string, unknown> = { addr: `${options.address ?? '127.0.0.1'}:${options.port}`, secret: options.httpSecret };
  if (options.tls !== undefined) http['tls'] = { certificate: options.tls.certPath, key: options.tls.keyPath };
  const config: Record<string, unknown> = {
    version: 0.1,
    log: { level: 'warn', accesslog: { disabled: true } },
    storage: {
      filesystem: { rootdirectory: options.storageDir },
      delete: { enabled: true },
      maintenance: { uploadpurging: { enabled: false } },
    },
    http,
  };
  if (options.htpasswdPath !== undefined) config['auth'] = { htpasswd: { realm: 'envtest-registry', path: options.htpasswdPath } };
  if (options.auth !== undefined) config['auth'] = options.auth;
  return config;
}
