// Kubernetes Events end to end (issue #27): what `kubectl get events` shows a user after an
// install, a refused install and a catalog unpack. Real kube-apiserver and registry, catalogd
// and operator-controller in this process (useExtensionStack); the events are read with the
// envtest kubectl through the core/v1 view users read (`kubectl get events`), and their series
// through events.k8s.io. Waits on the Events themselves, never on a fixed sleep.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { waitUntil } from '../support/bundle-flow.ts';
import { waitForEvent } from '../support/events.ts';
import {
  bundleFiles,
  clusterExtension,
  installedAs,
  installerFor,
  packageCatalog,
  publishCatalog,
  pushBundle,
  useExtensionStack,
  waitForExtension,
} from '../support/extensions.ts';

const run = randomBytes(3).toString('hex');
const suite = useExtensionStack();

/** `kubectl get events -n default` for one object: `TYPE REASON MESSAGE` lines. */
function kubectlEvents(name: string): Promise<string> {
  const cp = inject('envtestControlPlane');
  const args = [
    '--kubeconfig',
    cp.kubeconfigPath,
    'get',
    'events',
    '-n',
    'default',
    '--field-selector',
    `involvedObject.name=${name}`,
    '-o',
    'custom-columns=TYPE:.type,REASON:.reason,KIND:.involvedObject.kind,MESSAGE:.message',
    '--no-headers',
  ];
  return new Promise((resolve, reject) => {
    execFile(cp.kubectl, args, (err, stdout, stderr) => (err === null ? resolve(stdout) : reject(new Error(`kubectl: ${stderr}`, { cause: err }))));
  });
}

async function waitForKubectlLine(name: string, pattern: RegExp): Promise<string> {
  let out = '';
  await waitUntil(`kubectl get events shows ${String(pattern)} for ${name}`, async () => pattern.test((out = await kubectlEvents(name))), 60_000);
  return out;
}

describe('Events', () => {
  const pkg = `events-${run}`;
  const catalog = `events-${run}`;

  beforeAll(async () => {
    const { kube, registry } = suite;
    const image = await pushBundle(bundleFiles({ pkg, version: '1.0.0' }), `${registry}/bundles/${pkg}:v1.0.0`);
    await installerFor(kube.client, pkg, 'installer', [{ pkg, version: '1.0.0' }]);
    await publishCatalog(
      suite.stack,
      catalog,
      packageCatalog(pkg, {
        defaultChannel: 'stable',
        channels: [{ name: 'stable', entries: [{ version: '1.0.0' }] }],
        bundles: [{ version: '1.0.0', image }],
      }),
    );
  });

  it('records the catalog unpack with its digest on the ClusterCatalog', async () => {
    const out = await waitForKubectlLine(catalog, /^Normal\s+Unpacked\s+ClusterCatalog\s+Unpacked and serving \S+@sha256:[0-9a-f]{64}$/m);
    expect(out).not.toMatch(/Warning/);
  });

  it('records an install as Normal Installed naming the bundle and version', async () => {
    const { kube } = suite;
    await kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg }));
    await waitForExtension(kube.client, pkg, 'installed', installedAs(`${pkg}.v1.0.0`));
    await waitForKubectlLine(
      pkg,
      new RegExp(`^Normal\\s+Installed\\s+ClusterExtension\\s+Installed bundle ${pkg}\\.v1\\.0\\.0 \\(version 1\\.0\\.0\\), revision 1$`, 'm'),
    );
    const installed = await waitForEvent(kube.client, 'ClusterExtension', pkg, 'Installed');
    expect(installed).toMatchObject({ reportingController: 'olm.operatorframework.io/operator-controller', action: 'Install', count: 1 });
  });

  it('records a refused install as a Warning, repeats counted in one Event', async () => {
    const { kube } = suite;
    const name = `events-denied-${run}`;
    await kube.client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'nobody', namespace: pkg } });
    await kube.client.create(clusterExtension(name, { namespace: pkg, serviceAccount: 'nobody', packageName: pkg }));
    await waitForKubectlLine(
      name,
      new RegExp(
        `^Warning\\s+PreAuthorizationFailed\\s+ClusterExtension\\s+error for resolved bundle "${pkg}\\.v1\\.0\\.0" with version "1\\.0\\.0": pre-authorization failed: `,
        'm',
      ),
    );
    // The reconcile keeps polling the permissions: one Event whose series grows.
    await waitForEvent(kube.client, 'ClusterExtension', name, 'PreAuthorizationFailed', (e) => e.count >= 2);
    const lines = (await kubectlEvents(name)).split('\n').filter((l) => l.includes('PreAuthorizationFailed'));
    expect(lines).toHaveLength(1);
  });
});
