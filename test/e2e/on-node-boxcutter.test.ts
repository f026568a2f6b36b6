// Upstream's @BoxcutterRuntime e2e scenarios as written (issue 64), against the product on a real
// node in the cluster with the gate on, as `olmv1 up --node --in-cluster --feature-gates
// BoxcutterRuntime=true` deploys it (cmd/olmv1/up-in-cluster.ts: the project's image of HEAD,
// config/ with config/boxcutter, operator-controller's Deployment carrying
// --feature-gates=BoxcutterRuntime=true, where upstream's hooks read the gates). The feature
// files come from upstream's Go module at test time (test/support/upstream-features): all of
// revision.feature first, then the @BoxcutterRuntime scenarios of install, update, status and
// user-managed-fields, one `it` each, on one stack. Their catalogs are pushed to the node's
// registry (on its bridge address: this host pushes there and the node pulls from there), and
// upstream's busybox:1.36 is a stand-in from Debian's busybox-static pulled through a docker.io
// mirror (test/support/upstream-features/busybox.ts). Each step waits as upstream's do (5
// minutes; E2E_STEP_TIMEOUT overrides). Needs root, the node's prerequisites and go (upstream's
// module). `npm test` runs CI_SCENARIOS (a PVC that binds, a user probe that holds a phase,
// Secret-stored objects, a mutable Secret, availability lost and restored: about 3 minutes);
// OLMV1_E2E_BOXCUTTER_NODE=1 runs every scenario (about 22 minutes, the progress-deadline ones
// waiting out their minute). Upstream's vap-access-control.feature (no tag; its admission policy
// for ClusterExtensions, issue 73's baseline) runs whole on the same stack: one install by an
// allowed group, five creates the ValidatingAdmissionPolicy refuses.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { featureGatesArgs } from '../../cmd/olmv1/up-feature-gates.ts';
import { buildProjectImage, defaultImageCacheDir } from '../../pkg/olmv1/images/index.ts';
import { deployInCluster, SYSTEM_NAMESPACE } from '../../pkg/olmv1/in-cluster/index.ts';
import { findGoToolchain, mirrorRegistry, startControlPlane, type ControlPlane } from '../../pkg/olmv1/localstack/index.ts';
import { envtestNodeBinaries } from '../envtest/deferred-tools.ts';
import { nodeEnv, nodeUnavailable, REPO } from '../support/on-node.ts';
import { loadUpstreamScenarios, readFeatureGates, upstreamModuleDir, type CatalogPort } from '../support/upstream-features/index.ts';
import { kubectlAt, type Kubectl } from '../support/upstream-features/kubectl.ts';
import { pushBusyboxStandIn, UPSTREAM_BUSYBOX_IMAGE } from '../support/upstream-features/busybox.ts';
import { registryCatalogPort } from '../support/upstream-features/catalogs.ts';

/** operator-controller's --default-install-service-account, bound to cluster-admin. */
const DEFAULT_INSTALLER = 'boxcutter-e2e-installer';
const log = (line: string): void => console.error(`on-node-boxcutter: ${line}`);

/** The scenarios `npm test` runs: one of each mechanism, none that waits out a progress deadline. */
const CI_SCENARIOS: ReadonlySet<string> = new Set([
  'revision: Phases progress when PersistentVolumeClaim becomes "Bound"',
  'revision: Phases does not progress when user-provided progressionProbes do not pass',
  'revision: User can install a ClusterObjectSet with objects stored in Secrets',
  'revision: ClusterObjectSet blocks reconciliation when referenced Secret is mutable',
  'status: Report availability change when managed workload restores its readiness',
]);
const ALL_SCENARIOS = process.env['OLMV1_E2E_BOXCUTTER_NODE'] === '1';

/** Why the file cannot run here: the node's prerequisites, or go for upstream's module. */
async function unavailable(): Promise<string | undefined> {
  const node = nodeUnavailable();
  if (node !== undefined) return node;
  try {
    await findGoToolchain(nodeEnv);
    return undefined;
  } catch (err) {
    return `no go toolchain (${err instanceof Error ? err.message : String(err)})`;
  }
}

const missing = await unavailable();
if (missing !== undefined) console.warn(`on-node-boxcutter.test.ts skipped: ${missing}`);
// At collection time, where no timeout applies (test/envtest/deferred-tools.ts).
const nodeBinaries = await envtestNodeBinaries();

// The scenarios are listed before the stack exists; their kubectl and catalogs reach it through these.
let kubectl: Kubectl | undefined;
let catalogs: CatalogPort | undefined;
const moduleDir = missing === undefined ? await upstreamModuleDir(nodeEnv) : '';
/** Upstream's scenarios of `features` selected by `tags`, their steps acting on this file's stack. */
function scenariosOf(features: string[], tags?: string) {
  return loadUpstreamScenarios({
    features,
    ...(tags === undefined ? {} : { tags }),
    env: nodeEnv,
    moduleDir,
    kubectlRunner: (args, input) => requiredKubectl()(args, input),
    catalogs: {
      imageRegistryIsAvailable: () => required(catalogs).imageRegistryIsAvailable(),
      build: (o) => required(catalogs).build(o),
      tag: (o) => required(catalogs).tag(o),
    },
    onStep: (scenario, step) => log(`${scenario}: ${step}`),
  });
}
/** Every scenario of this feature runs in CI (one install; the five refusals are admission only). */
const VAP_FEATURE = 'vap-access-control';
const scenarios =
  missing === undefined
    ? [
        ...(await scenariosOf(['revision', 'install', 'update', 'status', 'user-managed-fields'], '@BoxcutterRuntime')),
        ...(await scenariosOf([VAP_FEATURE])),
      ]
    : [];

