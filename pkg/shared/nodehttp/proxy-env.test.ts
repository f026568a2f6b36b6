import { describe, expect, it } from 'vitest';
import { createProxySelector, hasProxy, proxyEnvironment, redactProxy } from './proxy-env.ts';

const PROXY = 'http://proxy.corp:3128/';

function via(noProxy: string, target: string, e: { http?: string; https?: string } = {}): string | undefined {
  const select = createProxySelector({ httpProxy: e.http ?? PROXY, httpsProxy: e.https ?? PROXY, noProxy });
  return select(new URL(target))?.href;
}

describe('proxyEnvironment', () => {
  it('reads the upper-case name first and falls back to the lower-case one when it is empty', () => {
    expect(proxyEnvironment({ HTTPS_PROXY: 'a:1', https_proxy: 'b:2', http_proxy: 'c:3', no_proxy: 'x', NO_PROXY: '' })).toEqual({
      httpsProxy: 'a:1',
      httpProxy: 'c:3',
      noProxy: 'x',
    });
    expect(hasProxy(proxyEnvironment({}))).toBe(false);
    expect(hasProxy(proxyEnvironment({ http_proxy: 'p:1' }))).toBe(true);
  });
});

describe('createProxySelector', () => {
  it('uses HTTPS_PROXY for https URLs and HTTP_PROXY for http URLs, and nothing for other schemes', () => {
    const e = { http: 'http://plain:1', https: 'http://tunnel:2' };
    expect(via('', 'https://quay.io/v2/', e)).toBe('http://tunnel:2/');
    expect(via('', 'http://catalogd.svc/catalogs/x', e)).toBe('http://plain:1/');
    expect(createProxySelector({ httpProxy: '', httpsProxy: 'http://t:2', noProxy: '' })(new URL('http://a.test/'))).toBeUndefined();
    expect(via('', 'ftp://a.test/', e)).toBeUndefined();
  });

  it('takes host[:port] as an http proxy and keeps https proxies and credentials', () => {
    expect(via('', 'https://a.test/', { https: 'proxy.corp:3128' })).toBe('http://proxy.corp:3128/');
    expect(via('', 'https://a.test/', { https: 'https://u:p%40ss@proxy.corp' })).toBe('https://u:p%40ss@proxy.corp/');
  });

  it('refuses values that are not http(s) proxies, naming the variable', () => {
    expect(() => createProxySelector({ httpProxy: '', httpsProxy: 'socks5://p:1080', noProxy: '' })).toThrow(
      'unsupported proxy scheme "socks5" in HTTPS_PROXY: only http and https proxies are supported',
    );
    expect(() => createProxySelector({ httpProxy: 'http://', httpsProxy: '', noProxy: '' })).toThrow(
      /^invalid proxy address "http:\/\/" in HTTP_PROXY/,
    );
  });

  // Each row: NO_PROXY, request URL, proxied?
  const cases: Array<[string, string, boolean]> = [
    // localhost and loopback are never proxied, even with an empty NO_PROXY
    ['', 'https://localhost:5000/', false],
    ['', 'https://127.0.0.1/', false],
    ['', 'https://127.8.9.10:443/', false],
    ['', 'http://[::1]:80/', false],
    ['', 'http://[::ffff:127.0.0.1]/', false],
    ['', 'http://[::2]/', true],
    ['', 'https://localhost.example/', true],
    ['', 'https://vm/', true],
    // *
    ['*', 'https://quay.io/', false],
    ['a.test, *', 'https://quay.io/', false],
    // a domain matches itself and its subdomains, not other names ending the same way
    ['example.com', 'https://example.com/', false],
    ['example.com', 'https://registry.example.com/', false],
    ['example.com', 'https://notexample.com/', true],
    ['EXAMPLE.com', 'https://Registry.Example.COM/', false],
    // a leading dot or *. matches subdomains only
    ['.example.com', 'https://example.com/', true],
    ['.example.com', 'https://a.example.com/', false],
    ['*.example.com', 'https://example.com/', true],
    ['*.example.com', 'https://a.b.example.com/', false],
    // ports: an entry with a port matches that port only; default ports count
    ['example.com:8443', 'https://example.com:8443/', false],
    ['example.com:8443', 'https://example.com/', true],
    ['example.com:443', 'https://example.com/', false],
    ['example.com:80', 'http://example.com/', false],
    ['example.com:80', 'https://example.com/', true],
    // IP addresses and CIDRs match IP-literal hosts
    ['10.1.2.3', 'https://10.1.2.3:5000/', false],
    ['10.1.2.3', 'https://10.1.2.4/', true],
    ['10.1.2.3:5000', 'https://10.1.2.3:5000/', false],
    ['10.1.2.3:5000', 'https://10.1.2.3:5001/', true],
    ['10.0.0.0/8', 'https://10.200.0.1/', false],
    ['10.0.0.0/8', 'https://11.0.0.1/', true],
    ['10.9.9.9/8', 'https://10.200.0.1/', false],
    ['fd00::/8', 'https://[fd12::1]/', false],
    ['fd00::/8', 'https://[fe80::1]/', true],
    ['[fd12::1]:443', 'https://[fd12::1]/', false],
    ['fd12:0:0::1', 'https://[fd12::1]/', false],
    ['::ffff:10.1.2.3', 'https://10.1.2.3/', false],
    // a CIDR does not match names; malformed entries are skipped
    ['10.0.0.0/8', 'https://ten.test/', true],
    [' , :80, 300.0.0.0/8, a.test ', 'https://a.test/', false],
    // internationalised names compare in their punycode form
    ['bücher.example', 'https://xn--bcher-kva.example/', false],
    ['xn--bcher-kva.example', 'https://www.bücher.example/', false],
  ];
  it.each(cases)('NO_PROXY=%j %s proxied: %s', (noProxy, target, proxied) => {
    expect(via(noProxy, target) !== undefined).toBe(proxied);
  });
});

describe('redactProxy', () => {
  it('hides the password only', () => {
    expect(redactProxy(new URL('http://user:secret@p:1/'))).toBe('http://user:***@p:1/');
    expect(redactProxy(new URL('http://p:1/'))).toBe('http://p:1/');
  });
});
