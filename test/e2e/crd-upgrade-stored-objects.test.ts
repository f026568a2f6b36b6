// Stored custom resources checked against a tightened CRD (issue 63 item 1, decision 0120), on
// the real API server, registry, catalogd and operator-controller. A new `maximum` on a field
// is refused by upstream's static rules; with the opt-in annotation the refusal stays
// (upstream's condition text) while a stored object violates it, and the Event names that
// object, the field and the rule, in the API server's words (the verdicts themselves are
// compared with the API server in test/integration/stored-objects-validation.test.ts). Once the
// object is fixed, every stored object passes and the tightening goes through.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { fetchBundleFiles } from '../../cmd/olmv1/bundle-image.ts';
import { runUpgradePlan } from '../../cmd/olmv1/upgrade.ts';
import { createCatalogClient, createCatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { STORED_OBJECTS_ANNOTATION } from '../../pkg/operator-controller/crdupgrade/index.ts';
import { eventsAbout } from '../support/events.ts';
import {
  clusterExtension,
  groupOf,
  installedAs,
  installerFor,
  offerPackage,
  useExtensionStack,
  waitForExtension,
  type BundleSpec,
} from '../support/extensions.ts';

const run = randomBytes(3).toString('hex');
const suite = useExtensionStack();
const CE = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind };

/** `olmv1 upgrade plan <name>` in-process against the suite's cluster (as test/e2e/upgrade-plan.test.ts). */
async function plan(name: string): Promise<string> {
  let stdout = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: () => true } };
  const client = createCatalogClient();
  try {
    await runUpgradePlan([name], io, {
      connectCluster: () => Promise.resolve({ ...suite.kube, close: () => undefined }),
      catalogContent: createCatalogContentCache({ client }),
      fetchBundle: (ref, access) => fetchBundleFiles(ref, { insecureRegistries: ['127.0.0.1', 'localhost'], ...access }),
    });
    return stdout;
  } finally {
    client.close();
  }
}

describe('CRD upgrade safety with stored objects', () => {
  it('refuses a tightening a stored object violates, naming it, and lets it through once every stored object passes', async () => {
    const pkg = `crdstoredobj-${run}`;
    const client = suite.kube.client;
    const v1: BundleSpec = { pkg, version: '1.0.0', crdVersions: [{ name: 'v1', spec: { replicas: { type: 'integer' } } }] };
    const v2: BundleSpec = { pkg, version: '2.0.0', crdVersions: [{ name: 'v1', spec: { replicas: { type: 'integer', maximum: 5 } } }] };
    await installerFor(client, pkg, 'installer', [v1, v2]);
    await offerPackage(suite.stack, pkg, [{ spec: v1 }]);
    await client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg }));
    await waitForExtension(client, pkg, 'installed', installedAs(`${pkg}.v1.0.0`), 90_000);

    const widget = (name: string, replicas: number) => ({
      apiVersion: `${groupOf(pkg)}/v1`,
      kind: 'Widget',
      metadata: { name, namespace: pkg },
      spec: { replicas },
    });
    await client.create(widget('small', 3));
    const big = await client.create(widget('big', 10));

    // Upstream's verdict without the opt-in; with it, the same condition text and an Event naming `big`.
    await offerPackage(suite.stack, pkg, [{ spec: v1 }, { spec: v2, replaces: '1.0.0' }]);
    const upstreamText =
      `error for resolved bundle "${pkg}.v2.0.0" with version "2.0.0": validating upgrade for CRD "widgets.${groupOf(pkg)}": ` +
      'v1: ^.spec.replicas: maximum: maximum constraint added when there was none previously : 5';
    await waitForExtension(client, pkg, 'blocked', (e) => e.cond('Progressing')?.message === upstreamText, 90_000);
    await client.patch({ ...CE, name: pkg }, { metadata: { annotations: { [STORED_OBJECTS_ANNOTATION]: 'true' } } }, 'merge');
    const named = `${pkg}/big (spec.replicas: Invalid value: 10: spec.replicas in body should be less than or equal to 5)`;
    await expect
      .poll(async () => (await eventsAbout(client, CE.kind, pkg)).some((e) => e.reason === 'PreflightFailed' && e.note.includes(named)), {
        timeout: 90_000,
        interval: 500,
      })
      .toBe(true);
    const event = (await eventsAbout(client, CE.kind, pkg)).find((e) => e.note.includes(named));
    expect(event?.note).toContain(`CRD widgets.${groupOf(pkg)}: 1 of 2 stored objects fail the new schema: ${named}`);
    const ext = await waitForExtension(client, pkg, 'still blocked', (e) => e.cond('Progressing')?.message === upstreamText, 30_000);
    expect(ext.install?.bundle.name).toBe(`${pkg}.v1.0.0`);
    expect(await plan(pkg)).toContain(
      `    stored objects: CRD widgets.${groupOf(pkg)}: 1 of 2 stored objects fail the new schema: ${named}\n` +
        `      ${pkg}/big (v1): spec.replicas: Invalid value: 10: spec.replicas in body should be less than or equal to 5\n`,
    );

    // Fixed: every stored object passes, the tightening goes through.
    await client.update({ ...big, spec: { replicas: 4 } });
    await client.patch({ ...CE, name: pkg }, { metadata: { annotations: { 'olmv1.test/nudge': '1' } } }, 'merge');
    await waitForExtension(client, pkg, 'upgraded', installedAs(`${pkg}.v2.0.0`), 90_000);
  });
});
