import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeclarativeConfig } from '../../shared/fbc/index.ts';
import { Manifest } from '../../operator-controller/release/index.ts';
import { startConsole } from './server.ts';
import { sessionCookieName } from './security.ts';
import type { InstallRequest, InstallResult } from '../install/index.ts';

const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64');
const partition = (name: string, mediatype: string): DeclarativeConfig => ({
  packages: [{ schema: 'olm.package', name, defaultChannel: 'stable', icon: { mediatype, base64data: svg } }],
  channels: [{ schema: 'olm.channel', package: name, name: 'stable', entries: [{ name: `${name}.v1.0.0` }] }],
  bundles: [
    {
      schema: 'olm.bundle',
      package: name,
      name: `${name}.v1.0.0`,
      image: 'r/x',
      properties: [{ type: 'olm.package', value: { packageName: name, version: '1.0.0' } }],
    },
  ],
  deprecations: [],
  others: [],
});

let dir: string;
const deleted: [string, string][] = [];
const installs: InstallRequest[] = [];
/** The calls of `olmv1 release rollback`'s service (extension, revision). */
const rollbacks: [string, number][] = [];
/** The objects read (`Kind ns/name`). */
const reads: string[] = [];
/** The calls of the uninstall service (extension, preview), and the CRDs its preview reads. */
const uninstalls: [string, boolean][] = [];
let gadgets = 2;
const crdSummary = (extension: string) => ({
  ok: true as const,
  value: {
    extension,
    clusterExtension: true,
    installerObjects: [],
    installerKept: true,
    crds: {
      extension,
      crds: [
        {
          name: 'gadgets.example.com',
          uid: 'g',
          group: 'example.com',
          kind: 'Gadget',
          scope: 'Namespaced',
          customResources: [{ namespace: 'a', count: gadgets }],
        },
      ],
      refusals: [],
      unchecked: [],
    },
  },
});
let running: Awaited<ReturnType<typeof startConsole>>;
const secrets = { token: 'a'.repeat(43), cookie: 'b'.repeat(43), pageKey: 'k'.repeat(43), csrfToken: 'c'.repeat(43), iconKey: 'i'.repeat(43) };
/** The session cookie and page key: what the console's page sends. */
const session = () => ({ cookie: `${sessionCookieName(new URL(running.origin).port)}=${secrets.cookie}`, 'x-olmv1-session': secrets.pageKey });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'console-assets-'));
  await writeFile(join(dir, 'main.js'), 'export {};');
  running = await startConsole({
    port: 0,
    secrets,
    assetsDir: dir,
    log: pino({ level: 'silent' }),
    catalogTtlMs: 30_000,
    now: () => Date.now(),
    sources: {
      listCatalogs: async () => [
        { name: 'c', baseURL: 'http://catalogd/catalogs/c' },
        { name: 'unserved', baseURL: { error: 'not served yet' } },
      ],
      loadCatalog: async () => ({ packageNames: ['good', 'html'], load: (p) => partition(p, p === 'good' ? 'image/svg+xml' : 'text/html') }),
      listExtensions: async () => {
        throw Object.assign(new Error('clusterextensions.olm.operatorframework.io is forbidden: User "u" cannot list resource'), { status: 403 });
      },
      getExtension: async () => {
        throw Object.assign(new Error('not found'), { status: 404 });
      },
      extensionEvents: async () => [],
      releaseHistory: async (name) =>
        name !== 'rel'
          ? []
          : [
              {
                extension: 'rel',
                extensionUID: 'u-r',
                revision: 3,
                status: 'deployed',
                namespace: 'ops',
                bundle: { package: 'good', name: 'good.v1.0.0', version: '1.0.0', image: 'r/x' },
                manifest: Manifest.ofObjects([
                  { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'op' } },
                  { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'ws.example.com', namespace: 'x' } },
                  { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ops' } },
                ]),
                properties: [],
                description: 'Upgrade complete',
              },
            ],
      objectScope: async (type) => type.kind !== 'CustomResourceDefinition',
      getObject: async (ref) => {
        reads.push(`${ref.kind} ${ref.namespace}/${ref.name}`);
        if (ref.kind === 'Secret')
          throw Object.assign(new Error('secrets "s" is forbidden: User "u" cannot get resource "secrets"'), { status: 403 });
        if (ref.kind === 'Deployment')
          return { metadata: { generation: 1 }, status: { observedGeneration: 1, conditions: [{ type: 'Available', status: 'True' }] } };
        return { status: { conditions: [{ type: 'Established', status: 'True' }] } };
      },
      rollback: async (extension, revision) => {
        rollbacks.push([extension, revision]);
        return revision === 7
          ? { ok: false, error: 'no revision 7 of ClusterExtension "rel"\nRevisions ("olmv1 release history rel"):\n' }
          : { ok: true, report: 'Rolling back rel from the deployed revision 3 to revision 1.\n' };
      },
      crdPreview: async (extension) => ({ extension, crds: [], refusals: [], unchecked: [] }),
      installerObjects: async () => [],
      deleteExtension: async (name, uid) => void deleted.push([name, uid]),
      installState: () => ({ state: 'waiting', progress: 'waiting for operator-controller' }),
      uninstall: async (name, preview) => {
        uninstalls.push([name, preview]);
        if (name === 'shared')
          return {
            ok: false,
            error: { message: 'refusing to delete the CustomResourceDefinitions of ClusterExtension "shared"; nothing was deleted:\n' },
          };
        return crdSummary(name);
      },
      install: async (request) => {
        installs.push(request);
        return request.dryRun === true ? { ok: true, value: installed(request) } : { ok: false, error: 'error: forbidden' };
      },
    },
  });
});

