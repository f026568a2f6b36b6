// The image client's authentication and TLS against the real distribution registry: basic
// auth with credentials from a dockerconfigjson Secret payload, the bearer token flow with a
// token server, and HTTPS with a custom CA.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isTerminal } from '../../pkg/shared/errors/index.ts';
import {
  buildImage,
  createDiskImageCache,
  createImageClient,
  dockerConfigFromSecret,
  type ImageCache,
  type ImageClient,
} from '../../pkg/shared/image/index.ts';
import { createCertificateAuthority, issueCertificate, startRegistry, type Registry } from '../envtest/index.ts';
import { startTokenServer, type TokenServer } from '../support/token-server.ts';

const { basicAuth } = inject('envtestRegistries');
const binaries = inject('envtestBinaries');

let work: string;
let cache: ImageCache;
const clients: ImageClient[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'olmv1-image-auth-it-'));
  cache = createDiskImageCache(join(work, 'unpack'));
});

afterAll(async () => {
  for (const c of clients) c.close();
  for (const owner of await cache.owners()) await cache.delete(owner);
  await rm(work, { recursive: true, force: true });
});

function client(options: Parameters<typeof createImageClient>[0]): ImageClient {
  const c = createImageClient(options);
  clients.push(c);
  return c;
}

/** A Secret's `data` as the API returns it: base64 of the dockerconfigjson document. */
function pullSecret(auths: Record<string, unknown>): { name: string; data: Record<string, string> } {
  return { name: 'pull-secret', data: { '.dockerconfigjson': Buffer.from(JSON.stringify({ auths })).toString('base64') } };
}

async function errorOf(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

const image = buildImage({ files: { 'manifests/csv.yaml': 'kind: ClusterServiceVersion', 'metadata/annotations.yaml': 'annotations: {}' } });

describe('basic auth registry', () => {
  it('pushes and pulls with credentials from a dockerconfigjson Secret', async () => {
    const auth = Buffer.from(`${basicAuth.username}:${basicAuth.password}`).toString('base64');
    const credentials = dockerConfigFromSecret(pullSecret({ [`https://${basicAuth.host}`]: { auth, email: 'ci@example.com' } }));
    const authed = client({ insecureRegistries: [basicAuth.host], credentials: () => credentials });
    const digest = await authed.push(`${basicAuth.host}/private/bundle:v1`, image);
    const pulled = await authed.pull(`${basicAuth.host}/private/bundle:v1`, { owner: 'private', cache });
    expect(pulled.digest).toBe(digest);
  });

  it('fails retryably without credentials, naming the refusal', async () => {
    const anonymous = client({ insecureRegistries: [basicAuth.host] });
    const err = await errorOf(anonymous.pull(`${basicAuth.host}/private/bundle:v1`, { owner: 'anon', cache }));
    expect(err.message).toBe(
      `error getting manifest: error reading manifest v1 in ${basicAuth.host}/private/bundle: HTTP 401 Unauthorized: UNAUTHORIZED: authentication required`,
    );
    expect(isTerminal(err)).toBe(false);
  });
});

describe('token auth registry', () => {
  let tokens: TokenServer;
  let registry: Registry;

  beforeAll(async () => {
    const dir = await mkdtemp(join(work, 'token-'));
    tokens = await startTokenServer({
      dir,
      service: 'olmv1-test-registry',
      issuer: 'olmv1-test-issuer',
      credentials: { username: 'robot', password: 'hunter2' },
    });
    registry = await startRegistry({ binaries, auth: tokens.registryAuth() });
  });

  afterAll(async () => {
    await registry?.stop();
    await tokens?.stop();
  });

  it('gets a scoped bearer token with basic credentials and reuses it', async () => {
    const credentials = dockerConfigFromSecret(pullSecret({ [registry.host]: { username: 'robot', password: 'hunter2' } }));
    const authed = client({ insecureRegistries: [registry.host], credentials });
    await authed.push(`${registry.host}/team/catalog:v1`, image);
    expect(tokens.requests.flatMap((q) => q.getAll('scope'))).toContain('repository:team/catalog:pull,push');

    tokens.requests.length = 0;
    const pulled = await authed.pull(`${registry.host}/team/catalog:v1`, { owner: 'token', cache });
    expect(pulled.digest).toBe(image.digest);
    expect(tokens.requests).toHaveLength(1);
    expect(tokens.requests[0]?.getAll('scope')).toEqual(['repository:team/catalog:pull']);
    expect(tokens.requests[0]?.get('service')).toBe('olmv1-test-registry');
  });

  it('reports a token endpoint that refuses the credentials', async () => {
    const credentials = dockerConfigFromSecret(pullSecret({ [registry.host]: { username: 'robot', password: 'wrong' } }));
    const wrong = client({ insecureRegistries: [registry.host], credentials });
    const err = await errorOf(wrong.resolveDigest(`${registry.host}/team/catalog:v1`));
    expect(err.message).toBe(
      `error getting manifest: error fetching token from ${tokens.realm}: HTTP 401 Unauthorized: UNAUTHORIZED: invalid username or password`,
    );
  });
});

describe('TLS registry with a custom CA', () => {
  let registry: Registry;
  let caPem: string;

  beforeAll(async () => {
    const dir = await mkdtemp(join(work, 'tls-'));
    const ca = await createCertificateAuthority(dir, 'registry-ca', 'olmv1 test registry CA');
    const cert = await issueCertificate(ca, dir, { name: 'registry', commonName: '127.0.0.1', ipAddresses: ['127.0.0.1'], usage: 'server' });
    caPem = ca.certPem;
    registry = await startRegistry({ binaries, tls: { certPath: cert.certPath, keyPath: cert.keyPath } });
  });

  afterAll(async () => {
    await registry?.stop();
  });

  it('trusts the registry through the configured CA bundle', async () => {
    const tls = client({ caPem: () => caPem });
    await tls.push(`${registry.host}/secure/app:v1`, image);
    const pulled = await tls.pull(`${registry.host}/secure/app:v1`, { owner: 'tls', cache });
    expect(pulled.digestRef).toBe(`${registry.host}/secure/app@${image.digest}`);
  });

  it('refuses the registry without the CA, retryably, with the TLS error as cause', async () => {
    const untrusting = client({});
    const err = await errorOf(untrusting.resolveDigest(`${registry.host}/secure/app:v1`));
    expect(err.message).toMatch(new RegExp(`^error getting manifest: Get "https://${registry.host}/v2/secure/app/manifests/v1": .*certificate`));
    expect(isTerminal(err)).toBe(false);
  });
});
