// The containers signature policy end to end: catalogd and operator-controller read a policy.json
// that requires this run's bundles and catalog to be signed by a GnuPG key made here (signatures
// made by `skopeo copy --sign-by`, found through a registries.d file:// lookaside). The signed
// catalog serves; a ClusterExtension on the unsigned bundle is refused with containers/image's
// text; moved to the signed bundle, it installs.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLUSTER_CATALOG, CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import type { SignaturePolicyPaths } from '../../pkg/shared/image/index.ts';
import { condition, waitForCatalog } from '../support/catalogs.ts';
import { waitForEvent } from '../support/events.ts';
import {
  SUITE_LABEL,
  bundleFiles,
  clusterExtension,
  installedAs,
  installerFor,
  packageCatalog,
  pushBundle,
  pushCatalogFiles,
  startExtensionStack,
  waitForExtension,
  type ExtensionStack,
} from '../support/extensions.ts';
import { lookasideRegistriesD, makeGpgKey, skopeoSignedCopy } from '../support/image-signing.ts';

const registry = inject('envtestRegistries').anonymous.host;
const run = randomBytes(3).toString('hex');
const pkg = `signed-${run}`;
const signedNs = `${registry}/sig-${run}/signed`;
const stagingNs = `${registry}/sig-${run}/staging`;

let work: string;
let stack: ExtensionStack;
let unsignedRef: string;
let keyPath: string;
let catalogFiles: Record<string, string>;

/** Pushes `from` (a tag on the staging namespace) signed to `to`; returns `to`'s repository `@digest`. */
async function sign(from: string, to: string, key: Awaited<ReturnType<typeof makeGpgKey>>, registriesDir: string, digest: string): Promise<string> {
  await skopeoSignedCopy(from, to, key, registriesDir);
  return `${to.replace(/:[^:/]+$/, '')}@${digest}`;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'olmv1-sigpolicy-e2e-'));
  const key = await makeGpgKey(work, 'publisher');
  keyPath = key.publicKeyPath;
  const { registriesDir } = await lookasideRegistriesD(work);
  const policyFile = join(work, 'policy.json');
  await writeFile(
    policyFile,
    JSON.stringify({
      default: [{ type: 'insecureAcceptAnything' }],
      transports: { docker: { [signedNs]: [{ type: 'signedBy', keyType: 'GPGKeys', keyPath: key.publicKeyPath }] } },
    }),
  );
  const paths: SignaturePolicyPaths = { systemPolicy: policyFile, systemRegistriesDir: registriesDir };

  // 1.0.0 unsigned and 2.0.0 signed, both in the namespace the policy guards
  unsignedRef = await pushBundle(bundleFiles({ pkg, version: '1.0.0' }), `${signedNs}/${pkg}:v1.0.0`);
  const v2 = await pushBundle(bundleFiles({ pkg, version: '2.0.0' }), `${stagingNs}/${pkg}:v2.0.0`);
  const signedRef = await sign(`${stagingNs}/${pkg}:v2.0.0`, `${signedNs}/${pkg}:v2.0.0`, key, registriesDir, v2.split('@')[1] ?? '');
  const catalog = (catalogFiles = packageCatalog(pkg, {
    defaultChannel: 'stable',
    channels: [{ name: 'stable', entries: [{ version: '1.0.0' }, { version: '2.0.0', replaces: '1.0.0' }] }],
    bundles: [
      { version: '1.0.0', image: unsignedRef },
      { version: '2.0.0', image: signedRef },
    ],
  }));
  const catalogDigest = await pushCatalogFiles(catalog, `${stagingNs}/catalog:v1`);
  const catalogRef = await sign(`${stagingNs}/catalog:v1`, `${signedNs}/catalog:v1`, key, registriesDir, catalogDigest);

  stack = await startExtensionStack(inject('envtestControlPlane'), registry, {
    catalogd: { signaturePolicy: paths },
    controller: { signaturePolicy: paths },
  });
  const labels = clusterExtension('x', { namespace: 'x', serviceAccount: 'x', packageName: 'x' }).metadata.labels ?? {};
  await stack.kube.client.create({
    apiVersion: CLUSTER_CATALOG.apiVersion,
    kind: CLUSTER_CATALOG.kind,
    metadata: { name: `signed-${run}`, labels: { [SUITE_LABEL]: labels[SUITE_LABEL] ?? '' } },
    spec: { source: { type: 'Image', image: { ref: catalogRef } } },
  });
  await waitForCatalog(stack.kube.client, `signed-${run}`, (c) => condition(c, 'Serving')?.status === 'True', 60_000);
  await installerFor(stack.kube.client, pkg, 'installer', [
    { pkg, version: '1.0.0' },
    { pkg, version: '2.0.0' },
  ]);
}, 90_000);

