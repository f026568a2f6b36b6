/**
 * The small workload the `in-cluster` benchmark measures both components under, as Pods and as
 * host processes alike: the example catalog (cmd/olmv1 up's, pushed by `pushExample`) served
 * by a ClusterCatalog, and the example operator installed from it by a ClusterExtension as a
 * ServiceAccount bound to cluster-admin (test/e2e/on-node.test.ts does the same).
 */
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { pushExample } from '../../cmd/olmv1/up-example.ts';
import { runCommand } from '../../pkg/olmv1/localstack/index.ts';

/** kubectl against one control plane; resolves with stdout. */
export type BenchKubectl = (args: readonly string[], input?: string) => Promise<string>;

/** kubectl of a control plane's `info` (its binary and admin kubeconfig). */
export function kubectlOf(info: { kubectl: string; kubeconfigPath: string }): BenchKubectl {
  return async (args, input) =>
    (await runCommand(info.kubectl, ['--kubeconfig', info.kubeconfigPath, ...args], input === undefined ? {} : { input })).stdout;
}

const CATALOG = 'example-catalog';
const EXTENSION = 'example-operator';

/** Milliseconds from the push to the catalog Serving, and from the ClusterExtension's apply to each condition. */
export interface WorkloadTimes {
  pushMs: number;
  servingMs: number;
  installedMs: number;
  /** Healthy=True (its operator's Pod runs): only on a node. */
  healthyMs: number | undefined;
}

/**
 * Pushes the example to `registry` (plain HTTP), serves it with a ClusterCatalog and installs
 * the example operator; waits for Healthy too when `healthy` (a node runs its Pod).
 */
export async function runExampleWorkload(opts: {
  kubectl: BenchKubectl;
  repo: string;
  registry: string;
  workDir: string;
  env: NodeJS.ProcessEnv;
  healthy: boolean;
}): Promise<WorkloadTimes> {
  const { kubectl } = opts;
  const apply = (obj: object): Promise<string> => kubectl(['apply', '--server-side', '-f', '-'], JSON.stringify(obj));
  const wait = (condition: string, object: string): Promise<string> => kubectl(['wait', `--for=condition=${condition}`, object, '--timeout=180s']);
  let t = performance.now();
  const example = await pushExample(opts.repo, opts.registry, [opts.registry], await mkdtemp(join(opts.workDir, 'example-')), opts.env);
  const pushMs = performance.now() - t;
  t = performance.now();
  await apply({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name: CATALOG },
    spec: { source: { type: 'Image', image: { ref: example.catalogRef } } },
  });
  await wait('Serving', `clustercatalog/${CATALOG}`);
  const servingMs = performance.now() - t;
  await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: EXTENSION } });
  await apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer', namespace: EXTENSION } });
  await apply({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'example-operator-installer' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'ServiceAccount', name: 'installer', namespace: EXTENSION }],
  });
  t = performance.now();
  await apply({
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name: EXTENSION },
    spec: {
      namespace: EXTENSION,
      serviceAccount: { name: 'installer' },
      source: { sourceType: 'Catalog', catalog: { packageName: 'example-operator', channels: ['stable'] } },
    },
  });
  await wait('Installed', `clusterextension/${EXTENSION}`);
  const installedMs = performance.now() - t;
  let healthyMs: number | undefined;
  if (opts.healthy) {
    await wait('Healthy', `clusterextension/${EXTENSION}`);
    healthyMs = performance.now() - t;
  }
  return { pushMs, servingMs, installedMs, healthyMs };
}
