/**
 * How each pinned tool is built from Go modules: which upstream module and version, which main
 * packages become which binaries, the version stamps, and how a built binary proves its version.
 * One cache directory per recipe (`<name>-<version>/`). The Kubernetes binaries come in several
 * recipes (kube-apiserver and kubectl, kube-controller-manager, the node's) so that adding one
 * left the entries already cached valid; CoreDNS and the registry (plus `htpasswd`, our bcrypt
 * helper) are mains of ours composed from their packages.
 */
import {
  COREDNS_VERSION,
  ETCD_VERSION,
  HELM_VERSION,
  KUBERNETES_VERSION,
  OLDEST_KUBERNETES_VERSION,
  REGISTRY_VERSION,
  stagingVersionOf,
} from './versions.ts';

/** A binary of a recipe: its file name and the Go main package it is built from. */
interface RecipeBinary {
  name: string;
  /** Import path of an upstream main, or `./dir` for a main we write (see `sources`). */
  pkg: string;
}

/** Proof that a built binary is the intended version: run `args`, find `expect` in stdout. */
interface VersionProbe {
  binary: string;
  args: string[];
  expect: string;
}

/** Everything needed to build one tool from Go modules. */
export interface ToolRecipe {
  /** Cache directory prefix and progress-message name. */
  name: 'kubernetes' | 'kube-controller-manager' | 'kube-node' | 'coredns' | 'etcd' | 'registry' | 'helm' | 'cert-manager' | 'cosign';
  /** The upstream release, also the cache directory suffix. */
  version: string;
  /** Upstream module required at `version`. */
  module: string;
  /** Version that siblings replaced by local paths in the upstream go.mod are pinned to. */
  siblingVersion: string;
  binaries: RecipeBinary[];
  /** Extra files of the generated module (path relative to its root -> content). */
  sources: Record<string, string>;
  /**
   * Path of the generated module (default `olmv1.local/envtest/<name>`): a main of ours that
   * uses an upstream module's `internal/` packages must live under that module's path.
   */
  modulePath?: string;
  /** Directories of the upstream module copied into the cache entry beside the binaries. */
  moduleDirs?: string[];
  /** `-X` ldflags stamps. */
  stamps: Record<string, string>;
  probes: VersionProbe[];
  /** User + system seconds of a build with an empty Go build cache (see coldBuildEstimate). */
  coldBuildCpuSeconds: number;
}

/**
 * How long cold builds of `recipes`, one after another, take on `cores` idle cores: `about 7
 * minutes on 2 idle cores` (Go compiles in parallel; a busy machine takes longer). The CPU times
 * are measured or scaled from a measured build by the Go source compiled (decision 0010,
 * bench/results/envtest-builds.md).
 */
export function coldBuildEstimate(recipes: readonly ToolRecipe[], cores: number): string {
  const cpu = recipes.reduce((sum, r) => sum + r.coldBuildCpuSeconds, 0);
  const minutes = Math.max(1, Math.round(cpu / Math.max(1, cores) / 60));
  return `about ${minutes} minute${minutes === 1 ? '' : 's'} on ${cores} idle core${cores === 1 ? '' : 's'}`;
}

/**
 * Binaries of k8s.io/kubernetes at `version` (a Kubernetes release; its staging modules are
 * pinned to the same minor and patch), each built from `cmd/<binary>` and stamped as a release.
 */
function kubernetesRecipe(name: ToolRecipe['name'], version: string, binaries: string[], coldBuildCpuSeconds: number): ToolRecipe {
  const match = /^v(\d+)\.(\d+)\./.exec(version);
  const stamps: Record<string, string> = {};
  for (const pkg of ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']) {
    stamps[`${pkg}.gitVersion`] = version;
    stamps[`${pkg}.gitMajor`] = match?.[1] ?? '';
    stamps[`${pkg}.gitMinor`] = match?.[2] ?? '';
    stamps[`${pkg}.gitTreeState`] = 'clean';
  }
  return {
    name,
    version,
    module: 'k8s.io/kubernetes',
    siblingVersion: stagingVersionOf(version),
    binaries: binaries.map((binary) => ({ name: binary, pkg: `k8s.io/kubernetes/cmd/${binary}` })),
    sources: {},
    stamps,
    probes: binaries.map((binary) =>
      binary === 'kubectl'
        ? { binary, args: ['version', '--client'], expect: `Client Version: ${version}` }
        : { binary, args: ['--version'], expect: `Kubernetes ${version}` },
    ),
    coldBuildCpuSeconds,
  };
}

/** kube-apiserver + kubectl at KUBERNETES_VERSION. */
export const KUBERNETES_RECIPE: ToolRecipe = kubernetesRecipe('kubernetes', KUBERNETES_VERSION, ['kube-apiserver', 'kubectl'], 780);

/** kube-apiserver + kubectl at OLDEST_KUBERNETES_VERSION (decision 0103), CPU time measured. */
export const OLDEST_KUBERNETES_RECIPE: ToolRecipe = kubernetesRecipe('kubernetes', OLDEST_KUBERNETES_VERSION, ['kube-apiserver', 'kubectl'], 450);

/**
 * kube-controller-manager at KUBERNETES_VERSION. Its CPU time is a build after KUBERNETES_RECIPE
 * (resolveBinaries' order), on Go's warm build cache; alone it takes several times longer.
 */
