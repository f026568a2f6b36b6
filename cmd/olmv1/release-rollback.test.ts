import { describe, expect, it } from 'vitest';
import { captureIO } from '../../test/support/command-io.ts';
import { connectCluster, createKubeconfigLookup } from './cluster-access.ts';
import { runRelease } from './release.ts';
import { runReleaseRollback } from './release-rollback.ts';
import { fakeCluster, type FakeCluster } from '../../test/support/fake-cluster.ts';
import { clusterExtension, fakeKubeContext, objectSetHistory, seedHelmHistory } from '../../test/support/revision-fixtures.ts';

// A kubeconfig that does not exist: usage errors must be reported before any connection.
const lookup = createKubeconfigLookup({ HOME: '/nonexistent' }, '/nonexistent');

async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = captureIO();
  const code = await runReleaseRollback(args, io, {
    connectCluster: (flags) => connectCluster(flags, lookup, 1),
    // Never reached: usage errors and the missing kubeconfig stop before any catalog is read.
    catalogContent: {
      getPackage: () => Promise.reject(new Error('no catalogd here')),
      packageNames: () => Promise.reject(new Error('no catalogd here')),
      forget: () => undefined,
    },
  });
  return { code, stdout: io.out(), stderr: io.err() };
}

describe('olmv1 release rollback usage', () => {
  it('prints help on stdout with exit 0', async () => {
    const r = await run('--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: olmv1 release rollback EXT \[REVISION\] /);
    expect(r.stdout).toContain('olm.operatorframework.io/approved-bundle');
  });

  it.each([
    [[], '"rollback" takes an extension name and optionally a revision'],
    [['foo', '1', '2'], '"rollback" takes an extension name and optionally a revision'],
    [['Foo'], '"Foo" is not a ClusterExtension name'],
    [['../secrets'], '"../secrets" is not a ClusterExtension name'],
    [['a'.repeat(64)], 'is not a ClusterExtension name (a DNS-1123 subdomain of at most 63 characters)'],
    [['foo', '0'], 'REVISION must be a positive integer, got "0"'],
    [['foo', '-1'], "Unknown option '-1'"],
    [['foo', '1.5'], 'REVISION must be a positive integer, got "1.5"'],
    [['foo', '99999999999'], 'REVISION must be a positive integer, got "99999999999"'],
    [['foo', '--revision', '2'], "Unknown option '--revision'"],
    [['foo', '--system-namespace', ''], '--system-namespace must not be empty'],
    [['foo', '--context', ''], '--context must not be empty'],
    [['foo', '--dry-run=yes'], "Option '--dry-run' does not take an argument"],
    [['foo', '--catalogd-url', 'ftp://x'], 'invalid --catalogd-url "ftp://x" (want http(s)://HOST[:PORT])'],
  ])('%j is a usage error: %s', async (args, message) => {
    const r = await run(...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain('Usage: olmv1 release rollback');
  });

  it('fails with exit 1 and the places searched when there is no kubeconfig', async () => {
    const r = await run('foo', '--dry-run');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^no kubeconfig found; searched:\n/);
  });

  it('"release" with flags before "rollback" says where the word goes', async () => {
    const io = captureIO();
    const code = await runRelease(['--context', 'x', 'rollback', 'foo'], io, { kubeconfig: lookup });
    expect(code).toBe(2);
    expect(io.err()).toContain('"rollback" must follow "release" directly: olmv1 release rollback EXT [REVISION] [flags]');
  });
});

describe('olmv1 release rollback of an extension whose revisions are ClusterObjectSets', () => {
  async function on(cluster: FakeCluster, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const io = captureIO();
    const code = await runReleaseRollback(args, io, {
      connectCluster: () => fakeKubeContext(cluster),
      catalogContent: {
        getPackage: () => Promise.reject(new Error('no catalogd here')),
        packageNames: () => Promise.reject(new Error('no catalogd here')),
        forget: () => undefined,
      },
    });
    return { code, stdout: io.out(), stderr: io.err() };
  }

  it('chooses the revision from the ClusterObjectSets and checks the way back as for Helm records, writing nothing on a refusal', async () => {
    const cluster = fakeCluster();
    cluster.seed(clusterExtension('boxy'));
    for (const set of objectSetHistory('boxy')) cluster.seed(set);
    const before = cluster.writes.length;
    const r = await on(cluster, 'boxy', '--dry-run');
    // Past the revisions: revision 1 (the archived ClusterObjectSet boxy-1) chosen, then checked against the catalogs.
    expect(r.stderr).toContain('refusing to roll back "boxy" to revision 1 (demo.v1.0.0, version 1.0.0): no catalog the extension selects offers');
    expect(r.stderr).not.toContain('its revisions are ClusterObjectSets');
    expect(cluster.calls).toContain('list ClusterCatalog');
    expect(cluster.writes.length).toBe(before);
  });

  it.each([
    ['the extension has no ClusterObjectSets', {}],
    ['the cluster does not serve ClusterObjectSets', { unserved: ['olm.operatorframework.io/v1/ClusterObjectSet'] }],
  ])('goes on from the Helm records when %s', async (_, options) => {
    const cluster = fakeCluster(options);
    cluster.seed(clusterExtension('helmy'));
    await seedHelmHistory(cluster.client, 'helmy');
    const r = await on(cluster, 'helmy', '--dry-run');
    expect(r.stderr).not.toContain('ClusterObjectSets');
    // Past the records: it chose revision 1 from them and went on to check the way back against the catalogs.
    expect(r.stderr).toContain('refusing to roll back "helmy" to revision 1 (demo.v1.0.0, version 1.0.0): no catalog the extension selects offers');
    expect(cluster.calls).toContain('list ClusterCatalog');
  });
});
