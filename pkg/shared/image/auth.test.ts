import { mkdtemp } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildImage } from './build.ts';
import { createDiskImageCache, type ImageCache } from './cache.ts';
import { createImageClient } from './client.ts';
import { parseDockerConfigJson, type DockerConfig } from './docker-config.ts';
import { deleteReadOnly } from './fs-tree.ts';
import type { HttpRequest, HttpResponse, HttpTransport } from './http-transport.ts';
import { RegistryAuth } from './registry-auth.ts';
import { startBlobMirror, startFakeRegistry, type FakeRegistry } from '../../../test/support/fake-registry.ts';

let dir: string;
let cache: ImageCache;
const cleanup: Array<() => Promise<void> | void> = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'olmv1-auth-test-'));
  cache = createDiskImageCache(dir);
});

afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
  await deleteReadOnly(dir);
});

function credentials(host: string, username: string, password: string): DockerConfig {
  return parseDockerConfigJson(JSON.stringify({ auths: { [`https://${host}`]: { username, password } } }));
}

async function start(auth: Parameters<typeof startFakeRegistry>[0]): Promise<FakeRegistry> {
  const r = await startFakeRegistry(auth);
  cleanup.push(() => r.close());
  return r;
}

function clientFor(registry: FakeRegistry, creds?: DockerConfig) {
  const c = createImageClient({ insecureRegistries: [registry.host], ...(creds !== undefined ? { credentials: () => creds } : {}) });
  cleanup.push(() => c.close());
  return c;
}

const image = buildImage({ files: { 'manifests/a.yaml': 'a: 1' } });

describe('basic auth', () => {
  it('answers the Basic challenge with the configured credentials', async () => {
    const registry = await start({ kind: 'basic', username: 'alice', password: 'pw' });
    const client = clientFor(registry, credentials(registry.host, 'alice', 'pw'));
    await client.push(`${registry.host}/app:1`, image);
    const got = await client.pull(`${registry.host}/app:1`, { owner: 'a', cache });
    expect(got.digest).toBe(image.digest);
    // After the first challenge the client sends credentials up front.
    const unauthenticated = registry.authorizations.filter((a) => a === undefined).length;
    expect(unauthenticated).toBe(1);
  });

  it('reports a refused login with the registry code, retryably', async () => {
    const registry = await start({ kind: 'basic', username: 'alice', password: 'pw' });
    const anonymous = clientFor(registry);
    await expect(anonymous.resolveDigest(`${registry.host}/app:1`)).rejects.toThrow(
      `error getting manifest: error reading manifest 1 in ${registry.host}/app: HTTP 401 Unauthorized: UNAUTHORIZED: authentication required`,
    );
    const wrong = clientFor(registry, credentials(registry.host, 'alice', 'nope'));
    await expect(wrong.resolveDigest(`${registry.host}/app:1`)).rejects.toThrow(/HTTP 401 Unauthorized: UNAUTHORIZED/);
  });
});

describe('bearer token auth', () => {
  it('fetches a token with basic credentials, scoped to the repository, and reuses it', async () => {
    const registry = await start({ kind: 'bearer', username: 'bob', password: 'tok' });
    const client = clientFor(registry, credentials(registry.host, 'bob', 'tok'));
    await client.push(`${registry.host}/team/app:1`, image);
    registry.tokenRequests.length = 0;
    await client.pull(`${registry.host}/team/app:1`, { owner: 'b', cache });
    expect(registry.tokenRequests).toHaveLength(1);
    expect(registry.tokenRequests[0]?.getAll('scope')).toEqual(['repository:team/app:pull']);
    expect(registry.tokenRequests[0]?.get('service')).toBe('fake-registry');
    expect(registry.tokenRequests[0]?.get('account')).toBe('bob');
  });

  it('asks for push scope when pushing', async () => {
    const registry = await start({ kind: 'bearer' });
    const client = clientFor(registry);
    await client.push(`${registry.host}/app:1`, image);
    const scopes = registry.tokenRequests.flatMap((q) => q.getAll('scope'));
    expect(scopes).toContain('repository:app:pull,push');
  });

  it('fetches a new token once the cached one expires', async () => {
    const registry = await start({ kind: 'bearer', expiresIn: 5 });
    const client = clientFor(registry);
    await client.push(`${registry.host}/app:1`, image);
    registry.tokenRequests.length = 0;
    await client.resolveDigest(`${registry.host}/app:1`);
    await client.resolveDigest(`${registry.host}/app:1`);
    // A 5 s token is inside the 10 s safety margin: every request needs a fresh one.
    expect(registry.tokenRequests.length).toBeGreaterThanOrEqual(2);
  });

  it('says which token endpoint refused the credentials', async () => {
    const registry = await start({ kind: 'bearer', username: 'bob', password: 'tok' });
    const client = clientFor(registry, credentials(registry.host, 'bob', 'wrong'));
    await expect(client.resolveDigest(`${registry.host}/app:1`)).rejects.toThrow(
      `error getting manifest: error fetching token from ${registry.url}/token: HTTP 401 Unauthorized: UNAUTHORIZED: bad credentials`,
    );
  });

  it('refuses to send credentials to a plain-HTTP realm of an HTTPS registry', async () => {
    const sent: string[] = [];
    const transport = {
      isInsecure: () => false,
      request: async (req: HttpRequest): Promise<HttpResponse> => {
        sent.push(req.url.toString());
        const body = Readable.from([]) as unknown as HttpResponse['body'];
        return {
          status: 401,
          statusText: 'Unauthorized',
          headers: {},
          headersDistinct: { 'www-authenticate': ['Bearer realm="http://auth.example/token",service="s"'] },
          url: req.url,
          body,
        };
      },
    } satisfies Pick<HttpTransport, 'isInsecure' | 'request'>;
    const auth = new RegistryAuth(transport as unknown as HttpTransport, credentials('secure.example', 'bob', 'tok'));
    await expect(
      auth.send({ domain: 'secure.example', path: 'app' }, 'pull', { method: 'GET', url: new URL('https://secure.example/v2/app/manifests/1') }),
    ).rejects.toThrow('error fetching token from http://auth.example/token: refusing to send credentials for secure.example to a plain-HTTP realm');
    expect(sent).toEqual(['https://secure.example/v2/app/manifests/1']);
  });
});

describe('redirects', () => {
  it('follows blob redirects to another origin without forwarding credentials', async () => {
    const registry = await start({ kind: 'basic', username: 'alice', password: 'pw' });
    const client = clientFor(registry, credentials(registry.host, 'alice', 'pw'));
    await client.push(`${registry.host}/app:1`, image);
    const mirror = await startBlobMirror(registry.blobs);
    cleanup.push(() => mirror.close());
    registry.faults.redirectBlobsTo = mirror.url;
    const got = await client.pull(`${registry.host}/app:1`, { owner: 'r', cache });
    expect(got.digest).toBe(image.digest);
    expect(mirror.seen.length).toBeGreaterThan(0);
    expect(mirror.seen.every((a) => a === undefined)).toBe(true);
  });
});
