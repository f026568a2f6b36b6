// Stored custom resources checked against a tightened CRD (issue 63 item 1, decision 0120;
// issue 69 items 6 and 7, decision 0129), on the real API server, registry, catalogd and
// operator-controller. A new `maximum` on a field is refused by upstream's static rules; the
// refusal keeps upstream's condition text, and, without any opt-in, the Event and `olmv1 upgrade
// plan` name the one stored object of 5,002 that violates it, the field and the rule, in the
// API server's words (the verdicts themselves are compared with the API server in
// test/integration/stored-objects-validation.test.ts). While the upgrade waits and nothing
// changes, its retries list nothing (the API server's own request counter for LIST of the
// resource stays put over several reconciles). With the opt-in annotation, fixing the object
// lets the tightening through, with no other nudge: the watch of the stored objects queues it.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { mapLimited } from '../../pkg/shared/kube/index.ts';
import { EXTENSION_CONTROLLER_NAME } from '../../pkg/operator-controller/clusterextension/index.ts';
import { fetchBundleFiles } from '../../cmd/olmv1/bundle-image.ts';
import { runUpgradePlan } from '../../cmd/olmv1/upgrade.ts';
import { createCatalogClient, createCatalogContentCache } from '../../pkg/operator-controller/catalogclient/index.ts';
import { STORED_OBJECTS_ANNOTATION } from '../../pkg/operator-controller/crdupgrade/index.ts';
import { eventsAbout } from '../support/events.ts';
import { readMetric } from '../support/operator-controller.ts';
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

/** The API server's count of LIST requests for `resource` of `group` (apiserver_request_total, every code and scope). */
async function listRequests(group: string, resource: string): Promise<number> {
  const text = String(await suite.kube.transport.request('GET', '/metrics'));
  let sum = 0;
  for (const m of text.matchAll(/^apiserver_request_total\{([^}]*)\} (\S+)$/gm)) {
    const labels = m[1] ?? '';
    if (labels.includes('verb="LIST"') && labels.includes(`group="${group}"`) && labels.includes(`resource="${resource}"`)) sum += Number(m[2]);
  }
  return sum;
}

const reconciles = () =>
  readMetric(suite.stack.controller.healthUrl, 'controller_runtime_reconcile_total', { controller: EXTENSION_CONTROLLER_NAME });

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
    // 5,000 that pass, created in parallel, and one that does not.
    const many = Array.from({ length: 5000 }, (_, i) => `w${i}`);
    await mapLimited(many, 32, (name) => client.create(widget(name, 3)));
    await client.create(widget('small', 3));
    const big = await client.create(widget('big', 10));

    // Upstream's verdict; without the opt-in the Event names `big` all the same (decision 0129).
    await offerPackage(suite.stack, pkg, [{ spec: v1 }, { spec: v2, replaces: '1.0.0' }]);
    const upstreamText =
      `error for resolved bundle "${pkg}.v2.0.0" with version "2.0.0": validating upgrade for CRD "widgets.${groupOf(pkg)}": ` +
      'v1: ^.spec.replicas: maximum: maximum constraint added when there was none previously : 5';
    await waitForExtension(client, pkg, 'blocked', (e) => e.cond('Progressing')?.message === upstreamText, 90_000);
    const named = `${pkg}/big (spec.replicas: Invalid value: 10: spec.replicas in body should be less than or equal to 5)`;
    const verdict = `CRD widgets.${groupOf(pkg)}: 1 of 5002 stored objects fail the new schema: ${named}`;
    await expect
      .poll(async () => (await eventsAbout(client, CE.kind, pkg)).some((e) => e.reason === 'PreflightFailed' && e.note.includes(verdict)), {
        timeout: 90_000,
        interval: 500,
      })
      .toBe(true);
    expect(await plan(pkg)).toContain(
      `    stored objects: ${verdict}\n` +
        `      ${pkg}/big (v1): spec.replicas: Invalid value: 10: spec.replicas in body should be less than or equal to 5\n`,
    );

    // The upgrade waits: three more reconciles (each after a nudge) list no widget.
    const lists = await listRequests(groupOf(pkg), 'widgets');
    for (let i = 1; i <= 3; i++) {
      const before = await reconciles();
      await client.patch({ ...CE, name: pkg }, { metadata: { annotations: { 'olmv1.test/nudge': String(i) } } }, 'merge');
      await expect.poll(reconciles, { timeout: 60_000, interval: 200 }).toBeGreaterThan(before);
    }
    expect(await listRequests(groupOf(pkg), 'widgets')).toBe(lists);
    const ext = await waitForExtension(client, pkg, 'still blocked', (e) => e.cond('Progressing')?.message === upstreamText, 30_000);
    expect(ext.install?.bundle.name).toBe(`${pkg}.v1.0.0`);

    // Opted in and fixed: every stored object passes, the tightening goes through with no nudge.
    await client.patch({ ...CE, name: pkg }, { metadata: { annotations: { [STORED_OBJECTS_ANNOTATION]: 'true' } } }, 'merge');
    await client.update({ ...big, spec: { replicas: 4 } });
    await waitForExtension(client, pkg, 'upgraded', installedAs(`${pkg}.v2.0.0`), 90_000);
  });
});
