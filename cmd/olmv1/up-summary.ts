/**
 * What `olmv1 up` prints once ready (pure): where everything is and the commands that work next.
 * The ClusterCatalog sample names the default registry, so with `--registry(-port)` only the
 * installer and ClusterExtension samples are offered; without a node the extension never becomes
 * Healthy, and a line says so.
 */
import { relative } from 'node:path';
import { EXAMPLE_REGISTRY } from './up-example.ts';
import type { StackFile } from './up-state.ts';

/** Whether the sample ClusterCatalog names the registry the catalog was published to. */
export function sampleCatalogMatches(catalogRef: string): boolean {
  return catalogRef.startsWith(`${EXAMPLE_REGISTRY}/`);
}

/** The text printed once everything is up; paths under `cwd` are shown relative to it. */
export function summary(stack: StackFile, cwd: string, consoleUrl?: string): string {
  const rel = (p: string): string => (p.startsWith(cwd) ? relative(cwd, p) : p);
  const kubectl = stack.kubectl === undefined ? 'kubectl' : rel(stack.kubectl);
  const k = `${kubectl} --kubeconfig ${rel(stack.kubeconfig)}`;
  const lines = ['olmv1 local stack is ready', ''];
  lines.push(`  API server           ${stack.apiServer}`);
  lines.push(`  kubeconfig           ${rel(stack.kubeconfig)}`);
  if (stack.kubectl !== undefined) lines.push(`  kubectl              ${rel(stack.kubectl)}`);
  if (stack.node !== undefined) {
    const n = stack.node;
    lines.push(
      `  node                 ${n.name} Ready (${n.address}, Pods ${n.podCidr}, bridge ${n.bridge}; Ready ${n.readyAfterMs} ms after its kubelet started)`,
    );
  } else if (stack.mode === 'local') {
    lines.push('  node                 none: Pods stay Pending (olmv1 up --node runs them)');
  }
  if (stack.registry !== undefined) lines.push(`  registry             ${stack.registry}`);
  if (stack.catalog !== undefined) {
    lines.push(`  ClusterCatalog       ${stack.catalog.name} (${stack.catalog.ref})`);
    lines.push(`  catalog URL          ${stack.catalog.url}`);
  }
  if (stack.catalogd !== undefined)
    lines.push(`  catalogd             pid ${stack.catalogd.pid}, health ${stack.catalogd.healthUrl}, log ${rel(stack.catalogd.log)}`);
  if (stack.operatorController !== undefined)
    lines.push(
      `  operator-controller  pid ${stack.operatorController.pid}, health ${stack.operatorController.healthUrl}, log ${rel(stack.operatorController.log)}`,
    );
  if (stack.inCluster !== undefined) {
    const c = stack.inCluster;
    lines.push(`  in the cluster       ${c.deployments.join(' and ')} Available in ${c.namespace}, as Pods on the node`);
    lines.push(`  image                ${c.imageRef} (built from ${c.revision.slice(0, 12)}, HEAD)`);
    if (c.consoleUrl !== undefined)
      lines.push(`  console in cluster   ${c.consoleUrl} (NodePort; sign in with a token: ${k} create token SERVICEACCOUNT -n NAMESPACE)`);
  }
  lines.push(`  feature gates        ${gatesLine(stack.featureGates)}`);
  if (consoleUrl !== undefined) lines.push(`  console              ${consoleUrl} (open it in a browser; the token is the session)`);
  else if (stack.inCluster !== undefined)
    lines.push('  console              npm run -s olmv1 -- console --catalogd-url URL (catalogd through a port-forward)');
  lines.push('', 'Next, in another shell in this directory:');
  if (stack.catalog !== undefined) {
    if (stack.inCluster === undefined) lines.push(`  curl -s ${stack.catalog.url}/api/v1/all | head -c 600; echo`);
    else lines.push(`  ${k} logs -n ${stack.inCluster.namespace} deployment/${stack.inCluster.deployments[0] ?? ''}`);
    if (sampleCatalogMatches(stack.catalog.ref)) {
      lines.push(`  ${k} apply -f config/samples/`);
    } else {
      lines.push(`  # the ClusterCatalog ${stack.catalog.name} already points at ${stack.catalog.ref}: apply the other two samples only`);
      lines.push(`  ${k} apply -f config/samples/example-operator-installer.yaml -f config/samples/olm_v1_clusterextension.yaml`);
    }
    lines.push(`  ${k} wait --for=condition=Installed clusterextension/example-operator --timeout=120s`);
    if (stack.node !== undefined) {
      lines.push(`  ${k} wait --for=condition=Healthy clusterextension/example-operator --timeout=120s`);
      lines.push(`  ${k} get pods -n example-operator`);
    }
    lines.push(`  ${k} get clusterextension example-operator`);
    lines.push('  npm run -s olmv1 -- status');
  } else {
    lines.push(`  ${k} apply -f <your ClusterCatalog and ClusterExtension>`);
  }
  lines.push('', 'Ctrl-C stops everything.', '');
  return lines.join('\n');
}

/** `catalogd GraphQLCatalogQueries=true; operator-controller defaults` (the gates each was started with). */
function gatesLine(gates: StackFile['featureGates']): string {
  const one = (name: string, settings: readonly string[] | undefined): string =>
    `${name} ${settings === undefined || settings.length === 0 ? 'defaults' : settings.join(',')}`;
  return `${one('catalogd', gates?.catalogd)}; ${one('operator-controller', gates?.operatorController)}`;
}
