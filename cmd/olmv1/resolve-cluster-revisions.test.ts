// `olmv1 resolve --cluster` reads what is installed as operator-controller does: the installed
// ClusterObjectSet revision under BoxcutterRuntime, the deployed Helm record otherwise (the
// revision reader of pkg/operator-controller/revisions). No catalog is served here: the resolution fails after
// the installed bundle is read, and the answer names it.
import { describe, expect, it } from 'vitest';
import { fakeCluster, type FakeCluster } from '../../test/support/fake-cluster.ts';
import { clusterExtension, fakeKubeContext, objectSetHistory, seedHelmHistory } from '../../test/support/revision-fixtures.ts';
import { runResolveCluster } from './resolve-cluster.ts';

async function resolve(cluster: FakeCluster, extension: string): Promise<{ code: number; answer: { installed: unknown; error?: string } }> {
  const kube = await fakeKubeContext(cluster);
  let stdout = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: () => true } };
  const code = await runResolveCluster(
    { extension, catalogdUrl: undefined, kubeconfig: undefined, context: undefined, systemNamespace: 'olmv1-system' },
    io,
    {
      connectCluster: () => Promise.resolve(kube),
      catalogContent: {
        getPackage: () => Promise.reject(new Error('no catalogd here')),
        packageNames: () => Promise.reject(new Error('no catalogd here')),
        forget: () => undefined,
      },
    },
  );
  return { code, answer: JSON.parse(stdout) as { installed: unknown; error?: string } };
}

describe('olmv1 resolve --cluster: the installed bundle', () => {
  it('is the installed ClusterObjectSet revision when the extension has them (BoxcutterRuntime)', async () => {
    const cluster = fakeCluster();
    cluster.seed(clusterExtension('boxy'));
    for (const set of objectSetHistory('boxy')) cluster.seed(set);
    const r = await resolve(cluster, 'boxy');
    expect(r.code).toBe(1);
    expect(r.answer.installed).toEqual({ name: 'demo.v1.1.0', version: '1.1.0', release: null });
  });

  it('is the deployed Helm record otherwise', async () => {
    const cluster = fakeCluster();
    cluster.seed(clusterExtension('helmy'));
    await seedHelmHistory(cluster.client, 'helmy');
    const r = await resolve(cluster, 'helmy');
    expect(r.answer.installed).toEqual({ name: 'demo.v1.1.0', version: '1.1.0', release: null });
  });
});
