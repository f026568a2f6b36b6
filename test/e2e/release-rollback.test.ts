// `olmv1 release rollback` end to end: real API server, registry, catalogd and
// operator-controller (as operator-controller-crd-upgrade.test.ts), the command run in this
// process with the test kubeconfig. A rollback is a spec change the controller carries out
// through its normal pipeline, with a new revision recorded; one that would drop a stored CRD
// version is refused by the CLI, and the same spec written by hand is refused by the
// controller's preflight; one that removes a CRD field is refused unless enforcement is None,
// when it is carried out with a warning.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { APPROVED_BUNDLE_ANNOTATION, CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import type { KubeClient, KubeContext, KubeObject } from '../../pkg/shared/kube/index.ts';
import { createCatalogClient, createCatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { createReleaseStore } from '../../pkg/operator-controller/release/index.ts';
import { connectCluster, createKubeconfigLookup, type ClusterFlags } from '../../cmd/olmv1/cluster-access.ts';
import { runReleaseRollback } from '../../cmd/olmv1/release-rollback.ts';
import { captureIO } from '../support/command-io.ts';
import {
  clusterExtension,
  getExtension,
  groupOf,
  installedAs,
  installerFor,
  objectExists,
  offerPackage,
  replacingChain,
  useExtensionStack,
  waitForExtension,
  type BundleSpec,
} from '../support/extensions.ts';
import { useOwnControlPlane } from '../support/own-control-plane.ts';

const run = randomBytes(3).toString('hex');
// With kube-controller-manager running, as issue #42 asks of each safety break's proof.
const suite = useExtensionStack({ controlPlane: useOwnControlPlane({ controllerManager: true }) });
const CE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };
const exec = promisify(execFile);

/** Runs the `kubectl ...` line the command printed in `output` after `prefix`, as a user pasting it into a POSIX shell would (with the test's kubectl and kubeconfig). */
async function runPrinted(output: string, prefix: string): Promise<void> {
  const line = output.split('\n').find((l) => l.trimStart().startsWith(prefix));
  if (line === undefined) throw new Error(`no line starting with ${prefix} in:\n${output}`);
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const kubectl = `${quote(suite.stack.cp.kubectl)} --kubeconfig ${quote(suite.stack.cp.kubeconfigPath)}`;
  await exec('sh', ['-c', line.trimStart().replace(/^kubectl/, () => kubectl)]);
}

/** Pushes the bundles and publishes catalog `<pkg>` with one channel, each version replacing the one before. */
async function offer(pkg: string, specs: BundleSpec[]): Promise<void> {
  await offerPackage(suite.stack, pkg, replacingChain(specs));
}

/** Installs `from` pinned by version, then changes the pin to `to` and waits for the upgrade. */
async function installThenUpgrade(pkg: string, from: BundleSpec, to: BundleSpec): Promise<void> {
  await installerFor(suite.kube.client, pkg, 'installer', [from, to]);
  await offer(pkg, [from, to]);
  await suite.kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg, version: from.version }));
  await waitForExtension(suite.kube.client, pkg, `installed ${from.version}`, installedAs(`${pkg}.v${from.version}`), 90_000);
  await suite.kube.client.patch({ ...CE, name: pkg }, { spec: { source: { catalog: { version: to.version } } } }, 'merge');
  await waitForExtension(suite.kube.client, pkg, `upgraded to ${to.version}`, installedAs(`${pkg}.v${to.version}`), 90_000);
}

/** Runs the command; `wrap` may replace the client the command gets. */
async function rollback(args: string[], wrap?: (client: KubeClient) => KubeClient): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = captureIO();
  const lookup = createKubeconfigLookup({ KUBECONFIG: suite.stack.cp.kubeconfigPath }, process.cwd());
  const connect = async (flags: ClusterFlags): Promise<KubeContext> => {
    const kube = await connectCluster(flags, lookup, 1);
    return wrap === undefined ? kube : { ...kube, client: wrap(kube.client), close: () => kube.close() };
  };
  const catalogClient = createCatalogClient();
  try {
    const code = await runReleaseRollback(args, io, {
      connectCluster: connect,
      catalogContent: createCatalogContentCache({ client: catalogClient }),
    });
    return { code, stdout: io.out(), stderr: io.err() };
  } finally {
    catalogClient.close();
  }
}

async function history(pkg: string): Promise<[number, string, string][]> {
  const records = await createReleaseStore({ client: suite.kube.client, namespace: 'olmv1-system' }).history(pkg);
  return records.map((r) => [r.revision, r.status, r.bundle.name]);
}

