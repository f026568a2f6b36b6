import { describe, expect, it } from 'vitest';
import { sampleCatalogMatches, summary } from './up-summary.ts';
import type { StackFile } from './up-state.ts';

const CWD = '/repo';

function stack(ref: string, mode: StackFile['mode'] = 'local'): StackFile {
  return {
    pid: 1,
    mode,
    apiServer: 'https://127.0.0.1:6443',
    kubeconfig: '/repo/.olmv1/kubeconfig',
    ...(mode === 'local' ? { kubectl: '/repo/.olmv1/bin/kubectl' } : {}),
    registry: ref.split('/')[0] as string,
    catalog: { name: 'example-catalog', ref, url: 'http://127.0.0.1:8443/catalogs/example-catalog' },
    catalogd: { url: 'http://127.0.0.1:8443', healthUrl: 'http://127.0.0.1:8081/healthz', pid: 2, log: '/repo/.olmv1/logs/catalogd.log' },
    operatorController: { healthUrl: 'http://127.0.0.1:8082/healthz', pid: 3, log: '/repo/.olmv1/logs/operator-controller.log' },
    ports: [],
  };
}

const K = '.olmv1/bin/kubectl --kubeconfig .olmv1/kubeconfig';
const nextSteps = (text: string): string[] => text.slice(text.indexOf('Next, in another shell')).split('\n');