/** What the install service answers for a dry run of `r`: only the ClusterExtension. */
function installed(r: InstallRequest): InstallResult {
  const { name, packageName, namespace, serviceAccount } = r.extension;
  const ce = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension', metadata: { name } };
  return {
    extension: name,
    packageName,
    namespace,
    serviceAccount,
    bundle: { name: 'good.v1.0.0', version: '1.0.0', image: 'registry.example/good:v1', catalog: 'c' },
    objects: [ce],
    written: [],
    warnings: [],
    escalations: [],
    dependencies: 0,
    installed: false,
    dryRun: true,
  };
}

afterAll(async () => {
  await running?.close();
  await rm(dir, { recursive: true, force: true });
});

const get = (path: string) => fetch(`${running.origin}${path}`, { headers: session() });

describe('console server', () => {
  it('serves icons only with image media types, sandboxed', async () => {
    const good = await get('/api/icons/c/good');
    expect(good.status).toBe(200);
    expect(good.headers.get('content-type')).toBe('image/svg+xml');
    expect(good.headers.get('content-security-policy')).toContain('sandbox');
    expect((await get('/api/icons/c/html')).status).toBe(404);
    expect((await get('/api/icons/c/missing')).status).toBe(404);
  });

  it("lists the hub even when the user may not list ClusterExtensions, with the API server's refusal and the unserved catalog as problems", async () => {
    const hub = (await (await get('/api/hub')).json()) as { tiles: { name: string; hasIcon: boolean; installed: boolean }[]; problems: string[] };
    expect(hub.tiles.map((t) => [t.name, t.hasIcon, t.installed])).toEqual([
      ['good', true, false],
      ['html', false, false],
    ]);
    expect(hub.problems).toEqual([
      'catalog unserved: not served yet',
      'ClusterExtensions (for the Installed badges): clusterextensions.olm.operatorframework.io is forbidden: User "u" cannot list resource',
    ]);
    const installed = await get('/api/extensions');
    expect(installed.status).toBe(403);
    expect(((await installed.json()) as { error: string }).error).toContain('forbidden');
  });

  it('serves only files of the bundle directory with known types', async () => {
    expect((await get('/assets/main.js')).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await get('/assets/..%2f..%2fetc%2fpasswd')).status).toBe(404);
    expect((await get('/assets/missing.js')).status).toBe(404);
  });

  const post = (path: string, body: unknown) =>
    fetch(`${running.origin}${path}`, {
      method: 'POST',
      headers: {
        ...session(),
        origin: running.origin,
        'x-csrf-token': 'c'.repeat(43),
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });

  it('uninstalls only the ClusterExtension previewed (its uid), refusing a request without one', async () => {
    expect((await post('/api/extensions/ext/uninstall', {})).status).toBe(400);
    expect((await post('/api/extensions/ext/uninstall', { uid: 'u-1' })).status).toBe(202);
    expect(deleted).toEqual([['ext', 'u-1']]);
  });

  it('deletes the CRDs too only as previewed (its digest), through the uninstall service, and shows its refusal', async () => {
    const refused = await get('/api/extensions/shared/crd-deletion');
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: string }).error).toContain(
      'refusing to delete the CustomResourceDefinitions of ClusterExtension "shared"',
    );
    expect((await post('/api/extensions/shared/uninstall', { uid: 'u-s', deleteCrds: 'x' })).status).toBe(422);
    const shown = (await (await get('/api/extensions/ext2/crd-deletion')).json()) as {
      preview: { digest: string; customResourceDefinitions: unknown[] };
    };
    expect(shown.preview.customResourceDefinitions).toHaveLength(1);
    // A custom resource made since the preview: refused, nothing deleted.
    gadgets = 3;
    expect((await post('/api/extensions/ext2/uninstall', { uid: 'u-2', deleteCrds: shown.preview.digest })).status).toBe(409);
    expect(deleted).toEqual([['ext', 'u-1']]);
    gadgets = 2;
    const done = await post('/api/extensions/ext2/uninstall', { uid: 'u-2', deleteCrds: shown.preview.digest });
    expect(done.status).toBe(200);
    expect(((await done.json()) as { deleted: { digest: string } }).deleted.digest).toBe(shown.preview.digest);
    expect(deleted).toEqual([
      ['ext', 'u-1'],
      ['ext2', 'u-2'],
    ]);
    expect(uninstalls.filter(([, preview]) => !preview)).toEqual([['ext2', false]]);
    expect((await get('/api/extensions/--x/crd-deletion')).status).toBe(400);
  });

  it("installs through olmv1 install's service: a dry run answers its objects (and their YAML), a refusal its error, an invalid form nothing", async () => {
    const form = { catalog: 'c', package: 'good', name: 'good', namespace: 'ns', channel: 'stable', version: '1.0.x', updatePolicy: 'Manual' };
    const dry = await post('/api/install', { ...form, dryRun: true });
    expect(dry.status).toBe(200);
    expect(await dry.json()).toMatchObject({
      name: 'good',
      bundle: { name: 'good.v1.0.0', version: '1.0.0' },
      objects: [{ kind: 'ClusterExtension', metadata: { name: 'good' } }],
      yaml: expect.stringContaining('kind: ClusterExtension\n'),
    });
    const real = await post('/api/install', form);
    expect(real.status).toBe(422);
    expect(((await real.json()) as { error: string }).error).toBe('error: forbidden');
    expect(installs.map((r) => [r.dryRun, r.wait, r.catalog, r.extension.namespace, r.extension.channels, r.extension.updatePolicy])).toEqual([
      [true, false, 'c', 'ns', ['stable'], 'Manual'],
      [false, false, 'c', 'ns', ['stable'], 'Manual'],
    ]);
    expect((await post('/api/install', { ...form, namespace: '--authfile=/etc/x' })).status).toBe(400);
    expect((await post('/api/install', { ...form, package: 'missing' })).status).toBe(404);
    expect(installs).toHaveLength(2);
  });

  it('signs in with the printed URL into a session the cookie alone cannot use: only the page, with its key, reaches the API', async () => {
    const signIn = await fetch(`${running.origin}/?token=${secrets.token}`, { redirect: 'manual' });
    expect(signIn.status).toBe(303);
    const location = signIn.headers.get('location') ?? '';
    expect(location).toBe(`/#olmv1-session=${secrets.pageKey}`);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(cookie).toBe(`olmv1_console_${new URL(running.origin).port}=${secrets.cookie}`);
    // What another local port gets from the browser: the cookie. It opens the page and the bundle, nothing else.
    const stolen = (path: string, init: RequestInit = {}) => fetch(`${running.origin}${path}`, { ...init, headers: { cookie, ...init.headers } });
    expect((await stolen('/')).status).toBe(200);
    expect((await stolen('/assets/main.js')).status).toBe(200);
    for (const path of ['/api/session', '/api/hub', '/api/extensions', '/api/icons/c/good']) expect((await stolen(path)).status, path).toBe(401);
    const replay = await stolen('/api/install', {
      method: 'POST',
      headers: { origin: running.origin, 'x-csrf-token': secrets.csrfToken, 'content-type': 'application/json' },
      body: JSON.stringify({ catalog: 'c', package: 'good', name: 'good', namespace: 'ns' }),
    });
    expect(replay.status).toBe(401);
    expect(installs).toHaveLength(2);
    // The page, with the key the fragment handed it: its CSRF token and icon key.
    const key = location.slice(location.indexOf('=') + 1);
    const s = await stolen('/api/session', { headers: { 'x-olmv1-session': key } });
    expect(await s.json()).toEqual({ csrfToken: secrets.csrfToken, iconKey: secrets.iconKey });
    expect((await stolen(`/api/icons/c/good?k=${secrets.iconKey}`)).status).toBe(200);
    expect((await stolen('/api/hub', { headers: { 'x-olmv1-session': key, origin: 'http://127.0.0.1:1' } })).status).toBe(403);
  });
});

