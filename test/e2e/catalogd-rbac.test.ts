// The shipped RBAC (config/rbac/catalogd.yaml) is enough for catalogd: catalogd runs with a
// token of its ServiceAccount, not as admin, through a catalog's whole life (create, serve,
// Unavailable, delete). The other shipped manifests pass a server-side dry run.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type KubeContext, connect, isNotFound } from '../../pkg/shared/kube/index.ts';
import { requestServiceAccountToken, serviceAccountKubeconfig } from '../envtest/index.ts';
import { startCatalogd, type TestCatalogd } from '../support/catalogd.ts';
import { condition, pushCatalog, simpleCatalog, waitForCatalog, writeCatalogDir } from '../support/catalogs.ts';
import { installOlmConfig } from '../support/olm-config.ts';

const exec = promisify(execFile);
const repo = (p: string): string => fileURLToPath(new URL(`../../${p}`, import.meta.url));
const id = randomBytes(3).toString('hex');
const CC = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog' };
let kube: KubeContext;
let catalogd: TestCatalogd;
let kubeconfigDir: string | undefined;

beforeAll(async () => {
  const cp = inject('envtestControlPlane');
  await installOlmConfig(cp);
  kube = await connect({ kind: 'file', path: cp.kubeconfigPath });
  const kubectl = (...args: string[]) => exec(cp.kubectl, ['--kubeconfig', cp.kubeconfigPath, ...args]);
  await kubectl('apply', '--server-side', '-f', repo('config/namespace.yaml'), '-f', repo('config/rbac/catalogd.yaml'));
  const token = await requestServiceAccountToken({ ...cp, token: cp.adminToken } as never, 'olmv1-system', 'catalogd-controller-manager');
  kubeconfigDir = await mkdtemp(join(tmpdir(), 'catalogd-sa-'));
  const kubeconfig = join(kubeconfigDir, 'kubeconfig');
  await writeFile(kubeconfig, serviceAccountKubeconfig(cp, token));
  catalogd = await startCatalogd(cp, { kubeconfig, leaderElectionId: `catalogd-rbac-${id}` });
});

afterAll(async () => {
  await catalogd?.destroy();
  kube?.close();
  if (kubeconfigDir !== undefined) await rm(kubeconfigDir, { recursive: true, force: true });
});

describe('catalogd as its ServiceAccount', () => {
  it('manages a catalog from creation to deletion with only the shipped permissions', async () => {
    const name = `rbac-${id}`;
    const ref = `${inject('envtestRegistries').anonymous.host}/rbac/${name}:v1`;
    await pushCatalog(await writeCatalogDir(simpleCatalog('rbac', ['1.0.0'])), ref);
    await kube.client.create({ ...CC, metadata: { name }, spec: { source: { type: 'Image', image: { ref } } } });
    await waitForCatalog(kube.client, name, (c) => condition(c, 'Serving')?.status === 'True');
    expect((await fetch(`${catalogd.url}/catalogs/${name}/api/v1/all`)).status).toBe(200);

    await kube.client.patch({ ...CC, name }, { spec: { availabilityMode: 'Unavailable' } }, 'merge');
    await waitForCatalog(kube.client, name, (c) => condition(c, 'Serving')?.reason === 'UserSpecifiedUnavailable');
    await kube.client.patch({ ...CC, name }, { spec: { availabilityMode: 'Available' } }, 'merge');
    await waitForCatalog(kube.client, name, (c) => condition(c, 'Serving')?.status === 'True');

    await kube.client.delete({ ...CC, name });
    await expect
      .poll(
        () =>
          kube.client.get({ ...CC, name }).then(
            () => 'present',
            (e: unknown) => (isNotFound(e) ? 'gone' : 'present'),
          ),
        { timeout: 30_000, interval: 200, message: 'the finalizer is removed and the ClusterCatalog gone' },
      )
      .toBe('gone');
    expect((await fetch(`${catalogd.url}/catalogs/${name}/api/v1/all`)).status).toBe(404);
  });

  it('ships manifests the API server accepts', async () => {
    const cp = inject('envtestControlPlane');
    const { stdout } = await exec(cp.kubectl, [
      '--kubeconfig',
      cp.kubeconfigPath,
      'apply',
      '-k',
      repo('config'),
      '--server-side',
      '--dry-run=server',
      '--force-conflicts',
    ]);
    expect(stdout).toContain('deployment.apps/catalogd-controller-manager serverside-applied (server dry run)');
    expect(stdout).toContain('service/catalogd-service serverside-applied (server dry run)');
  });
});