/** The fields a rollback writes, as they are now. */
async function rollbackFields(pkg: string): Promise<{ version?: string; policy?: string; approved?: string }> {
  const { obj } = await getExtension(suite.kube.client, pkg);
  const catalog = (obj['spec'] as { source: { catalog: { version?: string; upgradeConstraintPolicy?: string } } }).source.catalog;
  return { version: catalog.version, policy: catalog.upgradeConstraintPolicy, approved: obj.metadata.annotations?.[APPROVED_BUNDLE_ANNOTATION] };
}

describe('olmv1 release rollback', () => {
  it('goes back to the previous revision through the spec, records a new revision, and upgrades resume once the printed values are put back', async () => {
    const pkg = `rollback-${run}`;
    const v1: BundleSpec = { pkg, version: '1.0.0', configMaps: ['one'] };
    // 1.1.0 adds a CRD, which going back keeps.
    const v2: BundleSpec = { pkg, version: '1.1.0', configMaps: ['one', 'two'], crds: ['widgets', 'gadgets'] };
    const gadgets = `gadgets.${groupOf(pkg)}`;
    await installThenUpgrade(pkg, v1, v2);
    // A stale approval whose text needs shell quoting: the printed restore command must bring it back as it was.
    const stale = `it's "v1.1.0"; $(true)`;
    await suite.kube.client.patch({ ...CE, name: pkg }, { metadata: { annotations: { [APPROVED_BUNDLE_ANNOTATION]: stale } } }, 'merge');
    const before = await rollbackFields(pkg);
    expect(before).toEqual({ version: '1.1.0', policy: 'CatalogProvided', approved: stale });

    const dry = await rollback([pkg, '--dry-run']);
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(
      `Rolling back ${pkg} from the deployed revision 2 (${pkg}.v1.1.0, version 1.1.0) to revision 1 (${pkg}.v1.0.0, version 1.0.0).`,
    );
    expect(dry.stdout).toContain('merge patch (dry run, nothing written):');
    expect(await rollbackFields(pkg)).toEqual(before);

    // Someone edits the extension between the command's read and its write: nothing is overwritten.
    const racing = await rollback([pkg], (client) => ({
      ...client,
      patch: async <T extends KubeObject>(...a: Parameters<KubeClient['patch']>) => {
        await client.patch({ ...CE, name: pkg }, { metadata: { annotations: { 'olmv1.test/someone': 'else' } } }, 'merge');
        return client.patch<T>(...a);
      },
    }));
    expect(racing.code).toBe(1);
    expect(racing.stdout).toBe('');
    expect(racing.stderr).toMatch(
      new RegExp(`^ClusterExtension "${pkg}" changed while the rollback ran \\(it was read at resourceVersion \\d+\\); nothing was written`),
    );
    expect(await rollbackFields(pkg)).toEqual(before);

    // A change of what the rollback did not read (a label here; operator-controller's status
    // writes alike) moves the resourceVersion on too: the patch is sent again, once it is seen.
    let touched = false;
    const done = await rollback([pkg], (client) => ({
      ...client,
      patch: async <T extends KubeObject>(...a: Parameters<KubeClient['patch']>) => {
        if (!touched) await client.patch({ ...CE, name: pkg }, { metadata: { labels: { 'olmv1.test/touched': 'yes' } } }, 'merge');
        touched = true;
        return client.patch<T>(...a);
      },
    }));
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(done.stdout).toContain('Revision 1 was chosen: the newest earlier revision that was deployed with another bundle.');
    expect(done.stdout).toMatch(/spec\.source\.catalog\.version\s+1\.1\.0\s+1\.0\.0\n/);
    expect(done.stdout).toMatch(/spec\.source\.catalog\.upgradeConstraintPolicy\s+CatalogProvided\s+SelfCertified\n/);
    expect(done.stdout).toContain(`${stale}   ${pkg}.v1.0.0\n`);
    expect(done.stdout).toContain(`note: CRD "${gadgets}" is not part of ${pkg}.v1.0.0: operator-controller keeps CRDs`);
    expect(done.stdout).toContain(`kubectl wait clusterextension/${pkg} --for='jsonpath={.status.install.bundle.name}=${pkg}.v1.0.0' --timeout=5m`);
    expect(await rollbackFields(pkg)).toEqual({ version: '1.0.0', policy: 'SelfCertified', approved: `${pkg}.v1.0.0` });
    expect((await getExtension(suite.kube.client, pkg)).obj.metadata.labels?.['olmv1.test/touched']).toBe('yes');

    await runPrinted(done.stdout, 'kubectl wait');
    await waitForExtension(suite.kube.client, pkg, 'rolled back to 1.0.0', installedAs(`${pkg}.v1.0.0`), 90_000);
    expect(await history(pkg)).toEqual([
      [3, 'deployed', `${pkg}.v1.0.0`],
      [2, 'superseded', `${pkg}.v1.1.0`],
      [1, 'superseded', `${pkg}.v1.0.0`],
    ]);
    const records = await createReleaseStore({ client: suite.kube.client, namespace: 'olmv1-system' }).history(pkg);
    expect(records[0]?.description).toBe('Downgrade complete');
    const configMaps = (records[0]?.manifest.objects() ?? []).filter((o) => o.kind === 'ConfigMap').map((o) => o.metadata.name);
    expect(configMaps).toEqual([`${pkg}-one`]);
    expect(await objectExists(suite.kube.client, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: gadgets })).toBe(
      true,
    );

    // A careless second run: the deployed revision, a revision that never was.
    const again = await rollback([pkg, '3']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`revision 3 of "${pkg}" is the deployed revision\nRevisions ("olmv1 release history ${pkg}"):\nREVISION`);
    expect((await rollback([pkg, '9'])).stderr).toContain(`revision 9 of "${pkg}" does not exist`);
    expect((await rollback([`missing-${run}`])).stderr).toBe(`ClusterExtension "missing-${run}" not found\n`);

    // The printed restore command lets upgrades resume.
    await runPrinted(done.stdout, 'kubectl patch clusterextension');
    expect(await rollbackFields(pkg)).toEqual(before);
    await waitForExtension(suite.kube.client, pkg, 'upgraded to 1.1.0 again', installedAs(`${pkg}.v1.1.0`), 90_000);
  });

  it('refuses a rollback to a bundle no selected catalog offers any more, and writes nothing', async () => {
    const pkg = `rbgone-${run}`;
    const v1: BundleSpec = { pkg, version: '1.0.0', configMaps: ['one'] };
    const v2: BundleSpec = { pkg, version: '1.1.0', configMaps: ['one'] };
    await installThenUpgrade(pkg, v1, v2);
    // The catalog now offers 1.1.0 only: the pin 1.0.0 would resolve to nothing.
    await offer(pkg, [v2]);
    const before = await rollbackFields(pkg);
    const generation = (await getExtension(suite.kube.client, pkg)).obj.metadata.generation;

    for (const args of [[pkg], [pkg, '1', '--dry-run']]) {
      const refused = await rollback(args);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      const lines = refused.stderr.split('\n');
      expect(lines[0]).toBe(
        `refusing to roll back "${pkg}" to revision 1 (${pkg}.v1.0.0, version 1.0.0): no catalog the extension selects offers ${pkg}.v1.0.0 at version 1.0.0. Nothing was changed.`,
      );
      expect(lines[1]).toMatch(new RegExp(`^catalogs searched: (.*, )?"${pkg}"(, .*)?$`));
      expect(lines[2]).toBe(
        `operator-controller would report: error upgrading from currently installed version "1.1.0": no bundles found for package "${pkg}" matching version "1.0.0"`,
      );
      expect(lines).toContain('versions: 1.1.0');
      expect(refused.stderr).toContain(`To go back, publish ${pkg}.v1.0.0 in a catalog that spec.source.catalog.selector selects`);
    }
    expect(await rollbackFields(pkg)).toEqual(before);
    expect((await getExtension(suite.kube.client, pkg)).obj.metadata.generation).toBe(generation);
    expect(await history(pkg)).toEqual([
      [2, 'deployed', `${pkg}.v1.1.0`],
      [1, 'superseded', `${pkg}.v1.0.0`],
    ]);
  });

  it('refuses a rollback that would drop a stored CRD version, as the controller refuses the same spec written by hand', async () => {
    const pkg = `rbstored-${run}`;
    const size = { size: { type: 'integer' } };
    const v1: BundleSpec = { pkg, version: '1.0.0', crdVersions: [{ name: 'v1', spec: size }] };
    // 2.0.0 adds v2 and stores at it: the API server adds v2 to status.storedVersions.
    const v2: BundleSpec = {
      pkg,
      version: '2.0.0',
      crdVersions: [
        { name: 'v1', spec: size, storage: false },
        { name: 'v2', spec: size, storage: true },
      ],
    };
    await installThenUpgrade(pkg, v1, v2);
    await suite.kube.client.create({ apiVersion: `${groupOf(pkg)}/v2`, kind: 'Widget', metadata: { name: 'w', namespace: pkg }, spec: { size: 3 } });
    const crdName = `widgets.${groupOf(pkg)}`;

    const refused = await rollback([pkg]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(
      `refusing to roll back "${pkg}" to revision 1 (${pkg}.v1.0.0): operator-controller's CRD upgrade-safety preflight would block it. Nothing was changed.\n` +
        `CRD "${crdName}" may have objects stored at [v2] (status.storedVersions), which ${pkg}.v1.0.0 does not define: they could no longer be read.\n`,
    );
    expect(refused.stderr).toContain(`kubectl patch crd ${crdName} --subresource=status --type=merge -p '{"status":{"storedVersions":["v1"]}}'`);
    expect(refused.stderr).toContain(`validating upgrade for CRD "${crdName}": storedVersionRemoval: stored versions removed : [v2]`);
    expect(await rollbackFields(pkg)).toEqual({ version: '2.0.0', policy: 'CatalogProvided', approved: undefined });
    expect(await history(pkg)).toEqual([
      [2, 'deployed', `${pkg}.v2.0.0`],
      [1, 'superseded', `${pkg}.v1.0.0`],
    ]);

    // The same spec by hand: the controller's preflight refuses it and 2.0.0 keeps running.
    await suite.kube.client.patch(
      { ...CE, name: pkg },
      {
        metadata: { annotations: { [APPROVED_BUNDLE_ANNOTATION]: `${pkg}.v1.0.0` } },
        spec: { source: { catalog: { version: '1.0.0', upgradeConstraintPolicy: 'SelfCertified' } } },
      },
      'merge',
    );
    const blocked = await waitForExtension(
      suite.kube.client,
      pkg,
      'rollback blocked by the preflight',
      (e) => (e.cond('Progressing')?.message ?? '').includes('storedVersionRemoval'),
      90_000,
    );
    expect(blocked.cond('Progressing')).toMatchObject({
      reason: 'Retrying',
      message: `error for resolved bundle "${pkg}.v1.0.0" with version "1.0.0": validating upgrade for CRD "${crdName}": storedVersionRemoval: stored versions removed : [v2]`,
    });
    expect(blocked.install?.bundle.name).toBe(`${pkg}.v2.0.0`);
    expect(await history(pkg)).toEqual([
      [2, 'deployed', `${pkg}.v2.0.0`],
      [1, 'superseded', `${pkg}.v1.0.0`],
    ]);
  });
  it('refuses going back from a bundle that added a CRD field unless enforcement is None, then warns and goes back', async () => {
    const pkg = `rbfield-${run}`;
    const v1: BundleSpec = { pkg, version: '1.0.0', crdVersions: [{ name: 'v1', spec: { size: { type: 'integer' } } }] };
    const v2: BundleSpec = { pkg, version: '1.1.0', crdVersions: [{ name: 'v1', spec: { size: { type: 'integer' }, color: { type: 'string' } } }] };
    await installThenUpgrade(pkg, v1, v2);
    const crdName = `widgets.${groupOf(pkg)}`;
    const block = `validating upgrade for CRD "${crdName}": existingFieldRemoval: removed field : v1.^.spec.color`;

    const refused = await rollback([pkg, '1']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${block}\n`);
    expect(refused.stderr).toContain('set spec.install.preflight.crdUpgradeSafety.enforcement to None');
    expect(await rollbackFields(pkg)).toEqual({ version: '1.1.0', policy: 'CatalogProvided', approved: undefined });

    await suite.kube.client.patch({ ...CE, name: pkg }, { spec: { install: { preflight: { crdUpgradeSafety: { enforcement: 'None' } } } } }, 'merge');
    const warned = await rollback([pkg, '1']);
    expect(warned.stderr).toBe('');
    expect(warned.code).toBe(0);
    expect(warned.stdout).toContain(`warning: enforcement is None, so operator-controller applies this unsafe CRD change:\n${block}`);
    await waitForExtension(suite.kube.client, pkg, 'rolled back to 1.0.0', installedAs(`${pkg}.v1.0.0`), 90_000);
    const crd = await suite.kube.client.get({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: crdName });
    const props = (crd['spec'] as { versions: { schema: { openAPIV3Schema: { properties: { spec: { properties: object } } } } }[] }).versions[0]
      ?.schema.openAPIV3Schema.properties.spec.properties;
    expect(Object.keys(props ?? {})).toEqual(['size']);
  });
});