describe('console server: the objects of a release and rollback', () => {
  const post = (path: string, body: unknown, csrf = true) =>
    fetch(`${running.origin}${path}`, {
      method: 'POST',
      headers: {
        ...session(),
        origin: running.origin,
        ...(csrf ? { 'x-csrf-token': 'c'.repeat(43) } : {}),
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });

  it("reads each object of the deployed release as the user, in the release's namespace when the manifest names none, a refusal being that object's", async () => {
    const res = await get('/api/extensions/rel/objects');
    expect(res.status).toBe(200);
    const v = (await res.json()) as {
      revision: number;
      objects: { kind: string; namespace: string; health: string; message: string }[];
      verdict: unknown;
    };
    expect(v.revision).toBe(3);
    expect(v.objects.map((o) => [o.kind, o.namespace, o.health, o.message])).toEqual([
      ['Deployment', 'ops', 'Healthy', ''],
      ['CustomResourceDefinition', '', 'Healthy', ''],
      ['Secret', 'ops', 'Unreadable', 'secrets "s" is forbidden: User "u" cannot get resource "secrets"'],
    ]);
    expect(v.verdict).toEqual({ status: 'True', reason: 'Healthy', message: 'All available: 1 CustomResourceDefinition, 1 Deployment' });
    expect(reads.sort()).toEqual(['CustomResourceDefinition /ws.example.com', 'Deployment ops/op', 'Secret ops/s']);
    expect(((await (await get('/api/extensions/none/objects')).json()) as { revision: number }).revision).toBe(0);
    expect((await get('/api/extensions/--x/objects')).status).toBe(400);
  });

  it("rolls back through olmv1 release rollback's service, answers its refusal as the command prints it, and calls nothing for a bad request", async () => {
    const ok = await post('/api/extensions/rel/rollback', { revision: 1 });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { report: string }).report).toContain('to revision 1');
    const refused = await post('/api/extensions/rel/rollback', { revision: 7 });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: string }).error).toBe(
      'no revision 7 of ClusterExtension "rel"\nRevisions ("olmv1 release history rel"):',
    );
    for (const revision of ['1', 0, -1, 1.5, '--dry-run', undefined])
      expect((await post('/api/extensions/rel/rollback', { revision })).status).toBe(400);
    expect((await post('/api/extensions/-x/rollback', { revision: 1 })).status).toBe(400);
    expect((await post('/api/extensions/rel/rollback', { revision: 1 }, false)).status).toBe(403);
    expect(rollbacks).toEqual([
      ['rel', 1],
      ['rel', 7],
    ]);
  });
});

