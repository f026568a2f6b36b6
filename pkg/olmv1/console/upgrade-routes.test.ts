// The upgrade plan and Approve routes call pkg/olmv1/upgrade's services with the extension (and
// the version shown) and answer their values as JSON: no command line, no captured output.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestConsole, type TestConsole } from '../../../test/support/console-routes.ts';
import type { ApproveResult, UpgradePlan, UpgradePlanResult } from '../upgrade/index.ts';

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

let c: TestConsole;
beforeAll(async () => {
  c = await startTestConsole({ upgradePlan: planOf, upgradeApprove: approve });
});
afterAll(() => c.close());
const get = (path: string) => c.get(path);
const post = (path: string, body: unknown) => c.post(path, body);

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
