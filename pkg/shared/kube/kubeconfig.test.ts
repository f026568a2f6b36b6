import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startForwardProxy, type ForwardProxy } from '../../../test/support/forward-proxy.ts';
import { testTempDir } from '../../../test/support/temp-dir.ts';
import { connect } from './index.ts';
import { loadKubeConfig } from './kubeconfig.ts';

const tls = (name: string): string => readFileSync(new URL(`../../../test/fixtures/tls/${name}`, import.meta.url), 'utf8');
const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** One kubeconfig file: clusters/users/contexts as `name: body` YAML flow mappings. */
function config(o: {
  current?: string;
  clusters?: Record<string, string>;
  users?: Record<string, string>;
  contexts?: Record<string, string>;
}): string {
  const list = (key: string, field: string, m: Record<string, string> = {}): string =>
    `${key}:\n${Object.entries(m)
      .map(([n, body]) => `- name: ${n}\n  ${field}: ${body}\n`)
      .join('')}`;
  return [
    o.current === undefined ? '' : `current-context: ${o.current}\n`,
    list('clusters', 'cluster', o.clusters),
    list('users', 'user', o.users),
    list('contexts', 'context', o.contexts),
  ].join('');
}

describe('a kubeconfig list ($KUBECONFIG), merged as kubectl merges it', () => {
  it('first file wins per name and for current-context; missing files are skipped; paths resolve against their own file', async () => {
    const root = await testTempDir('kubeconfig-merge-');
    await mkdir(join(root, 'a'));
    await mkdir(join(root, 'b'));
    await writeFile(join(root, 'a/ca.pem'), 'CA-A');
    await writeFile(join(root, 'b/ca.pem'), 'CA-B');
    await writeFile(join(root, 'b/token'), 'tok');
    await writeFile(
      join(root, 'a/config'),
      config({
        current: 'one',
        clusters: { shared: '{server: "https://a.test", certificate-authority: ca.pem}' },
        users: { admin: '{token: from-a}' },
        contexts: { one: '{cluster: shared, user: admin}' },
      }),
    );
    await writeFile(
      join(root, 'b/config'),
      config({
        current: 'two',
        clusters: { shared: '{server: "https://ignored.test"}', other: '{server: "https://b.test", certificate-authority: ca.pem}' },
        users: { admin: '{token: ignored}', reader: '{tokenFile: token}' },
        contexts: { one: '{cluster: other, user: reader}', two: '{cluster: other, user: reader}' },
      }),
    );
    const paths = [join(root, 'missing'), '', join(root, 'a/config'), join(root, 'b/config')];
    const first = loadKubeConfig({ kind: 'files', paths });
    expect(first).toMatchObject({ context: 'one', server: 'https://a.test', auth: { kind: 'static', headers: { Authorization: 'Bearer from-a' } } });
    expect(String(first.ca)).toBe('CA-A');
    const second = loadKubeConfig({ kind: 'files', paths, context: 'two' });
    expect(second).toMatchObject({ server: 'https://b.test', auth: { kind: 'tokenFile', path: join(root, 'b/token') } });
    expect(String(second.ca)).toBe('CA-B');
    // The other order: b's current context and b's entries win.
    expect(loadKubeConfig({ kind: 'files', paths: [join(root, 'b/config'), join(root, 'a/config')] })).toMatchObject({
      context: 'two',
      server: 'https://b.test',
    });
  });

  it('names every context when the wanted one is missing, and fails when no file exists', async () => {
    const root = await testTempDir('kubeconfig-merge-');
    await writeFile(
      join(root, 'c'),
      config({ current: 'x', clusters: { k: '{server: "https://k"}' }, contexts: { x: '{cluster: k}', y: '{cluster: k}' } }),
    );
    expect(() => loadKubeConfig({ kind: 'files', paths: [join(root, 'c')], context: 'nope' })).toThrow(
      `unable to load kubeconfig ${join(root, 'c')}: context "nope" does not exist in the kubeconfig (contexts: x, y)`,
    );
    expect(() => loadKubeConfig({ kind: 'files', paths: [join(root, 'n1'), join(root, 'n2')] })).toThrow(
      `none of the kubeconfig files exists: ${join(root, 'n1')}, ${join(root, 'n2')}`,
    );
    await writeFile(join(root, 'bad'), '- a list');
    expect(() => loadKubeConfig({ kind: 'files', paths: [join(root, 'bad')] })).toThrow(
      `error loading config file "${join(root, 'bad')}": not a kubeconfig`,
    );
  });
});

