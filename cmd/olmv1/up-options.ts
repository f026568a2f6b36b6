/**
 * Flags of `olmv1 up` (alias `olmv1 local-stack`, `npm start`), parsed into a checked object.
 */
import { parseArgs } from 'node:util';
import { EXAMPLE_REGISTRY } from './up-example.ts';
import { routeFeatureGates, type ComponentGates, type GateSet } from './up-feature-gates.ts';

/** Help text of `olmv1 up`. */
export const UP_USAGE = `Usage: olmv1 up [--node [--in-cluster | --no-olm] [--cert-manager]] [--registry-port N] [--feature-gates GATES]
             [--authentication-config FILE]
       olmv1 up --kubeconfig PATH [--registry HOST] [--feature-gates GATES]

Runs OLM v1 on this machine until Ctrl-C (SIGINT or SIGTERM), then stops everything it started.

Without --kubeconfig: starts a local Kubernetes control plane (kube-apiserver, etcd and
kube-controller-manager: namespaces finish deleting, owned objects are garbage collected,
Deployments get ReplicaSets; without --node no scheduler and no kubelet, so no Pod runs) and an OCI
registry on 127.0.0.1:5001, builds the example operator (Go) and pushes its images,
bundles and catalog (examples/example-operator) to it, runs catalogd and
operator-controller as child processes, creates the ClusterCatalog of
config/samples/olm_v1_clustercatalog.yaml and waits until it is Serving. The binaries are
built from Go modules the first time (about 11 minutes on 2 idle cores, longer on a busy
machine; cached in ~/.cache/olmv1/envtest, or taken from $KUBEBUILDER_ASSETS).

With --node: the control plane also runs a real node (containerd and runc from the machine's
packages, a bridge network of its own, kubelet, kube-scheduler, kube-proxy, cluster DNS), so
Pods run: the example operator's Deployment becomes available and its extension Healthy.
The node pulls from the local registry over plain HTTP. It needs root, the packages
containerd, runc, containernetworking-plugins, iptables and iproute2, a memory cgroup and
bridge netfilter (each missing one is named, with the command that brings it); its binaries
are built the first time too (about 5 more minutes). The API server then listens on the
node bridge's address (10.244.N.1), not on loopback. One node per machine: a second one waits.
Stopping removes every container, mount, bridge, iptables chain and process of the node.
With --cert-manager too: cert-manager (controller, webhook, cainjector; built from its Go module
the first time, about 4 more minutes of CPU) runs on the node with a self-signed ClusterIssuer
olmv1-selfsigned, so bundles with webhooks install (docs/webhook-operators.md), and
examples/webhook-operator is published as the ClusterCatalog webhook-catalog.
With --in-cluster too: catalogd and operator-controller run as Pods on the node instead of as
processes here, as the product ships: the project's image is built from the committed tree (HEAD;
buildah and debootstrap needed, cached after the first build) and pushed to a registry on the
node's bridge, config/ is applied with it (the README's walk-through, overlay from
pkg/olmv1/in-cluster), and the example content goes to that registry. Stopping removes the
applied objects with the control plane.
With --no-olm instead: the control plane, the node, a registry on the node's bridge address
(plain HTTP; this machine, the node and Pods reach it: push catalogs there) and cert-manager
with --cert-manager, nothing of OLM: no CRDs, no namespace, no components, no example content.
A cluster to try a release on (docs/release.md: install.sh with the kubeconfig below).

Written in the current directory (.olmv1/, removed again on stop except bin/ and logs/):
  .olmv1/kubeconfig     admin kubeconfig of the local control plane
  .olmv1/bin/kubectl    a kubectl matching it
  .olmv1/stack.json     where everything runs (pid, API server, catalog URL, health URLs)
  .olmv1/logs/          catalogd.log, operator-controller.log

With --kubeconfig PATH: runs only catalogd and operator-controller, on this machine, against
that cluster (it needs cluster-admin: up applies config/crd and config/admission and creates
the olmv1-system namespace). With --registry HOST it also builds and pushes the example
content to HOST (which this machine must be able to push to anonymously and pull from) and
creates the example ClusterCatalog; without it, no catalog is created.

Flags:
  --kubeconfig PATH     use an existing cluster instead of starting one
  --registry HOST       with --kubeconfig: registry (host[:port]) for the example content
  --registry-port N     local registry port (default 5001; the samples expect 5001)
  --node                also run a real node, so Pods run (root; see above)
  --in-cluster          with --node: run catalogd and operator-controller as Pods (config/)
  --no-olm              with --node: a cluster with nothing of OLM, to install a release on
  --cert-manager        with --node: also run cert-manager on the node
  --authentication-config FILE
                        without --kubeconfig: kube-apiserver's structured authentication
                        configuration (apiserver.config.k8s.io AuthenticationConfiguration, e.g.
                        a JWT authenticator for an OpenID Connect issuer the in-cluster console
                        signs users in at; docs/console.md); the API server reads FILE itself
                        and reloads it when it changes, so an issuer started later can be added
  --feature-gates GATES upstream's gates, Name=true|false, comma-separated or repeated; each goes
                        to the component that knows it (AllAlpha and AllBeta to both), on its
                        command line or, with --in-cluster, in its Deployment's args; an unknown
                        gate or a value a component refuses is a usage error (exit 2)
  -h, --help            show this help

Output:
  stdout: once ready, a summary (API server, kubeconfig, catalog URL, next steps) after the line
  "olmv1 local stack is ready". stderr: progress and errors.

Exit codes:
  0    stopped by Ctrl-C or SIGTERM after everything was ready
  1    a step failed or a component exited (its log tail is printed)
  2    usage error, or already running in this directory
  130  stopped by a signal during start-up
`;

