/**
 * Small parsers shared by the binaries' flag handling: Go-style durations and
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