describe('proxy-url', () => {
  const withProxy = (url: string): string =>
    config({ current: 'c', clusters: { k: `{server: "https://k.test", proxy-url: "${url}"}` }, contexts: { c: '{cluster: k}' } });

  it('accepts http and https proxies', () => {
    expect(loadKubeConfig({ kind: 'yaml', yaml: withProxy('http://proxy.test:3128') }).proxy?.href).toBe('http://proxy.test:3128/');
    expect(loadKubeConfig({ kind: 'yaml', yaml: withProxy('https://u:p@proxy.test') }).proxy?.href).toBe('https://u:p@proxy.test/');
  });

  it.each([
    [
      'socks5://u:secret@proxy.test:1080',
      'cluster "k" has proxy-url socks5://u:***@proxy.test:1080: socks5 proxies are not supported, only http and https ones',
    ],
    ['ftp://proxy.test', 'cluster "k" has proxy-url ftp://proxy.test/: unsupported scheme "ftp", must be http or https'],
    ['not a url', 'cluster "k" has an invalid proxy-url: could not parse it as a URL'],
  ])('refuses %s, never showing a password', (url, message) => {
    expect(() => loadKubeConfig({ kind: 'yaml', yaml: withProxy(url) })).toThrow(`unable to load kubeconfig: ${message}`);
  });
});

describe('a connection through a proxy-url', () => {
  let api: https.Server;
  let proxy: ForwardProxy;
  let port = 0;

  beforeAll(async () => {
    // Answers like an API server: a JSON object, and a watch whose stream stays open.
    api = https.createServer({ cert: tls('server.crt'), key: tls('server.key') }, (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url?.includes('watch=true') === true) res.write('{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"w"}}}\n');
      else res.end('{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"default"}}');
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    port = (api.address() as { port: number }).port;
    proxy = await startForwardProxy();
  });
  afterAll(async () => {
    await proxy.close();
    api.closeAllConnections();
    await new Promise((r) => api.close(r));
  });

  it('sends requests and watches to a loopback server through CONNECT tunnels of the proxy', async () => {
    const yaml = config({
      current: 'c',
      clusters: { k: `{server: "https://127.0.0.1:${port}", certificate-authority-data: ${b64(tls('ca.crt'))}, proxy-url: "${proxy.url}"}` },
      users: { u: '{token: t}' },
      contexts: { c: '{cluster: k, user: u}' },
    });
    const kube = await connect({ kind: 'yaml', yaml });
    try {
      expect(kube.connection.proxy?.href).toBe(`${proxy.url}/`);
      expect(await kube.transport.request('GET', '/api/v1/namespaces/default')).toMatchObject({ metadata: { name: 'default' } });
      const stream = await kube.transport.stream('GET', '/api/v1/configmaps', { query: { watch: true } });
      const [first] = (await stream.take(1).toArray()) as Buffer[];
      expect(String(first)).toContain('"name":"w"');
      stream.destroy();
      expect(proxy.requestsFor('127.0.0.1').map((r) => [r.method, r.target])).toEqual([
        ['CONNECT', `127.0.0.1:${port}`],
        ['CONNECT', `127.0.0.1:${port}`],
      ]);
    } finally {
      kube.close();
    }
  });
});
