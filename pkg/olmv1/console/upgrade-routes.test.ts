// The upgrade plan and Approve routes call pkg/olmv1/upgrade's services with the extension (and
// the version shown) and answer their values as JSON: no command line, no captured output.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApproveResult, UpgradePlan, UpgradePlanResult } from '../upgrade/index.ts';
import { sessionCookieName } from './security.ts';
import { startConsole } from './server.ts';
import type { ConsoleSources } from './sources.ts';

const secrets = { token: 'a'.repeat(43), cookie: 'b'.repeat(43), pageKey: 'k'.repeat(43), csrfToken: 'c'.repeat(43), iconKey: 'i'.repeat(43) };
const plans: string[] = [];
const approvals: [string, string | undefined][] = [];

const plan: UpgradePlan = {
  extension: 'boxy',
  package: 'demo',
  installed: { bundle: 'demo.v1.1.0', version: '1.1.0', revision: 2, objectSet: 'boxy-2' },
  selection: { channels: [], versionRange: '', upgradeConstraintPolicy: 'CatalogProvided' },
  successors: [],
  pick: { bundle: 'demo.v1.2.0', version: '1.2.0', image: 'r/demo:v1.2.0', catalog: 'c', reason: 'the highest' },
  upToDate: false,
  deprecations: [],
};

function planOf(extension: string): Promise<UpgradePlanResult> {
  plans.push(extension);
  if (extension === 'gone') return Promise.resolve({ ok: false, error: 'ClusterExtension "gone" not found' });
  return Promise.resolve({ ok: true, plan });
}

function approve(extension: string, version: string | undefined): Promise<ApproveResult> {
  approvals.push([extension, version]);
  if (extension === 'raced') {
    return Promise.resolve({
      ok: false,
      error: 'ClusterExtension "raced" changed while its upgrade was being resolved: run the command again',
      rbac: { serviceAccount: 'ns/sa', bundle: 'demo.v1.2.0', grants: [{ object: 'Role ns/demo.v1.2.0', rules: ['get secrets'] }] },
    });
  }
  return Promise.resolve({
    ok: true,
    extension,
    pick: { bundle: 'demo.v1.2.0', version: '1.2.0' },
    from: { bundle: 'demo.v1.1.0', version: '1.1.0' },
    dryRun: false,
    automatic: false,
    rbac: { serviceAccount: 'ns/sa', bundle: 'demo.v1.2.0', grants: [] },
    annotation: 'olm.operatorframework.io/approved-bundle=demo.v1.2.0',
  });
}

let dir: string;
let running: Awaited<ReturnType<typeof startConsole>>;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'console-upgrade-'));
  const none = async () => [];
  const sources: ConsoleSources = {
    listCatalogs: none,
    loadCatalog: async () => ({ packageNames: [], load: () => ({ packages: [], channels: [], bundles: [], deprecations: [], others: [] }) }),
    listExtensions: none,
    getExtension: async () => ({}),
    extensionEvents: none,
    releaseHistory: none,
    crdPreview: async (extension) => ({ extension, crds: [], refusals: [], unchecked: [] }),
    installerObjects: none,
    deleteExtension: async () => undefined,
    installState: () => ({ state: 'waiting', progress: '' }),
    install: async () => ({ ok: false, error: 'not here' }),
    upgradePlan: planOf,
    upgradeApprove: approve,
  };
  running = await startConsole({
    port: 0,
    secrets,
    assetsDir: dir,
    log: pino({ level: 'silent' }),
    catalogTtlMs: 30_000,
    now: () => Date.now(),
    sources,
  });
});
afterAll(async () => {
  await running.close();
  await rm(dir, { recursive: true, force: true });
});

const headers = () => ({ cookie: `${sessionCookieName(new URL(running.origin).port)}=${secrets.cookie}`, 'x-olmv1-session': secrets.pageKey });
const get = (path: string) => fetch(`${running.origin}${path}`, { headers: headers() });
const post = (path: string, body: unknown) =>
  fetch(`${running.origin}${path}`, {
    method: 'POST',
    headers: { ...headers(), origin: running.origin, 'x-csrf-token': secrets.csrfToken, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('the upgrade routes', () => {
  it('answer the plan service’s plan as JSON, and no plan as 422 with its words', async () => {
    const res = await get('/api/extensions/boxy/plan');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ plan });
    const gone = await get('/api/extensions/gone/plan');
    expect(gone.status).toBe(422);
    expect(await gone.json()).toEqual({ error: 'ClusterExtension "gone" not found' });
    expect(plans).toEqual(['boxy', 'gone']);
  });

  it('approve through the service with the version shown, answering the approval and its lines', async () => {
    const res = await post('/api/extensions/boxy/approve', { version: '1.2.0' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      approval: { ok: true, pick: { bundle: 'demo.v1.2.0' } },
      approved:
        'ServiceAccount ns/sa already holds every permission demo.v1.2.0 needs\n' +
        'approved demo.v1.2.0 (1.2.0, from demo.v1.1.0 1.1.0) for ClusterExtension boxy: olm.operatorframework.io/approved-bundle=demo.v1.2.0',
    });
    const raced = await post('/api/extensions/raced/approve', {});
    expect(raced.status).toBe(422);
    expect(await raced.json()).toEqual({
      error: 'granted Role ns/demo.v1.2.0: get secrets\nClusterExtension "raced" changed while its upgrade was being resolved: run the command again',
    });
    expect((await post('/api/extensions/boxy/approve', { version: 'v1.2.0' })).status).toBe(400);
    expect(approvals).toEqual([
      ['boxy', '1.2.0'],
      ['raced', undefined],
    ]);
  });
});
