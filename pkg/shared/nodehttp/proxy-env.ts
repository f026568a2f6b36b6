/**
 * Which proxy a request goes through, decided as Go's `http.ProxyFromEnvironment`, so one set of
 * values routes our components as it routes upstream's (cmd/ reads the environment):
 *
 * - `https:` URLs use `HTTPS_PROXY`, `http:` ones `HTTP_PROXY`; upper case before lower case.
 * - A value without a scheme means `http://<value>`. socks5 and values that are not URLs are
 *   refused (Go ignores them): traffic meant for a proxy must not leave directly.
 * - `localhost` and loopback addresses never use a proxy.
 * - `NO_PROXY` entries, trimmed, case-insensitive: `*`; an IP or CIDR (IP-literal hosts only); a
 *   domain (`example.com` and its subdomains; `.example.com`, `*.example.com` subdomains only);
 *   with an optional port (`[::1]:80`), default the scheme's. Unparsable entries are ignored.
 */
import { BlockList, isIP } from 'node:net';
import { domainToASCII } from 'node:url';

/** The proxy variables as read from an environment ('' when unset). */
export interface ProxyEnvironment {
  httpProxy: string;
  httpsProxy: string;
  noProxy: string;
}

/** The proxy for a request URL, or undefined to connect directly. */
export type ProxySelector = (target: URL) => URL | undefined;

/** `HTTP_PROXY`/`http_proxy`, `HTTPS_PROXY`/`https_proxy`, `NO_PROXY`/`no_proxy`, upper case first. */
export function proxyEnvironment(env: Readonly<Record<string, string | undefined>>): ProxyEnvironment {
  const any = (upper: string, lower: string): string => (env[upper] !== undefined && env[upper] !== '' ? env[upper] : (env[lower] ?? ''));
  return { httpProxy: any('HTTP_PROXY', 'http_proxy'), httpsProxy: any('HTTPS_PROXY', 'https_proxy'), noProxy: any('NO_PROXY', 'no_proxy') };
}

/** True when the environment names any proxy. */
export function hasProxy(e: ProxyEnvironment): boolean {
  return e.httpProxy !== '' || e.httpsProxy !== '';
}

/**
 * The selector of `e`.
 * @throws Error naming the variable when a proxy value is not an http(s) URL or `host[:port]`.
 */
export function createProxySelector(e: ProxyEnvironment): ProxySelector {
  const https = parseProxy('HTTPS_PROXY', e.httpsProxy);
  const http = parseProxy('HTTP_PROXY', e.httpProxy);
  const bypass = parseNoProxy(e.noProxy);
  return (target) => {
    const proxy = target.protocol === 'https:' ? https : target.protocol === 'http:' ? http : undefined;
    if (proxy === undefined || !useProxy(bypass, target)) return undefined;
    return proxy;
  };
}

/** `value` with its password replaced by `***`, for logs and errors. */
export function redactProxy(value: URL): string {
  if (value.password === '') return value.href;
  const copy = new URL(value.href);
  copy.password = '***';
  return copy.href;
}

function parseProxy(variable: string, value: string): URL | undefined {
  if (value === '') return undefined;
  // Go prepends http:// when the value has no usable scheme (e.g. `proxy:3128`).
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url === undefined || url.hostname === '') {
    throw new Error(`invalid proxy address ${JSON.stringify(value)} in ${variable} (want http://HOST[:PORT] or https://HOST[:PORT])`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(
      `unsupported proxy scheme ${JSON.stringify(url.protocol.slice(0, -1))} in ${variable}: only http and https proxies are supported`,
    );
  }
  return url;
}

/** A parsed NO_PROXY list. */
interface Bypass {
  all: boolean;
  /** CIDR entries (any port). */
  cidrs: BlockList;
  /** Exact IP entries, canonical text, with an optional port. */
  ips: Array<{ ip: string; port: string }>;
  /** Domain entries as `.suffix`; `host: true` when the bare domain matches too. */
  domains: Array<{ suffix: string; port: string; host: boolean }>;
}

function parseNoProxy(value: string): Bypass {
  const out: Bypass = { all: false, cidrs: new BlockList(), ips: [], domains: [] };
  for (const raw of value.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return { ...out, all: true };
    const cidr = /^([^/]+)\/(\d{1,3})$/.exec(entry);
    if (cidr !== null) {
      const family = isIP(cidr[1] ?? '');
      const bits = Number(cidr[2]);
      if (family !== 0 && bits <= (family === 4 ? 32 : 128)) out.cidrs.addSubnet(cidr[1] ?? '', bits, family === 4 ? 'ipv4' : 'ipv6');
      continue;
    }
    const { host, port } = splitHostPort(entry);
    if (host === '') continue;
    if (isIP(host) !== 0) {
      out.ips.push({ ip: canonicalIp(host), port });
      continue;
    }
    const name = host.startsWith('*.') ? host.slice(1) : host;
    const suffix = asciiHost(name.startsWith('.') ? name : `.${name}`);
    out.domains.push({ suffix, port, host: !name.startsWith('.') });
  }
  return out;
}

function useProxy(b: Bypass, target: URL): boolean {
  const host = unbracket(target.hostname).toLowerCase();
  const port = target.port !== '' ? target.port : target.protocol === 'https:' ? '443' : '80';
  const family = isIP(host);
  if (host === 'localhost' || (family !== 0 && isLoopback(host, family))) return false;
  if (b.all) return false;
  if (family !== 0) {
    if (b.cidrs.check(host, family === 4 ? 'ipv4' : 'ipv6')) return false;
    const ip = canonicalIp(host);
    if (b.ips.some((m) => m.ip === ip && (m.port === '' || m.port === port))) return false;
  }
  const name = family === 0 ? asciiHost(host) : host;
  return !b.domains.some((m) => (name.endsWith(m.suffix) || (m.host && name === m.suffix.slice(1))) && (m.port === '' || m.port === port));
}

/** `host[:port]`, `[v6]:port` or a bare IPv6 address (which has colons but no port). */
function splitHostPort(entry: string): { host: string; port: string } {
  const bracketed = /^\[([^\]]*)\](?::(\d*))?$/.exec(entry);
  if (bracketed !== null) return { host: bracketed[1] ?? '', port: bracketed[2] ?? '' };
  if (isIP(entry) === 6) return { host: entry, port: '' };
  const m = /^(.*):(\d*)$/.exec(entry);
  return m === null ? { host: entry, port: '' } : { host: m[1] ?? '', port: m[2] ?? '' };
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

// IPv4-mapped IPv6 addresses compare as their IPv4 form, as Go's net.IP.Equal does.
function canonicalIp(ip: string): string {
  if (isIP(ip) === 4) return ip;
  const hostname = new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(hostname);
  if (mapped === null) return hostname;
  const hi = parseInt(mapped[1] ?? '0', 16);
  const lo = parseInt(mapped[2] ?? '0', 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

function isLoopback(ip: string, family: number): boolean {
  const canonical = canonicalIp(ip);
  if (isIP(canonical) === 4) return canonical.startsWith('127.');
  return family === 6 && canonical === '::1';
}

// Go compares the IDNA (punycode) forms; URL hostnames are punycode already.
function asciiHost(host: string): string {
  if (/^[\x00-\x7f]*$/.test(host)) return host;
  const dot = host.startsWith('.') ? '.' : '';
  const ascii = domainToASCII(host.slice(dot.length));
  return ascii === '' ? host : dot + ascii;
}