export const KUBE_CONTROLLER_MANAGER_RECIPE: ToolRecipe = kubernetesRecipe(
  'kube-controller-manager',
  KUBERNETES_VERSION,
  ['kube-controller-manager'],
  90,
);

/** The local node's kubelet, kube-scheduler and kube-proxy at KUBERNETES_VERSION (decision 0101). */
export const KUBE_NODE_RECIPE: ToolRecipe = kubernetesRecipe('kube-node', KUBERNETES_VERSION, ['kubelet', 'kube-scheduler', 'kube-proxy'], 300);

const COREDNS_MAIN = `// Command coredns runs CoreDNS with the plugins the local node's cluster DNS uses; the other
// plugins (cloud zones, etcd, forwarding, ...) are left out to keep the build short.
package main

import (
	_ "github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"
	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

func main() {
	coremain.Run()
}
`;

/** CoreDNS at COREDNS_VERSION (its version is compiled in, no stamps needed). */
export const COREDNS_RECIPE: ToolRecipe = {
  name: 'coredns',
  version: COREDNS_VERSION,
  module: 'github.com/coredns/coredns',
  siblingVersion: COREDNS_VERSION,
  binaries: [{ name: 'coredns', pkg: './cmd/coredns' }],
  sources: { 'cmd/coredns/main.go': COREDNS_MAIN },
  stamps: {},
  probes: [{ binary: 'coredns', args: ['-version'], expect: `CoreDNS-${COREDNS_VERSION.slice(1)}` }],
  coldBuildCpuSeconds: 300,
};

/** etcd at ETCD_VERSION (its version is compiled in, no stamps needed). */
export const ETCD_RECIPE: ToolRecipe = {
  name: 'etcd',
  version: ETCD_VERSION,
  module: 'go.etcd.io/etcd/server/v3',
  siblingVersion: ETCD_VERSION,
  binaries: [{ name: 'etcd', pkg: 'go.etcd.io/etcd/server/v3' }],
  sources: {},
  stamps: {},
  probes: [{ binary: 'etcd', args: ['--version'], expect: `etcd Version: ${ETCD_VERSION.slice(1)}` }],
  coldBuildCpuSeconds: 210,
};

const REGISTRY_MAIN = `// Command registry runs the distribution registry with the storage drivers and access
// controllers integration tests use; the cloud storage drivers are left out to keep the
// first build short.
package main

import (
	"os"

	"github.com/distribution/distribution/v3/registry"
	_ "github.com/distribution/distribution/v3/registry/auth/htpasswd"
	_ "github.com/distribution/distribution/v3/registry/auth/silly"
	_ "github.com/distribution/distribution/v3/registry/auth/token"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/filesystem"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/inmemory"
)

func main() {
	if err := registry.RootCmd.Execute(); err != nil {
		os.Exit(1)
	}
}
`;

const HTPASSWD_MAIN = `// Command htpasswd reads a user name and a password (one per line) from stdin and prints
// the htpasswd line "user:bcrypt-hash" the registry's htpasswd access controller accepts.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"golang.org/x/crypto/bcrypt"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	var lines []string
	for in.Scan() {
		lines = append(lines, in.Text())
	}
	if len(lines) != 2 || lines[0] == "" || strings.Contains(lines[0], ":") {
		fmt.Fprintln(os.Stderr, "htpasswd: expected two lines on stdin: a user name without ':' and a password")
		os.Exit(2)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(lines[1]), bcrypt.DefaultCost)
	if err != nil {
		fmt.Fprintln(os.Stderr, "htpasswd:", err)
		os.Exit(1)
	}
	fmt.Printf("%s:%s\\n", lines[0], hash)
}
`;

/** The registry (and our htpasswd helper) at REGISTRY_VERSION. */
export const REGISTRY_RECIPE: ToolRecipe = {
  name: 'registry',
  version: REGISTRY_VERSION,
  module: 'github.com/distribution/distribution/v3',
  siblingVersion: REGISTRY_VERSION,
  binaries: [
    { name: 'registry', pkg: './cmd/registry' },
    { name: 'htpasswd', pkg: './cmd/htpasswd' },
  ],
  sources: { 'cmd/registry/main.go': REGISTRY_MAIN, 'cmd/htpasswd/main.go': HTPASSWD_MAIN },
  stamps: { 'github.com/distribution/distribution/v3/version.version': REGISTRY_VERSION },
  probes: [{ binary: 'registry', args: ['--version'], expect: `github.com/distribution/distribution/v3 ${REGISTRY_VERSION}` }],
  coldBuildCpuSeconds: 245,
};

/** The tests' `helm` CLI at HELM_VERSION, stamped as Helm's Makefile does (else it says `v3.21`). */
export const HELM_RECIPE: ToolRecipe = {
  name: 'helm',
  version: HELM_VERSION,
  module: 'helm.sh/helm/v3',
  siblingVersion: HELM_VERSION,
  binaries: [{ name: 'helm', pkg: 'helm.sh/helm/v3/cmd/helm' }],
  sources: {},
  stamps: { 'helm.sh/helm/v3/internal/version.version': HELM_VERSION },
  probes: [{ binary: 'helm', args: ['version', '--short'], expect: HELM_VERSION }],
  coldBuildCpuSeconds: 380,
};

/** Cache directory name of a recipe: `<name>-<version>`. */
export function recipeDirName(recipe: Pick<ToolRecipe, 'name' | 'version'>): string {
  return `${recipe.name}-${recipe.version}`;
}
