/**
 * The one place that pins the versions of every binary the test environment runs.
 *
 * Changing a version here is all it takes to move the whole suite: the next run builds the new
 * version from Go modules into its own cache directory (the old one stays until deleted).
 */

/** Kubernetes release whose kube-apiserver and kubectl the tests run. */
export const KUBERNETES_VERSION = 'v1.36.3';

/**
 * The oldest Kubernetes release the project supports (decision 0103): three minors before
 * KUBERNETES_VERSION, as upstream supports. Its kube-apiserver and kubectl run the
 * `integration-oldest` tests (vitest.config.ts); the newest patch the Go module proxy serves.
 */
export const OLDEST_KUBERNETES_VERSION = 'v1.33.13';

/** etcd release; the one KUBERNETES_VERSION's go.mod requires (go.etcd.io/etcd/server/v3). */
export const ETCD_VERSION = 'v3.6.8';

/** github.com/distribution/distribution/v3 release used as the OCI registry. */
export const REGISTRY_VERSION = 'v3.1.2';

/**
 * helm.sh/helm/v3 release whose `helm` CLI the tests read release records with: the Helm
 * library version upstream operator-controller builds against (its go.mod).
 */
export const HELM_VERSION = 'v3.21.3';

/**
 * github.com/coredns/coredns release the local node's cluster DNS runs (node.ts): its
 * `kubernetes` plugin serves `cluster.local` from the API server.
 */
export const COREDNS_VERSION = 'v1.15.0';

/**
 * Oldest Go toolchain that builds all of the above (Kubernetes v1.36 and distribution v3.1
 * declare `go 1.26.0`).
 */
export const MINIMUM_GO_VERSION = '1.26.0';

/**
 * Bumped whenever the way a tool is built changes (ldflags, generated sources), so a cache
 * entry made by an older recipe is rebuilt instead of silently reused.
 */
export const RECIPE_REVISION = 1;

/**
 * Maps a Kubernetes release version to its staging-module version: `v1.36.3` -> `v0.36.3`.
 * Throws for anything that is not `v1.MINOR.PATCH` (pre-release suffixes are kept).
 */
export function stagingVersionOf(kubernetesVersion: string): string {
  const match = /^v1\.(\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$/.exec(kubernetesVersion);
  if (match === null) {
    throw new Error(`not a Kubernetes v1 release version: "${kubernetesVersion}" (expected v1.MINOR.PATCH)`);
  }
  return `v0.${match[1]}`;
}

/**
 * github.com/cert-manager/cert-manager release the local node's cert-manager runs (built by
 * cert-manager-recipe.ts; the newest the Go module proxy serves).
 */
export const CERT_MANAGER_VERSION = 'v1.21.2';
