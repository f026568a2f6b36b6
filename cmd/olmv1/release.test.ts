import { describe, expect, it } from 'vitest';
import { createKubeconfigLookup } from './cluster-access.ts';
import { table } from './io.ts';
import { runRelease } from './release.ts';
import { fakeCluster, type FakeCluster } from '../../test/support/fake-cluster.ts';
import { objectSet, objectSetHistory, seedHelmHistory } from '../../test/support/revision-fixtures.ts';

async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  // A kubeconfig that does not exist: usage errors must be reported before any connection.
  const code = await runRelease(args, io, { kubeconfig: createKubeconfigLookup({ HOME: '/nonexistent' }, '/nonexistent') });
  return { code, stdout, stderr };
}

describe('olmv1 release usage', () => {
  it('prints help on stdout with exit 0', async () => {
    const r = await run('--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: olmv1 release list /);
  });

  it.each([
    [[], 'missing subcommand'],
    [['frobnicate'], 'unknown subcommand "frobnicate"'],
    [['list', 'extra'], '"list" takes no arguments'],
    [['history'], '"history" takes exactly one extension name'],
    [['get'], '"get" takes an extension name and optionally "manifest" or "values"'],
    [['get', 'x', 'secrets'], '"get" takes an extension name and optionally "manifest" or "values"'],
    [['history', 'x', '--revision', '2'], '--revision is only valid with "get"'],
    [['get', 'x', '--revision', '0'], '--revision must be a positive integer, got "0"'],
    [['list', '--bogus'], "Unknown option '--bogus'"],
    [['list', '--context', ''], '--context must not be empty'],
    [['list', '--kubeconfig', ''], '--kubeconfig must not be empty'],
  ])('%j is a usage error: %s', async (args, message) => {
    const r = await run(...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain('Usage: olmv1 release');
  });

  it('fails with exit 1 when the kubeconfig cannot be read', async () => {
    const r = await run('list', '--kubeconfig', '/nonexistent/kubeconfig');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^unable to load kubeconfig \/nonexistent\/kubeconfig: /);
  });

  it('fails with exit 1 and the places searched when there is no kubeconfig', async () => {
    const r = await run('list');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^no kubeconfig found; searched:\n/);
    expect(r.stderr).toContain('/nonexistent/.kube/config does not exist');
  });
});

describe('table', () => {
  it('aligns columns with three spaces and no trailing padding', () => {
    expect(
      table([
        ['NAME', 'REVISION', 'STATUS'],
        ['argocd-operator', '12', 'deployed'],
        ['x', '1', 'failed'],
      ]),
    ).toBe('NAME              REVISION   STATUS\nargocd-operator   12         deployed\nx                 1          failed\n');
  });
});

describe('olmv1 release on a cluster', () => {
  const COS = 'olm.operatorframework.io/v1/ClusterObjectSet';
  async function on(cluster: FakeCluster, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
    const code = await runRelease(args, io, {
      kubeconfig: createKubeconfigLookup({ HOME: '/nonexistent' }, '/nonexistent'),
      connect: () => Promise.resolve({ client: cluster.client, close: () => undefined }),
    });
    return { code, stdout, stderr };
  }
  // The Helm-mode table as it was before ClusterObjectSets were read: no extra column.
  const HELM_HISTORY = [
    'REVISION   UPDATED                STATUS       BUNDLE        VERSION   DESCRIPTION',
    '1          2026-11-27T10:00:00Z   superseded   demo.v1.0.0   1.0.0     Install complete',
    '2          2026-11-27T10:00:00Z   deployed     demo.v1.1.0   1.1.0     Upgrade complete',
    '',
  ].join('\n');

  it('history of an extension with ClusterObjectSets shows them: name, lifecycle state, Available, Progressing', async () => {
    const cluster = fakeCluster();
    await seedHelmHistory(cluster.client, 'boxy'); // left behind by the migration: not shown
    for (const set of [...objectSetHistory('boxy'), objectSet('boxy', 3, '1.2.0', 'rolling-out')]) cluster.seed(set);
    const r = await on(cluster, 'history', 'boxy');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').map((l) => l.split(/ {3,}/));
    expect(lines[0]).toEqual([
      'REVISION',
      'UPDATED',
      'STATUS',
      'BUNDLE',
      'VERSION',
      'OBJECT SET',
      'STATE',
      'AVAILABLE',
      'PROGRESSING',
      'DESCRIPTION',
    ]);
    expect(lines.slice(1, 4)).toEqual([
      ['1', '2026-11-27T10:00:00Z', 'superseded', 'demo.v1.0.0', '1.0.0', 'boxy-1', 'Archived', 'True', 'True', 'Revision 1.0.0 has rolled out.'],
      ['2', '2026-11-27T10:00:00Z', 'deployed', 'demo.v1.1.0', '1.1.0', 'boxy-2', 'Active', 'True', 'True', 'Revision 1.1.0 has rolled out.'],
      [
        '3',
        '2026-11-27T10:00:00Z',
        'pending-upgrade',
        'demo.v1.2.0',
        '1.2.0',
        'boxy-3',
        'Active',
        'False (ProbeFailure)',
        'True',
        'Revision 1.2.0 is rolling out.',
      ],
    ]);
    const get = await on(cluster, 'get', 'boxy');
    expect(get.stdout).toContain('NAME: boxy\nREVISION: 3\nOBJECT SET: boxy-3\nSTATUS: pending-upgrade\n');
    const manifest = await on(cluster, 'get', 'boxy', 'manifest', '--revision', '2');
    expect(manifest.stdout).toContain('version: 1.1.0');
    expect(cluster.writes).toEqual([
      'create Secret olmv1-system/sh.helm.release.v1.boxy.v1',
      'create Secret olmv1-system/sh.helm.release.v1.boxy.v2',
    ]);
  });

  it('history of an extension without ClusterObjectSets prints the Helm table unchanged', async () => {
    const cluster = fakeCluster();
    await seedHelmHistory(cluster.client, 'helmy');
    for (const set of objectSetHistory('boxy')) cluster.seed(set);
    const r = await on(cluster, 'history', 'helmy');
    expect(r.stdout).toBe(HELM_HISTORY);
    const get = await on(cluster, 'get', 'helmy');
    expect(get.stdout).not.toContain('OBJECT SET');
    const list = await on(cluster, 'list');
    expect(list.stdout.split('\n').map((l) => l.split(/ {3,}/)[0])).toEqual(['NAME', 'helmy', 'boxy', '']);
  });

  it('reads Helm records, without error, when the cluster does not serve ClusterObjectSets', async () => {
    const cluster = fakeCluster({ unserved: [COS] });
    await seedHelmHistory(cluster.client, 'helmy');
    const r = await on(cluster, 'history', 'helmy');
    expect(r).toEqual({ code: 0, stdout: HELM_HISTORY, stderr: '' });
    expect((await on(cluster, 'list')).code).toBe(0);
  });
});
