/**
 * The `--feature-gates` operator-controller runs with, read from its Deployment as config/ and
 * the Helm chart ship it (name operator-controller-controller-manager, label
 * app.kubernetes.io/name=operator-controller, container `manager`), so that `olmv1 upgrade plan`
 * renders with the controller's gates. The occurrences only: the controller's own parser reads them.
 */
import { wrapError } from '../../shared/errors/index.ts';
import { isForbidden, isNotFound, type KubeClient, type KubeObject } from '../../shared/kube/index.ts';

/** operator-controller's Deployment and its Pods' label, as config/manager/operator-controller.yaml has them. */
const DEPLOYMENT = 'operator-controller-controller-manager';
const NAME_LABEL = 'app.kubernetes.io/name=operator-controller';

/** The occurrences of `--feature-gates` of the Deployment `deployment` (`ns/name`), or why none was read. */
type ControllerGateArgs = { found: true; deployment: string; occurrences: string[] } | { found: false; reason: string };

/**
 * Reads operator-controller's Deployment in `namespace` (by name, else the one Deployment with
 * its label) and the `--feature-gates` values its container is started with. Missing or not
 * readable with these credentials: a value saying so.
 * @throws Error (with cause) for any other failure to read it.
 */
export async function readControllerGateArgs(client: Pick<KubeClient, 'get' | 'listAll'>, namespace: string): Promise<ControllerGateArgs> {
  let deployment: KubeObject | undefined;
  try {
    deployment = await client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: DEPLOYMENT });
  } catch (e) {
    if (isForbidden(e)) return { found: false, reason: `the Deployment ${namespace}/${DEPLOYMENT} cannot be read with these credentials` };
    if (!isNotFound(e)) throw wrapError(`error reading the Deployment ${namespace}/${DEPLOYMENT}`, e);
  }
  if (deployment === undefined) {
    let items: KubeObject[];
    try {
      ({ items } = await client.listAll({ apiVersion: 'apps/v1', kind: 'Deployment' }, { namespace, labelSelector: NAME_LABEL }));
    } catch (e) {
      if (isForbidden(e)) return { found: false, reason: `no Deployment ${DEPLOYMENT} in ${namespace}, and its Deployments cannot be listed` };
      throw wrapError(`error listing the Deployments in ${namespace}`, e);
    }
    if (items.length !== 1) return { found: false, reason: `no Deployment ${DEPLOYMENT} (or one labelled ${NAME_LABEL}) in ${namespace}` };
    deployment = items[0];
  }
  return { found: true, deployment: `${namespace}/${deployment?.metadata.name ?? ''}`, occurrences: gateOccurrences(deployment) };
}

/** A container of a Pod template, as far as its command line goes. */
interface Container {
  name?: string;
  command?: string[];
  args?: string[];
}

/** The values of `--feature-gates=V` and `--feature-gates V` on the command line of the `manager` container (else the first). */
function gateOccurrences(deployment: KubeObject | undefined): string[] {
  const spec = (deployment?.['spec'] as { template?: { spec?: { containers?: Container[] } } } | undefined)?.template?.spec;
  const containers = spec?.containers ?? [];
  const c = containers.find((x) => x.name === 'manager') ?? containers[0];
  const argv = [...(c?.command ?? []), ...(c?.args ?? [])];
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a.startsWith('--feature-gates=')) out.push(a.slice('--feature-gates='.length));
    else if (a === '--feature-gates' && i + 1 < argv.length) out.push(argv[++i] ?? '');
  }
  return out;
}