afterAll(async () => {
  await stack?.stop();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe('signature policy', () => {
  it('refuses the unsigned bundle with containers/image text and a Warning Event naming the policy, then installs the signed one', async () => {
    const client = stack.kube.client;
    await client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg, version: '1.0.0' }));
    const refused = await waitForExtension(client, pkg, 'refused', (e) => (e.cond('Progressing')?.message ?? '').includes('Source image rejected'));
    expect(refused.cond('Progressing')).toMatchObject({
      status: 'True',
      reason: 'Retrying',
      message: `error for resolved bundle "${pkg}.v1.0.0" with version "1.0.0": error copying image: Source image rejected: A signature was required, but no signature exists`,
    });
    expect(refused.install).toBeUndefined();
    // What the condition, in upstream's words, does not say: the image, policy, scope and requirement.
    const event = await waitForEvent(client, 'ClusterExtension', pkg, 'PullFailed');
    expect(event).toMatchObject({ type: 'Warning' });
    expect(event.note).toMatch(
      new RegExp(
        `^Pulling bundle ${pkg}\\.v1\\.0\\.0 \\(version 1\\.0\\.0\\) failed: .*Source image rejected: A signature was required, but no signature exists` +
          ` \\(image \\S+, policy \\S+/policy.json, scope docker:\\S+, requirement \\S+`,
      ),
    );

    await client.patch(
      { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind, name: pkg },
      { spec: { source: { catalog: { version: '2.0.0' } } } },
      'merge',
    );
    await waitForExtension(client, pkg, 'installed 2.0.0', installedAs(`${pkg}.v2.0.0`), 60_000);
  }, 90_000);

  it('catalogd refuses an unsigned catalog: upstream text on Progressing, image, scope and requirement in a Warning Event', async () => {
    const name = `unsigned-${run}`;
    const ref = `${signedNs}/unsigned-catalog:v1`;
    await pushCatalogFiles(catalogFiles, ref);
    const labels = clusterExtension('x', { namespace: 'x', serviceAccount: 'x', packageName: 'x' }).metadata.labels ?? {};
    await stack.kube.client.create({
      apiVersion: CLUSTER_CATALOG.apiVersion,
      kind: CLUSTER_CATALOG.kind,
      metadata: { name, labels: { [SUITE_LABEL]: labels[SUITE_LABEL] ?? '' } },
      spec: { source: { type: 'Image', image: { ref } } },
    });
    const message = 'source catalog content: error copying image: Source image rejected: A signature was required, but no signature exists';
    const cc = await waitForCatalog(stack.kube.client, name, (c) => condition(c, 'Progressing')?.message === message, 60_000);
    expect(condition(cc, 'Serving')?.status).not.toBe('True');
    const event = await waitForEvent(stack.kube.client, 'ClusterCatalog', name, 'UnpackFailed');
    expect(event).toMatchObject({ type: 'Warning' });
    expect(event.note).toMatch(
      new RegExp(
        `^${message} \\(image ${ref}, policy \\S+/policy.json, scope docker:${signedNs}, requirement signedBy \\(GPGKeys, keyPath ${keyPath}, signedIdentity matchRepoDigestOrExact\\)\\)$`,
      ),
    );
  });
});
