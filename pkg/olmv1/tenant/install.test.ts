import { describe, expect, it } from 'vitest';
import { ApiError } from '../../shared/kube/index.ts';
import { fakeCluster } from '../../../test/support/fake-cluster.ts';
import { requestTenantInstall, type TenantInstallEvent } from './install.ts';

const request = {
  name: 'ops',
  packageName: 'argocd',
  namespace: 'team-a',
  serviceAccount: 'ops-installer',
  channels: [],
  version: '1.0.0',
  selector: undefined,
  upgradeConstraintPolicy: undefined,
  crdUpgradeSafety: undefined,
  watchNamespace: undefined,
};
const r = { request, existingServiceAccount: false, dryRun: false, wait: true, timeoutMs: 10_000, acceptCommunity: false };
/** No catalog marked Community serves the package. */
const servedBy = async () => [];
/** A clock that moves only when slept on, and lets `onSleep` act as the controller meanwhile. */
const clock = (onSleep: () => void) => {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void ((t += ms), onSleep()) };
};
const ref = { kind: 'Extension', metadata: { name: 'ops', namespace: 'team-a' } };

describe('requestTenantInstall', () => {
  it('creates the request, tells the wait, and answers the bundle once the controller reports it Installed', async () => {
    const c = fakeCluster();
    const events: TenantInstallEvent[] = [];
    const installed = () =>
      c.edit(ref, (o) => {
        o['status'] = {
          install: { bundle: { name: 'argocd.v1.0.0', version: '1.0.0' } },
          conditions: ['Allowed', 'Installed']
            .map((type) => ({ type, status: 'True', reason: 'Succeeded', observedGeneration: 1 }))
            .concat([{ type: 'Progressing', status: 'True', reason: 'Succeeded', observedGeneration: 1 }]),
        };
        o.metadata.generation = 1;
      });
    const out = await requestTenantInstall({ client: c.client, clock: clock(installed), servedBy, onEvent: (e) => events.push(e) }, r);
    expect(out).toMatchObject({ ok: true, dryRun: false, installed: { bundle: 'argocd.v1.0.0', version: '1.0.0' } });
    expect(c.writes).toEqual(['create Extension team-a/ops']);
    expect(events.map((e) => (e.type === 'waiting' ? `${e.what}: ${e.progress}` : e.type))).toEqual([
      'created',
      'waiting for Extension team-a/ops: waiting for operator-controller',
    ]);
  });

  it("answers a refusal with the rule and an existing request in the command's words, and a dry run writes nothing", async () => {
    const c = fakeCluster();
    const refuse = () =>
      c.edit(ref, (o) => {
        o['status'] = { conditions: [{ type: 'Allowed', status: 'False', reason: 'PackageNotAllowed', message: 'no', observedGeneration: 1 }] };
        o.metadata.generation = 1;
      });
    expect(await requestTenantInstall({ client: c.client, clock: clock(refuse), servedBy }, r)).toEqual({
      ok: false,
      error: 'Extension team-a/ops is refused (PackageNotAllowed): no',
    });
    expect(await requestTenantInstall({ client: c.client, clock: clock(() => undefined), servedBy }, r)).toEqual({
      ok: false,
      error: 'Extension team-a/ops exists already: change it with kubectl, or delete it first',
    });
    const d = fakeCluster();
    expect(await requestTenantInstall({ client: d.client, clock: clock(() => undefined), servedBy }, { ...r, dryRun: true })).toMatchObject({
      ok: true,
      dryRun: true,
    });
    expect(d.writes).toEqual([]);
    d.refuse('create Extension team-a/ops', new ApiError(403, 'Forbidden', 'extensions is forbidden'));
    expect(await requestTenantInstall({ client: d.client, clock: clock(() => undefined), servedBy }, r)).toEqual({
      ok: false,
      error: 'creating Extension team-a/ops: extensions is forbidden',
    });
  });

  it('refuses a request a catalog marked Community may serve until it is acknowledged; a dry run says so; other catalogs ask nothing (decision 0148)', async () => {
    const catalog = (name: string, sourceType?: string) => ({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterCatalog',
      metadata: { name, ...(sourceType === undefined ? {} : { annotations: { 'olm.operatorframework.io/source-type': sourceType } }) },
    });
    const asked: string[] = [];
    const serving =
      (...catalogs: ReturnType<typeof catalog>[]) =>
      async (req: { packageName: string }) => (asked.push(req.packageName), catalogs);
    const both = serving(catalog('certified', 'Certified'), catalog('friends', 'Community'));
    const c = fakeCluster();
    const refused = await requestTenantInstall({ client: c.client, clock: clock(() => undefined), servedBy: both }, r);
    expect(refused.ok ? '' : refused.error).toMatch(
      /^package argocd may resolve to ClusterCatalog friends \("friends"\), which the cluster's administrators mark as community content: .*--accept-community/,
    );
    expect([c.writes, asked]).toEqual([[], ['argocd']]);
    const dry = await requestTenantInstall({ client: c.client, clock: clock(() => undefined), servedBy: both }, { ...r, dryRun: true });
    expect(dry.ok && dry.community).toMatch(/^package argocd may resolve to ClusterCatalog friends /);
    expect(c.writes).toEqual([]);
    const accepted = await requestTenantInstall(
      { client: c.client, clock: clock(() => undefined), servedBy: both },
      { ...r, acceptCommunity: true, wait: false },
    );
    expect(accepted.ok && accepted.community).toMatch(/community content/);
    expect(c.writes).toEqual(['create Extension team-a/ops']);
    const d = fakeCluster();
    const plain = await requestTenantInstall(
      { client: d.client, clock: clock(() => undefined), servedBy: serving(catalog('certified')) },
      { ...r, wait: false },
    );
    expect(plain.ok && plain.community).toBeUndefined();
    expect(d.writes).toEqual(['create Extension team-a/ops']);
  });
});