describe('olmv1 up summary', () => {
  it('offers all of config/samples when the sample ClusterCatalog names the registry the catalog is in', () => {
    const steps = nextSteps(summary(stack('127.0.0.1:5001/example/catalog:latest'), CWD));
    expect(steps).toContain(`  ${K} apply -f config/samples/`);
    expect(steps).toContain(`  ${K} wait --for=condition=Installed clusterextension/example-operator --timeout=120s`);
  });

  it.each([
    ['another registry port', stack('127.0.0.1:5055/example/catalog:latest')],
    ['an existing cluster and registry', stack('registry.example.com/example/catalog:latest', 'cluster')],
  ])('with %s, never tells to apply all of config/samples', (_name, s) => {
    const text = summary(s, CWD);
    expect(text).not.toContain('apply -f config/samples/\n');
    const k = s.mode === 'local' ? K : 'kubectl --kubeconfig .olmv1/kubeconfig';
    expect(nextSteps(text)).toContain(
      `  ${k} apply -f config/samples/example-operator-installer.yaml -f config/samples/olm_v1_clusterextension.yaml`,
    );
    expect(text).toContain(`the ClusterCatalog example-catalog already points at ${s.catalog?.ref}`);
  });

  it('names the node and waits for Healthy with one; says Pods stay Pending without one', () => {
    const withNode: StackFile = {
      ...stack('127.0.0.1:5001/example/catalog:latest'),
      apiServer: 'https://10.244.7.1:40000',
      node: { name: 'olmv1-node', address: '10.244.7.1', podCidr: '10.244.7.0/24', bridge: 'olmv1-ab12cd', readyAfterMs: 1500 },
    };
    const text = summary(withNode, CWD);
    expect(text).toMatch(
      /^  node {17}olmv1-node Ready \(10\.244\.7\.1, Pods 10\.244\.7\.0\/24, bridge olmv1-ab12cd; Ready 1500 ms after its kubelet started\)$/m,
    );
    expect(nextSteps(text)).toContain(`  ${K} wait --for=condition=Healthy clusterextension/example-operator --timeout=120s`);
    expect(nextSteps(text)).toContain(`  ${K} get pods -n example-operator`);

    const without = summary(stack('127.0.0.1:5001/example/catalog:latest'), CWD);
    expect(without).toMatch(/^  node {17}none: Pods stay Pending \(olmv1 up --node runs them\)$/m);
    expect(without).not.toContain('condition=Healthy');
    expect(summary(stack('registry.example.com/example/catalog:latest', 'cluster'), CWD)).not.toMatch(/^  node /m);
  });

  it("prints the console's URL with its token; in the cluster, how to start one", () => {
    const url = 'http://127.0.0.1:40001/?token=abc';
    expect(summary(stack('127.0.0.1:5001/example/catalog:latest'), CWD, url)).toMatch(
      new RegExp(`^  console {14}${url.replace(/[?]/g, '\\?')} `, 'm'),
    );
    expect(summary(stack('127.0.0.1:5001/example/catalog:latest'), CWD)).not.toMatch(/^  console /m);
    const inCluster: StackFile = {
      ...stack('127.0.0.1:5001/example/catalog:latest'),
      inCluster: { namespace: 'olmv1-system', deployments: ['a', 'b'], imageRef: 'r/i@sha256:x', revision: 'abcdef0123456789' },
    };
    expect(summary(inCluster, CWD)).toMatch(/^  console {14}npm run -s olmv1 -- console --catalogd-url URL/m);
    const withConsole: StackFile = { ...inCluster, inCluster: { ...inCluster.inCluster!, consoleUrl: 'https://10.0.0.1:30443/' } };
    expect(summary(withConsole, CWD)).toMatch(
      /^  console in cluster   https:\/\/10\.0\.0\.1:30443\/ \(NodePort; sign in with a token: .* create token SERVICEACCOUNT -n NAMESPACE\)$/m,
    );
  });

  it('tells which refs the sample ClusterCatalog matches', () => {
    expect(sampleCatalogMatches('127.0.0.1:5001/example/catalog:latest')).toBe(true);
    expect(sampleCatalogMatches('127.0.0.1:50011/example/catalog:latest')).toBe(false);
    expect(sampleCatalogMatches('localhost:5001/example/catalog:latest')).toBe(false);
  });

  it('says which gates each component runs with, defaults otherwise', () => {
    expect(summary(stack('127.0.0.1:5001/example/catalog:latest'), CWD)).toMatch(
      /^  feature gates {8}catalogd defaults; operator-controller defaults$/m,
    );
    const gated = {
      ...stack('127.0.0.1:5001/example/catalog:latest'),
      featureGates: { catalogd: ['GraphQLCatalogQueries=true'], operatorController: [] },
    };
    expect(summary(gated, CWD)).toMatch(/^  feature gates {8}catalogd GraphQLCatalogQueries=true; operator-controller defaults$/m);
  });

  it('in the cluster, names the Deployments and image instead of processes, and no host curl', () => {
    const { catalogd: _c, operatorController: _o, ...rest } = stack('10.244.7.1:40001/example/catalog:latest');
    const inCluster: StackFile = {
      ...rest,
      catalog: {
        name: 'example-catalog',
        ref: '10.244.7.1:40001/example/catalog:latest',
        url: 'https://catalogd-service.olmv1-system.svc/catalogs/example-catalog',
      },
      node: { name: 'olmv1-node', address: '10.244.7.1', podCidr: '10.244.7.0/24', bridge: 'olmv1-ab12cd', readyAfterMs: 1500 },
      inCluster: {
        namespace: 'olmv1-system',
        deployments: ['catalogd-controller-manager', 'operator-controller-controller-manager'],
        imageRef: '10.244.7.1:40001/olmv1@sha256:' + 'a'.repeat(64),
        revision: '0123456789abcdef',
      },
      featureGates: { catalogd: ['GraphQLCatalogQueries=true'], operatorController: [] },
    };
    const text = summary(inCluster, CWD);
    expect(text).toMatch(
      /^  in the cluster {7}catalogd-controller-manager and operator-controller-controller-manager Available in olmv1-system, as Pods on the node$/m,
    );
    expect(text).toMatch(/^  image {16}10\.244\.7\.1:40001\/olmv1@sha256:a{64} \(built from 0123456789ab, HEAD\)$/m);
    expect(text).not.toMatch(/^  catalogd +pid/m);
    expect(text).not.toContain('curl');
    expect(nextSteps(text)).toContain(`  ${K} logs -n olmv1-system deployment/catalogd-controller-manager`);
    expect(nextSteps(text)).toContain(`  ${K} wait --for=condition=Healthy clusterextension/example-operator --timeout=120s`);
  });
});
