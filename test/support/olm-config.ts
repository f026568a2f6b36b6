/**
 * Installs the project's cluster-wide configuration that integration tests need: the CRDs of
 * config/crd and the admission policy of config/admission, applied with kubectl
 * (server-side), then waits until the CRDs are Established and the metadata.name label policy
 * takes effect. Idempotent; safe to call from every test file.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { waitUntil as pollUntil } from '../../pkg/olmv1/localstack/index.ts';
import type { KubeClient } from '../../pkg/shared/kube/index.ts';
import type { ControlPlaneInfo } from '../envtest/index.ts';
import { waitUntil } from './bundle-flow.ts';
import { kubectlWaitEstablished } from './crd-established.ts';

const exec = promisify(execFile);
const repo = (path: string): string => fileURLToPath(new URL(`../../${path}`, import.meta.url));

/** Applies config/crd and config/admission to `cp` and waits until both work. */
export async function installOlmConfig(cp: ControlPlaneInfo): Promise<void> {
  const kubectl = (...args: string[]) => exec(cp.kubectl, ['--kubeconfig', cp.kubeconfigPath, ...args]);
  await kubectl('apply', '--server-side', '--force-conflicts', '-f', repo('config/crd'));
  await kubectlWaitEstablished(
    (args) => kubectl(...args),
    ['crd/clustercatalogs.olm.operatorframework.io', 'crd/clusterextensions.olm.operatorframework.io'],
  );
  await kubectl('apply', '--server-side', '--force-conflicts', '-f', repo('config/admission/clustercatalog-metadata-name-label.yaml'));
  // The policy type-checks against the new kind a moment after the CRD appears; until then
  // ClusterCatalog writes fail closed. Probe with a dry-run create until one is admitted.
  const probe = JSON.stringify({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name: 'admission-probe' },
    spec: { source: { type: 'Image', image: { ref: 'registry.test/probe:latest' } } },
  });
  const labelled = async (): Promise<void> => {
    const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) => {
      const child = execFile(cp.kubectl, ['--kubeconfig', cp.kubeconfigPath, 'create', '--dry-run=server', '-o', 'json', '-f', '-'], (err, out) =>
        err === null ? resolve({ stdout: out }) : reject(err),
      );
      child.stdin?.end(probe);
    });
    const labels = (JSON.parse(stdout) as { metadata: { labels?: Record<string, string> } }).metadata.labels ?? {};
    if (labels['olm.operatorframework.io/metadata.name'] !== 'admission-probe')
      throw new Error('the ClusterCatalog metadata.name label policy is not applied');
  };
  // Not vitest's vi.waitFor: the benchmarks (bench/lib/olm-stack.ts) call this outside vitest.
  await pollUntil('the ClusterCatalog metadata.name label policy', async () => (await labelled(), true), {
    timeoutMs: 60_000,
    intervalMs: 500,
  }).catch((err: unknown) => {
    throw new Error('the ClusterCatalog admission policy did not become ready', { cause: err });
  });
}

/**
 * Applies the OpenShift kinds of test/fixtures/openshift (ClusterVersion, ClusterOperator, OLM, Proxy)
 * to `cp` and waits until they are creatable, which leaves ClusterVersion `version` created.
 */
export async function installOpenShiftKinds(cp: ControlPlaneInfo, client: KubeClient): Promise<void> {
  const kubectl = (...args: string[]) => exec(cp.kubectl, ['--kubeconfig', cp.kubeconfigPath, ...args]);
  await kubectl('apply', '--server-side', '-f', repo('test/fixtures/openshift'));
  await kubectlWaitEstablished(
    (args) => kubectl(...args),
    [
      'crd/clusterversions.config.openshift.io',
      'crd/clusteroperators.config.openshift.io',
      'crd/olms.operator.openshift.io',
      'crd/proxies.config.openshift.io',
    ],
  );
  await waitUntil('OpenShift kinds are creatable', async () =>
    client.create({ apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', metadata: { name: 'version' }, spec: {} }).then(
      () => true,
      (e: unknown) => (e as { code?: number }).code === 409,
    ),
  );
}
