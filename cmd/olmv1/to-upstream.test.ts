import { describe, expect, it } from 'vitest';
import type { KubeClient, KubeObject } from '../../pkg/shared/kube/index.ts';
import { captureIO } from '../../test/support/command-io.ts';
import { fakeCluster } from '../../test/support/fake-cluster.ts';
import { connectCluster, createKubeconfigLookup } from './cluster-access.ts';
import { runMigrateToUpstream } from './to-upstream.ts';

const UNPACK = 'olm.operatorframework.io/cleanup-unpack-cache';
const UNINSTALL = 'olm.operatorframework.io/uninstall';
const NOW = Date.parse('2026-01-01T00:01:00Z');

/**
 * The cluster the command works on (fakeCluster: merge patches of metadata and of the status
 * subresource are refused with 409 when their resourceVersion is not the object's).
 * `beforePatch` runs before each patch with the number of patches so far (someone else's edit
 * in between).
 */
function fakeApi(objects: KubeObject[], beforePatch?: (n: number) => void) {
  const cluster = fakeCluster();
  for (const o of objects) cluster.seed(o);
  const patches = () => cluster.calls.filter((c) => c.startsWith('patch'));
  const client: KubeClient = {
    ...cluster.client,
    patch: (ref, body, type, o) => {
      beforePatch?.(patches().length);
      return cluster.client.patch(ref, body, type, o);
    },
  };
  const touch = (name: string) =>
    cluster.edit({ kind: 'ClusterExtension', metadata: { name } }, (live) => (live.metadata.labels = { ...live.metadata.labels, touched: 'yes' }));
  const extension = (name: string) => cluster.live({ kind: 'ClusterExtension', metadata: { name } });
  return { context: { client, close: () => undefined }, extension, patches, touch };
}

function extension(name: string, finalizers: string[], conditions: string[] = []): KubeObject {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name, resourceVersion: '1', finalizers },
    status: {
      conditions: conditions.map((type) => ({ type, status: 'True', reason: 'x', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' })),
    },
  };
}

function lease(holder: string | null): KubeObject {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: '9c4404e7.operatorframework.io', namespace: 'olmv1-system' },
    spec: { holderIdentity: holder, renewTime: '2026-01-01T00:00:55.000000Z', leaseDurationSeconds: 137 },
  };
}

async function run(api: ReturnType<typeof fakeApi>, ...args: string[]) {
  const io = captureIO();
  const code = await runMigrateToUpstream(args, io, { connectCluster: () => Promise.resolve(api.context), now: () => NOW });
  return { code, stdout: io.out(), stderr: io.err() };
}

describe('olmv1 migrate to-upstream', () => {
  it.each([
    [['extra'], "Unexpected argument 'extra'"],
    [['--lease', ''], '--lease must not be empty'],
    [['--system-namespace', ''], '--system-namespace must not be empty'],
    [['--force=yes'], "Option '--force' does not take an argument"],
  ])('%j is a usage error: %s', async (args, message) => {
    const io = captureIO();
    const lookup = createKubeconfigLookup({ HOME: '/nonexistent' }, '/nonexistent');
    const code = await runMigrateToUpstream(args, io, { connectCluster: (flags) => connectCluster(flags, lookup, 1), now: () => NOW });
    expect(code).toBe(2);
    expect(io.err()).toContain(message);
    expect(io.err()).toContain('Usage: olmv1 migrate to-upstream');
  });

  it('refuses while the Lease is held, writing nothing; --force goes on with a warning', async () => {
    const api = fakeApi([lease('operator-controller-7d9f_1'), extension('a', [UNPACK, UNINSTALL])]);
    const refused = await run(api);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('"operator-controller-7d9f_1" holds its leader Lease olmv1-system/9c4404e7.operatorframework.io');
    expect(api.patches()).toEqual([]);

    const forced = await run(api, '--force');
    expect(forced.stderr).toMatch(/^warning: operator-controller is running: .*; going on \(--force\)$/m);
    expect(forced.code).toBe(0);
    expect(api.extension('a')?.metadata.finalizers).toEqual([UNPACK]);
  });

  it('a released Lease lets it run', async () => {
    const api = fakeApi([lease(null), extension('a', [UNPACK, UNINSTALL])]);
    expect((await run(api)).code).toBe(0);
    expect(api.extension('a')?.metadata.finalizers).toEqual([UNPACK]);
  });

  it('an extension changed between read and write is read again and written, metadata then status', async () => {
    const api = fakeApi([extension('a', [UNPACK, UNINSTALL], ['Installed', 'Healthy'])], (n) => {
      if (n === 0) api.touch('a');
    });
    const r = await run(api);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // The first patch met the conflict; the second carried the resourceVersion read again.
    expect(api.patches()).toEqual(['patch ClusterExtension a', 'patch ClusterExtension a', 'patch/status ClusterExtension a']);
    expect(r.stdout).toBe(
      `ClusterExtension a: removed finalizer ${UNINSTALL}; condition Healthy\n` +
        "1 of 1 ClusterExtension(s) changed; keep this project's operator-controller stopped (it adds its finalizer back when it runs) and start upstream's\n",
    );
    const a = api.extension('a');
    expect(a?.metadata.finalizers).toEqual([UNPACK]);
    expect(a?.metadata.labels).toEqual({ touched: 'yes' });
    expect((a?.['status'] as { conditions: { type: string }[] }).conditions.map((c) => c.type)).toEqual(['Installed']);
  });

  it('gives up on an extension that keeps changing', async () => {
    const api = fakeApi([extension('a', [UNINSTALL])], () => api.touch('a'));
    const r = await run(api);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('ClusterExtension a kept changing while it was written: run the command again\n');
    expect(api.extension('a')?.metadata.finalizers).toEqual([UNINSTALL]);
  });

  it('changes nothing while one extension cannot be handed over', async () => {
    const deleting = extension('b', [UNPACK, UNINSTALL]);
    deleting.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    const api = fakeApi([extension('a', [UNPACK, UNINSTALL]), deleting]);
    const r = await run(api);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ClusterExtension b: cannot be handed over yet: it is being deleted');
    expect(r.stderr).toContain('1 ClusterExtension(s) cannot be handed over yet; nothing was changed');
    expect(api.patches()).toEqual([]);
  });
});
