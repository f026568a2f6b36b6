import { errorMessage } from '../../pkg/shared/errors/index.ts';
/**
 * Small parsers shared by the binaries' flag handling: Go-style durations, byte sizes and
 * `host:port` listen addresses (an empty host means every interface, as in Go).
 */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses `1h30m`, `90s`, `500ms`, `12h` into milliseconds; throws on anything else. */
export function parseDuration(value: string): number {
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(value)) !== null) {
    total += Number(m[1]) * (UNIT_MS[m[2] ?? ''] ?? 0);
    matched = re.lastIndex;
  }
  if (value === '' || matched !== value.length) throw new Error(`invalid duration ${JSON.stringify(value)} (want e.g. 90s, 30m, 12h)`);
  return Math.round(total);
}

const SIZE_UNITS: Record<string, number> = { '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };

/**
 * Parses a byte size: a whole number of bytes, optionally with a Kubernetes quantity suffix
 * (`k`, `M`, `G`, `T` decimal; `Ki`, `Mi`, `Gi`, `Ti` binary): `1048576`, `512Mi`, `2G`. Must be
 * positive; throws naming `flag`.
 */
export function parseByteSize(flag: string, value: string): number {
  const m = /^(\d+)([kMGT]i?|Ki)?$/.exec(value);
  const n = m === null ? NaN : Number(m[1]) * (SIZE_UNITS[m[2] ?? ''] ?? NaN);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new Error(`invalid ${flag} ${JSON.stringify(value)} (want a positive size in bytes, e.g. 1048576, 512Mi or 2Gi)`);
  return n;
}

/** Parses a positive integer flag value; throws naming `flag`. */
export function parsePositiveInt(flag: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 1) throw new Error(`invalid ${flag} ${JSON.stringify(value)} (want a positive integer)`);
  return n;
}

/** Parses a positive duration flag value (see parseDuration); throws naming `flag`. */
export function parsePositiveDuration(flag: string, value: string): number {
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch (err) {
    throw new Error(`invalid ${flag}: ${errorMessage(err)}`, { cause: err });
  }
  if (ms <= 0) throw new Error(`invalid ${flag} ${JSON.stringify(value)} (want a duration above zero)`);
  return ms;
}

/** A listen address. */
export interface ListenAddress {
  host: string;
  port: number;
}

/** Parses `HOST:PORT`, `:PORT` or `[IPv6]:PORT`; throws on anything else. */
export function parseListenAddress(value: string): ListenAddress {
  const m = /^(\[[^\]]*\]|[^:]*):(\d{1,5})$/.exec(value);
  const port = Number(m?.[2]);
  if (m === null || port > 65535) throw new Error(`invalid address ${JSON.stringify(value)} (want HOST:PORT or :PORT)`);
  const host = (m[1] ?? '').replace(/^\[(.*)\]$/, '$1');
  return { host: host === '' ? '0.0.0.0' : host, port };
}

/** Parses a Go-style boolean flag value (`true`, `false`, or empty for true); throws naming `flag`. */
export function parseBool(flag: string, v: string): boolean {
  if (v === 'true' || v === '') return true;
  if (v === 'false') return false;
  throw new Error(`invalid ${flag} value ${JSON.stringify(v)} (want true or false)`);
}

/** Parses `NAME` or `NAMESPACE/NAME` (a Secret reference); undefined for an absent or empty value. */
export function parseSecretRef(flag: string, v: string | undefined, defaultNamespace: string): { namespace: string; name: string } | undefined {
  if (v === undefined || v === '') return undefined;
  const [a, b, ...rest] = v.split('/');
  if (rest.length > 0 || a === '' || b === '') throw new Error(`invalid ${flag} ${JSON.stringify(v)} (want NAME or NAMESPACE/NAME)`);
  return b === undefined ? { namespace: defaultNamespace, name: a ?? '' } : { namespace: a ?? '', name: b };
}

/** Where a component finds its cluster: a kubeconfig file, or the in-cluster service environment. */
export interface ClusterLocation {
  kubeconfig: string | undefined;
  inCluster: { host: string; port: string } | undefined;
}

/**
 * `--kubeconfig`, else `$KUBECONFIG`, else the in-cluster environment
 * (`KUBERNETES_SERVICE_HOST`/`_PORT`); throws when there is none.
 */
export function clusterLocation(flag: string | undefined, env: NodeJS.ProcessEnv): ClusterLocation {
  const kubeconfig = flag ?? (env.KUBECONFIG === '' ? undefined : env.KUBECONFIG);
  const inCluster =
    kubeconfig === undefined && env.KUBERNETES_SERVICE_HOST !== undefined
      ? { host: env.KUBERNETES_SERVICE_HOST, port: env.KUBERNETES_SERVICE_PORT ?? '443' }
      : undefined;
  if (kubeconfig === undefined && inCluster === undefined) throw new Error('no cluster configuration: pass --kubeconfig or run in a cluster');
  return { kubeconfig, inCluster };
}
