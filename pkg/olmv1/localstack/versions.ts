/**
 * The one place that pins the versions of every binary the test environment runs: changing one
 * here moves the whole suite (the next run builds it into a cache directory of its own).
 */

/** Kubernetes release whose kube-apiserver and kubectl the tests run. */
export const KUBERNETES_VERSION = 'v1.36.3';

/**
 * The oldest Kubernetes release the project supports (decision 0103): three minors before
 * KUBERNETES_VERSION, as upstream supports; its binaries run the `integration-oldest` tests.
 */
export const OLDEST_KUBERNETES_VERSION = 'v1.33.13';

/** etcd release; the one KUBERNETES_VERSION's go.mod requires (go.etcd.io/etcd/server/v3). */
export const ETCD_VERSION = 'v3.6.8';

/** github.com/distribution/distribution/v3 release used as the OCI registry. */
export const REGISTRY_VERSION = 'v3.1.2';

/** helm.sh/helm/v3 release of the tests' `helm` CLI: the one upstream operator-controller uses. */
export const HELM_VERSION = 'v3.21.3';

/** github.com/coredns/coredns release of the local node's cluster DNS (node.ts). */
export const COREDNS_VERSION = 'v1.15.0';

/** github.com/cert-manager/cert-manager release of the local node's cert-manager. */
export const CERT_MANAGER_VERSION = 'v1.21.2';

/** Oldest Go that builds all of the above (Kubernetes v1.36 and distribution v3.1 say `go 1.26.0`). */
export const MINIMUM_GO_VERSION = '1.26.0';

/** Bumped when the way a tool is built changes, so a cache entry of an older recipe is rebuilt. */
export const RECIPE_REVISION = 1;

/** The staging modules' version of a Kubernetes release (`v1.36.3` -> `v0.36.3`); throws otherwise. */
export function stagingVersionOf(kubernetesVersion: string): string {
  const match = /^v1\.(\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$/.exec(kubernetesVersion);
  if (match === null) {
    throw new Error(`not a Kubernetes v1 release version: "${kubernetesVersion}" (expected v1.MINOR.PATCH)`);
  }
  return `v0.${match[1]}`;
}