function requiredKubectl(): Kubectl {
  if (kubectl === undefined) throw new Error('the product is not deployed');
  return kubectl;
}

function required<T>(port: T | undefined): T {
  if (port === undefined) throw new Error('the product is not deployed');
  return port;
}

let cp: ControlPlane | undefined;
let stopProduct: (() => Promise<void>) | undefined;

describe.skipIf(missing !== undefined)("upstream's @BoxcutterRuntime scenarios on a real node, in the cluster, gate on", () => {
  beforeAll(async () => {
    const started = Date.now();
    // The image first (cached after CI's first build): the node holds the machine's lock while it runs.
    const image = await buildProjectImage({
      repoRoot: REPO,
      revision: execFileSync('git', ['-C', REPO, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim(),
      cacheDir: defaultImageCacheDir(nodeEnv),
      env: nodeEnv,
      log,
      extraCaFile: process.env['NODE_EXTRA_CA_CERTS'] || undefined,
    });
    cp = await startControlPlane({ binaries: { ...inject('envtestBinaries'), node: nodeBinaries }, node: { log } });
    // What `olmv1 up --node --in-cluster --feature-gates BoxcutterRuntime=true` deploys
    // (cmd/olmv1/up-in-cluster.ts: config/ with config/boxcutter and the gate in operator-controller's
    // args), plus a default installer: upstream's revision.feature applies ClusterObjectSets no
    // ClusterExtension made, which upstream writes as operator-controller itself (bound to
    // cluster-admin in its manifests) and ours only as --user-revision-service-account (decision 0126).
    const product = await deployInCluster({
      controlPlane: cp,
      registryBinaries: inject('envtestBinaries'),
      repoRoot: REPO,
      image,
      env: nodeEnv,
      log,
      overlay: {
        deploymentArgs: {
          'operator-controller-controller-manager': [
            // DeploymentConfig as upstream's experimental manifests enable it (its hooks read the args).
            ...featureGatesArgs(['BoxcutterRuntime=true', 'DeploymentConfig=true']),
            `--default-install-service-account=${SYSTEM_NAMESPACE}/${DEFAULT_INSTALLER}`,
            `--user-revision-service-account=${SYSTEM_NAMESPACE}/${DEFAULT_INSTALLER}`,
          ],
        },
        components: ['../config/boxcutter'],
      },
    });
    stopProduct = product.stop;
    await product.kubectl(['create', 'serviceaccount', '-n', SYSTEM_NAMESPACE, DEFAULT_INSTALLER]);
    await product.kubectl([
      'create',
      'clusterrolebinding',
      DEFAULT_INSTALLER,
      '--clusterrole=cluster-admin',
      `--serviceaccount=${SYSTEM_NAMESPACE}:${DEFAULT_INSTALLER}`,
    ]);
    kubectl = kubectlAt(cp.info.kubectl, cp.info.kubeconfigPath, nodeEnv);
    const registry = product.registry.host;
    // upstream's busybox:1.36, from the node's registry through a docker.io mirror (busybox.ts).
    await pushBusyboxStandIn(registry);
    await mirrorRegistry(required(cp.node), UPSTREAM_BUSYBOX_IMAGE.registry, registry);
    catalogs = registryCatalogPort({ pushRegistry: registry, clusterRegistry: registry, moduleDir });
    log(`stack up in ${((Date.now() - started) / 1000).toFixed(1)} s (image ${image.cached ? 'cached' : 'built'}); registry ${registry}`);
  }, 1_800_000);

  afterAll(async () => {
    await stopProduct?.();
    await cp?.stop();
  }, 300_000);

  it('runs operator-controller with BoxcutterRuntime=true where upstream reads it, and upstream has scenarios for it', async () => {
    const gates = await readFeatureGates(requiredKubectl(), SYSTEM_NAMESPACE);
    expect(gates.get('BoxcutterRuntime')).toBe(true);
    expect(scenarios.filter((s) => s.scenario.featureName === 'revision')).toHaveLength(9);
    expect(scenarios.filter((s) => s.scenario.featureName === VAP_FEATURE)).toHaveLength(6);
  });

  it('knows every scenario it runs in CI', () => {
    expect([...CI_SCENARIOS].filter((name) => !scenarios.some((s) => s.name === name))).toEqual([]);
  });

  for (const s of scenarios) {
    if (ALL_SCENARIOS || CI_SCENARIOS.has(s.name) || s.scenario.featureName === VAP_FEATURE) it(s.name, s.run, 30 * 60_000);
    else it.skip(`${s.name} (OLMV1_E2E_BOXCUTTER_NODE=1 runs it)`, s.run);
  }
});