describe('console server without the Catalogs, Cluster, plan and permissions sources', () => {
  const post = (path: string, body: unknown) =>
    fetch(`${running.origin}${path}`, {
      method: 'POST',
      headers: {
        ...session(),
        origin: running.origin,
        'x-csrf-token': 'c'.repeat(43),
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });

  it('checks each request before anything runs, then says which command it cannot run', async () => {
    expect((await post('/api/catalogs', { name: 'ops', image: '--kubeconfig=/x' })).status).toBe(400);
    expect((await post('/api/catalogs/-x/remove', {})).status).toBe(400);
    expect((await post('/api/extensions/ext/approve', { version: '--dry-run' })).status).toBe(400);
    expect((await get('/api/packages/c/good/rbac?namespace=Bad')).status).toBe(400);
    const add = await post('/api/catalogs', { name: 'ops', image: 'quay.io/a/c:latest' });
    expect(add.status).toBe(501);
    expect(((await add.json()) as { error: string }).error).toBe('this console cannot run olmv1 catalog add');
    expect((await get('/api/cluster')).status).toBe(501);
    expect((await get('/api/catalogs')).status).toBe(501);
    expect((await get('/api/extensions/ext/plan')).status).toBe(501);
    expect((await get('/api/packages/c/good/rbac?namespace=ns')).status).toBe(501);
    expect((await get('/api/packages/c/missing/rbac?namespace=ns')).status).toBe(404);
  });
});
