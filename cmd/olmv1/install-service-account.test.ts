// `olmv1 install --service-account NAME` (issue 62): install as an existing ServiceAccount of the
// install namespace. Nothing of the installer RBAC is created, the ClusterExtension names that
// ServiceAccount, and a ServiceAccount that is not there is refused before anything is resolved,
// pulled or written. Runs the whole command on the shared fake cluster, one catalog serving
// package `demo` and a generated bundle for the pull.
import { describe, expect, it } from 'vitest';
import { loadAll } from 'js-yaml';
import { bundleFiles } from '../../test/support/bundle-gen.ts';
import { clusterCatalogObject } from '../../test/support/cluster-catalogs.ts';
import { catalogSource, chainedPackage } from '../../test/support/extension-ports.ts';
import { fakeCluster, type FakeCluster } from '../../test/support/fake-cluster.ts';
import { fakeKubeContext } from '../../test/support/revision-fixtures.ts';
import { runInstall, type InstallDeps } from './install.ts';

const versionAnswer = <T>(): Promise<T> => Promise.resolve({ gitVersion: 'v1.33.0' } as T);

function cluster(o: { serviceAccount?: boolean; namespace?: boolean } = {}): FakeCluster {
  const c = fakeCluster({ request: versionAnswer });
  c.seed(clusterCatalogObject('c'));
  if (o.namespace !== false) c.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo' } });
  if (o.serviceAccount === true) c.seed({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'ops', namespace: 'demo' } });
  return c;
}

async function install(c: FakeCluster, args: string[]): Promise<{ code: number; stdout: string; stderr: string; pulls: number }> {
  const kube = await fakeKubeContext(c);
  const out = { stdout: '', stderr: '', pulls: 0 };
  const files = bundleFiles({ pkg: 'demo', version: '1.0.0' });
  const deps: InstallDeps = {
    connectCluster: () => Promise.resolve(kube),
    catalogContent: catalogSource(chainedPackage('demo', ['1.0.0'])).content,
    fetchBundle: () => {
      out.pulls++;
      return Promise.resolve(new Map([...files].map(([p, t]) => [p, Buffer.from(t)])));
    },
    now: () => 0,
    sleep: () => Promise.resolve(),
  };
  const io = { stdout: { write: (s: string) => (out.stdout += s) }, stderr: { write: (s: string) => (out.stderr += s) } };
  const code = await runInstall(['demo', ...args], io, deps);
  return { code, ...out };
}

const kinds = (yaml: string) => (loadAll(yaml) as { kind: string }[]).map((o) => o.kind);

describe('olmv1 install --service-account', () => {
  it('writes only the ClusterExtension, naming the existing ServiceAccount: no ServiceAccount, role or binding is created', async () => {
    const c = cluster({ serviceAccount: true });
    const r = await install(c, ['--service-account', 'ops', '--no-wait']);
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    expect(c.writes).toEqual(['create ClusterExtension demo']);
    expect(c.live({ kind: 'ClusterExtension', metadata: { name: 'demo' } })?.spec).toMatchObject({
      namespace: 'demo',
      serviceAccount: { name: 'ops' },
    });
    expect(r.stdout).toContain('as ServiceAccount ops');
  });

  it('with --dry-run prints only the ClusterExtension (and the namespace when it would be created), and writes nothing', async () => {
    const c = cluster({ serviceAccount: true });
    const r = await install(c, ['--service-account', 'ops', '--dry-run']);
    expect(r.code).toBe(0);
    expect(kinds(r.stdout)).toEqual(['ClusterExtension']);
    expect(r.stdout).toContain('name: ops');
    expect(c.writes).toEqual([]);
    // Without the flag the same dry run has the ServiceAccount and its RBAC.
    const all = await install(cluster(), ['--dry-run']);
    expect(kinds(all.stdout)).toContain('ServiceAccount');
    expect(kinds(all.stdout).length).toBeGreaterThan(2);
  });

  it('refuses a ServiceAccount that does not exist, exit 1, saying what to do, before resolving or pulling; nothing is written', async () => {
    const c = cluster();
    const r = await install(c, ['--service-account', 'ops']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ServiceAccount demo/ops not found');
    expect(r.stderr).toContain('leave out --service-account');
    expect(r.pulls).toBe(0);
    expect(c.writes).toEqual([]);
    expect(c.calls).not.toContain('list ClusterCatalog');
  });

  it('refuses it in a namespace that does not exist either (none is created)', async () => {
    const c = cluster({ namespace: false });
    const r = await install(c, ['--service-account', 'ops', '--dry-run']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ServiceAccount demo/ops not found');
    expect(c.writes).toEqual([]);
  });

  it('refuses a value that is no ServiceAccount name as a usage error, exit 2', async () => {
    const r = await install(cluster(), ['--service-account', 'Not/A-Name']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--service-account "Not/A-Name": not a ServiceAccount name');
  });

  it('is documented by --help', async () => {
    const r = await install(cluster(), ['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--service-account NAME +install as this existing ServiceAccount of the install namespace/);
  });
});
