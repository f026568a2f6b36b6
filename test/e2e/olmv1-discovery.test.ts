// Discovery against the real API server and catalogd (issue #27): `olmv1 catalog list|search`
// read the cluster's ClusterCatalogs through catalogd's content API, and `olmv1 resolve
// --cluster` resolves for a live ClusterExtension from its catalogs and its installed version
// (release records), with the message operator-controller itself sets.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { loadAll } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { runCatalogList } from '../../cmd/olmv1/catalog-list.ts';
import { runResolve } from '../../cmd/olmv1/resolve.ts';
import { createCatalogClient, createCatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { loadFS } from '../../pkg/shared/fbc/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import {
  applyAsAdmin,
  bundleFiles,
  clusterExtension,
  installedAs,
  packageCatalog,
  publishCatalog,
  pushBundle,
  requestRefusedVersion,
  useExtensionStack,
  waitForExtension,
} from '../support/extensions.ts';

const run = randomBytes(3).toString('hex');
const suite = useExtensionStack({ controller: { defaultInstallServiceAccount: { namespace: 'olmv1-system', name: 'olmv1-default-installer' } } });
const client = createCatalogClient();
afterAll(() => client.close());

async function cli(command: 'list' | 'resolve', args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  // The suite's admin connection, kept open by the suite (close is the suite's business).
  const connectCluster = () => Promise.resolve({ ...suite.kube, close: () => undefined });
  const code =
    command === 'list'
      ? await runCatalogList(
          args,
          io,
          { loadCatalogDir: loadFS, isDirectory: () => false, catalogClient: client, connectCluster, now: Date.now },
          false,
        )
      : await runResolve(args, io, { loadCatalogDir: loadFS, connectCluster, catalogContent: createCatalogContentCache({ client }) });
  return { code, stdout, stderr };
}

describe('olmv1 discovery on a cluster', () => {
  it('lists the ClusterCatalogs and resolves for a ClusterExtension from its installed version', async () => {
    const { kube } = suite;
    const pkg = `disc-${run}`;
    const text = await readFile(new URL('../../config/default-installer/service-account.yaml', import.meta.url), 'utf8');
    await applyAsAdmin(
      kube.client,
      (loadAll(text) as KubeObject[]).filter((o) => o !== null),
    );
    await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: pkg } });
    const images: string[] = [];
    for (const version of ['1.0.0', '2.0.0'])
      images.push(await pushBundle(bundleFiles({ pkg, version }), `${suite.registry}/bundles/${pkg}:v${version}`));
    // 2.0.0 is in `fast` only, with no edge from 1.0.0: an upgrade to it is refused.
    const files = packageCatalog(pkg, {
      defaultChannel: 'stable',
      channels: [
        { name: 'stable', entries: [{ version: '1.0.0' }] },
        { name: 'fast', entries: [{ version: '2.0.0' }] },
      ],
      bundles: [
        { version: '1.0.0', image: images[0] ?? '' },
        { version: '2.0.0', image: images[1] ?? '' },
      ],
      deprecations: [
        { reference: { schema: 'olm.channel', name: 'fast' }, message: 'fast is experimental' },
        { reference: { schema: 'olm.bundle', name: `${pkg}.v1.0.0` }, message: 'move on from 1.0.0' },
      ],
    });
    const catalogName = `disc-${run}`;
    await publishCatalog(suite.stack, catalogName, files);

    const listed = await cli('list', ['-o', 'json']);
    expect(listed.stderr).toContain(`read catalog ${catalogName}:`);
    const rows = (
      JSON.parse(listed.stdout) as {
        packages: { catalog: string; package: string; channels: unknown; deprecations: string[]; installable: object }[];
      }
    ).packages;
    expect(rows.find((r) => r.package === pkg)).toMatchObject({
      catalog: catalogName,
      channels: [
        { name: 'fast', head: { bundle: `${pkg}.v2.0.0`, version: '2.0.0' } },
        { name: 'stable', head: { bundle: `${pkg}.v1.0.0`, version: '1.0.0' } },
      ],
      deprecations: ['channel fast: fast is experimental', `bundle ${pkg}.v1.0.0: move on from 1.0.0`],
      installable: { bundle: `${pkg}.v2.0.0`, verdict: 'yes', evidence: 'properties-only' },
    });
    const named = await cli('list', ['--catalog', catalogName]);
    expect(named.code).toBe(0);
    expect(named.stdout.split('\n').filter((l) => l.startsWith(catalogName))).toHaveLength(1);

    const ce = clusterExtension(pkg, { namespace: pkg, serviceAccount: 'unused', packageName: pkg, channels: ['stable'], version: '1.0.0' });
    delete (ce.spec as { serviceAccount?: unknown }).serviceAccount;
    await kube.client.create(ce);
    await waitForExtension(kube.client, pkg, 'installed', installedAs(`${pkg}.v1.0.0`));

    const same = await cli('resolve', ['--cluster', pkg]);
    expect(same.code).toBe(0);
    expect(JSON.parse(same.stdout)).toEqual({
      extension: pkg,
      installed: { name: `${pkg}.v1.0.0`, version: '1.0.0', release: null },
      bundle: { name: `${pkg}.v1.0.0`, version: '1.0.0', image: images[0] },
      catalog: catalogName,
      // Only the stable channel is selected: fast's entry is left out.
      deprecation: {
        schema: 'olm.deprecations',
        package: pkg,
        entries: [{ reference: { schema: 'olm.bundle', name: `${pkg}.v1.0.0` }, message: 'move on from 1.0.0' }],
      },
    });

    // Ask for 2.0.0: no edge leads there from the installed 1.0.0, and it is not in stable.
    const ext = await requestRefusedVersion(kube.client, pkg, '2.0.0');
    const refused = await cli('resolve', ['--cluster', pkg]);
    expect(refused.code).toBe(1);
    const message = `error upgrading from currently installed version "1.0.0": no bundles found for package "${pkg}" matching version "2.0.0" in channels [stable]`;
    // The condition carries upstream's message alone; what the catalogs offer instead comes with the CLI's answer.
    expect(JSON.parse(refused.stdout)).toEqual({
      extension: pkg,
      installed: { name: `${pkg}.v1.0.0`, version: '1.0.0', release: null },
      error: message,
      hints: [
        'versions in channels "stable": 1.0.0',
        'no successor of the installed version "1.0.0" in channels "stable"',
        'upgradeConstraintPolicy: SelfCertified would allow any version of the channel, downgrades too',
      ],
    });
    expect(ext.cond('Progressing')?.message).toBe(message);

    const missing = await cli('resolve', ['--cluster', `absent-${run}`]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`ClusterExtension "absent-${run}" not found`);
  });
});