/** Parsed flags. */
export type UpOptions = (
  | {
      mode: 'local';
      registryPort: number;
      node: boolean;
      inCluster: boolean;
      noOlm: boolean;
      certManager: boolean;
      /** kube-apiserver's --authentication-config, as given (resolved against the working directory by up). */
      authenticationConfig?: string;
    }
  | { mode: 'cluster'; kubeconfig: string; registry: string | undefined }
) & { featureGates: ComponentGates };

/**
 * Parses the arguments after `up`; 'help' for --help; throws Error with a message on bad input.
 * `gateSets` are the components' gate sets (default: read from their option parsers).
 */
export function parseUpOptions(args: readonly string[], gateSets?: { catalogd: GateSet; operatorController: GateSet }): UpOptions | 'help' {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      kubeconfig: { type: 'string' },
      registry: { type: 'string' },
      'registry-port': { type: 'string' },
      node: { type: 'boolean' },
      'cert-manager': { type: 'boolean' },
      'in-cluster': { type: 'boolean' },
      'no-olm': { type: 'boolean' },
      'feature-gates': { type: 'string', multiple: true },
      'authentication-config': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help === true) return 'help';
  const gates = (): ComponentGates => routeFeatureGates(values['feature-gates'] ?? [], gateSets);
  if (values['cert-manager'] === true && values.node !== true) throw new Error('--cert-manager runs cert-manager on the local node; it needs --node');
  if (values['in-cluster'] === true && values.node !== true)
    throw new Error('--in-cluster runs catalogd and operator-controller as Pods on the local node; it needs --node');
  if (values['no-olm'] === true && values.node !== true) throw new Error('--no-olm starts a local node without OLM; it needs --node');
  if (values['no-olm'] === true && values['in-cluster'] === true) throw new Error('--no-olm runs nothing of OLM; it does not go with --in-cluster');
  if (values['no-olm'] === true && values['feature-gates'] !== undefined) throw new Error('--no-olm runs no component to take --feature-gates');
  if (positionals.length > 0) throw new Error(`unexpected argument ${JSON.stringify(positionals[0])}`);
  if (values.kubeconfig !== undefined) {
    if (values.kubeconfig === '') throw new Error('--kubeconfig needs a path');
    if (values.node === true) throw new Error('--node starts a local node with the local control plane; it does not go with --kubeconfig');
    if (values['registry-port'] !== undefined) throw new Error('--registry-port starts a local registry; with --kubeconfig use --registry HOST');
    if (values['authentication-config'] !== undefined)
      throw new Error("--authentication-config configures the local control plane's API server; it does not go with --kubeconfig");
    if (values.registry !== undefined && !/^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-fA-F:]+\](:\d{1,5})?$/.test(values.registry)) {
      throw new Error(`--registry wants a host[:port], got ${JSON.stringify(values.registry)}`);
    }
    return { mode: 'cluster', kubeconfig: values.kubeconfig, registry: values.registry, featureGates: gates() };
  }
  if (values.registry !== undefined)
    throw new Error('--registry is for --kubeconfig mode; without it up runs its own registry (see --registry-port)');
  const raw = values['registry-port'] ?? EXAMPLE_REGISTRY.split(':')[1] ?? '5001';
  const registryPort = Number(raw);
  if (!/^\d+$/.test(raw) || registryPort < 1 || registryPort > 65535)
    throw new Error(`--registry-port wants a port number, got ${JSON.stringify(raw)}`);
  return {
    mode: 'local',
    registryPort,
    node: values.node === true,
    inCluster: values['in-cluster'] === true,
    noOlm: values['no-olm'] === true,
    certManager: values['cert-manager'] === true,
    ...authenticationConfig(values['authentication-config']),
    featureGates: gates(),
  };
}

/** `--authentication-config`'s field of the options, absent without the flag. */
function authenticationConfig(path: string | undefined): { authenticationConfig?: string } {
  if (path === '') throw new Error('--authentication-config needs a path');
  return path === undefined ? {} : { authenticationConfig: path };
}
