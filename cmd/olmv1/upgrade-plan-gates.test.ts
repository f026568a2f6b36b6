// `olmv1 upgrade plan` lists exactly the objects the ClusterExtension reconciler then applies,
// under every combination of the feature gates that change rendering (issue 70): the
// certificate provider (none, cert-manager, the OpenShift service CA: WebhookProviderCertManager
// and WebhookProviderOpenshiftServiceCA), SingleOwnNamespaceInstallSupport and DeploymentConfig.
// BundleReleaseSupport changes resolution, not rendering (render/ never reads it), so it is not
// in the table. Each combination is written into operator-controller's Deployment as upstream's
// manifests write gates; the plan reads them from there (pkg/olmv1/upgrade/gates.ts), the controller
// parses the same arguments with its own options parser (as run.ts does) and runs the steps
// reconcilers.ts lists over a fake cluster. Where rendering fails, both fail with one message.
import pino from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { describeObject } from '../../pkg/operator-controller/applier/index.ts';
import { BundleBudget, type PullStatus } from '../../pkg/operator-controller/bundlepull/index.ts';
import { parseBundle, type RegistryV1Bundle } from '../../pkg/operator-controller/bundle/index.ts';
import { createUpgradeNotices, extensionFeatures } from '../../pkg/operator-controller/clusterextension/index.ts';
import { Manifest, ReleaseStatus, type Release } from '../../pkg/operator-controller/release/index.ts';
import { renderFailureToError, renderFeatures } from '../../pkg/operator-controller/render/index.ts';
import { planChanges } from '../../pkg/operator-controller/upgradeplan/index.ts';
import type { ClusterExtension } from '../../pkg/shared/api/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { fakeCluster } from '../../test/support/fake-cluster.ts';
import { bundleFiles, type BundleSpec } from '../../test/support/bundle-gen.ts';
import {
  MemoryReleaseStore,
  catalogSource,
  chainedPackage,
  recordingDrift,
  recordingEvents,
  withRulesReviews,
} from '../../test/support/extension-ports.ts';
import { parseOperatorControllerOptions } from '../operator-controller/options.ts';
import { clusterExtensionReconciler, type ClusterExtensionPorts } from '../operator-controller/reconcilers.ts';
import { planGates } from '../../pkg/olmv1/upgrade/index.ts';
import { controllerGates } from './upgrade-gates.ts';

const SYSTEM_NAMESPACE = 'olmv1-system';
const VERSION = '2.0.0';

/** The gate combinations: each certificate provider by its two gates, times the two install-mode and config gates. */
const PROVIDERS = {
  none: { WebhookProviderCertManager: false, WebhookProviderOpenshiftServiceCA: false },
  'cert-manager': { WebhookProviderCertManager: true, WebhookProviderOpenshiftServiceCA: false },
  'openshift-service-ca': { WebhookProviderCertManager: false, WebhookProviderOpenshiftServiceCA: true },
} as const;
const COMBINATIONS = Object.entries(PROVIDERS).flatMap(([provider, webhookGates]) =>
  [true, false].flatMap((singleOwn) =>
    [true, false].map((deploymentConfig) => ({
      name: `provider ${provider}, SingleOwnNamespaceInstallSupport=${singleOwn}, DeploymentConfig=${deploymentConfig}`,
      gates: { ...webhookGates, SingleOwnNamespaceInstallSupport: singleOwn, DeploymentConfig: deploymentConfig },
    })),
  ),
);

/** Bundles and configurations that each gate changes: a webhook, the own and single namespace modes, a deploymentConfig. */
const DEPLOYMENT_CONFIG = { env: [{ name: 'LOG_LEVEL', value: 'debug' }], nodeSelector: { tier: 'ops' } };
const CASES: { name: string; bundle: Omit<BundleSpec, 'pkg' | 'version'>; config?: Record<string, unknown> }[] = [
  { name: 'a webhook', bundle: { webhook: true } },
  { name: 'OwnNamespace', bundle: { installModes: ['OwnNamespace', 'SingleNamespace'] }, config: { watchNamespace: 'ns' } },
  { name: 'SingleNamespace', bundle: { installModes: ['OwnNamespace', 'SingleNamespace'] }, config: { watchNamespace: 'team-a' } },
  { name: 'a deploymentConfig', bundle: {}, config: { deploymentConfig: DEPLOYMENT_CONFIG } },
  {
    name: 'all of them',
    bundle: { webhook: true, installModes: ['OwnNamespace', 'SingleNamespace'] },
    config: { watchNamespace: 'team-a', deploymentConfig: DEPLOYMENT_CONFIG },
  },
];

/** operator-controller's Deployment started with `gates`, one argument per gate as upstream's manifests write them. */
function controllerDeployment(gates: Record<string, boolean>): KubeObject {
  const args = [
    '--cache-dir=/var/cache/operator-controller',
    '--leader-elect',
    ...Object.entries(gates).map(([n, v]) => `--feature-gates=${n}=${v}`),
  ];
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'operator-controller-controller-manager',
      namespace: SYSTEM_NAMESPACE,
      labels: { 'app.kubernetes.io/name': 'operator-controller' },
    },
    spec: { template: { spec: { containers: [{ name: 'manager', command: ['node', 'dist/cmd/operator-controller/main.js'], args }] } } },
  };
}

function bundleOf(spec: BundleSpec): RegistryV1Bundle {
  const files = new Map([...bundleFiles(spec)].map(([path, text]) => [path, new TextEncoder().encode(text)] as const));
  const parsed = parseBundle(files);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

function extension(config: Record<string, unknown> | undefined): ClusterExtension {
  return {
    metadata: { name: 'ext', uid: 'uid-1', generation: 1 },
    spec: {
      namespace: 'ns',
      serviceAccount: { name: 'sa' },
      source: { sourceType: 'Catalog', catalog: { packageName: 'p', upgradeConstraintPolicy: 'CatalogProvided' } },
      ...(config === undefined ? {} : { config: { configType: 'Inline', inline: config } }),
    },
  };
}

/** What the reconciler did: the objects of the release it recorded, the writes, or the Progressing condition of a failure. */
async function controllerApplies(deployment: KubeObject, ce: ClusterExtension, bundle: RegistryV1Bundle) {
  // As run.ts: the Deployment's command line through operator-controller's own parser, then control.ts's switches.
  const container = (deployment['spec'] as { template: { spec: { containers: { args: string[] }[] } } }).template.spec.containers[0];
  const options = parseOperatorControllerOptions(['--kubeconfig', 'unused', ...(container?.args ?? [])], {});
  if (options === 'help') throw new Error('help');
  const own = fakeCluster();
  own.seed({ ...structuredClone(ce), apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension' } as KubeObject);
  for (const ns of ['ns', 'team-a']) own.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  own.seed({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: 'ns' } });
  const cluster = fakeCluster();
  const releases = new MemoryReleaseStore();
  const budget = new BundleBudget(1_000);
  const ports: ClusterExtensionPorts = {
    client: own.client,
    scoped: { forServiceAccount: () => withRulesReviews(cluster.client, 'all'), forget: () => undefined },
    releases,
    catalogs: catalogSource(chainedPackage('p', [VERSION])),
    bundleCache: { delete: () => Promise.resolve() },
    pulls: {
      get: async (_extension: string, ref: string): Promise<PullStatus> => ({
        state: 'done',
        fetched: { bundle, digestRef: `${ref}@sha256:0`, fromCache: true, lease: await budget.acquire(100) },
      }),
    },
    schemas: { schemaFor: () => Promise.resolve(undefined) },
    drift: recordingDrift([]),
    healthGauge: { set: () => undefined, forget: () => undefined },
    events: recordingEvents([]),
    upgrades: createUpgradeNotices(new Registry()),
    features: extensionFeatures(options.featureGates),
  };
  const reconciler = clusterExtensionReconciler(ports);
  const ctx = { signal: new AbortController().signal, log: pino({ level: 'silent' }) };
  // The first reconcile adds the finalizers, the second installs (or fails).
  await reconciler.reconcile('ext', ctx);
  await reconciler.reconcile('ext', ctx).catch(() => undefined);
  const stored = own.live({ kind: 'ClusterExtension', metadata: { name: 'ext' } }) as unknown as ClusterExtension;
  const progressing = stored.status?.conditions?.find((c) => c.type === 'Progressing');
  const recorded = releases.records.at(-1)?.manifest.objects();
  return { recorded, writes: cluster.writes, progressing };
}

/** The deployed release the plan compares with: an earlier version whose objects the new one replaces. */
function installedRelease(): Release {
  return {
    extension: 'ext',
    extensionUID: 'uid-1',
    revision: 1,
    status: ReleaseStatus.Deployed,
    namespace: 'ns',
    bundle: { package: 'p', name: 'p.v1.0.0', version: '1.0.0', image: 'registry.example/p-bundle:v1.0.0' },
    manifest: Manifest.ofObjects([]),
    properties: [],
    description: 'Install complete',
    firstDeployed: '2026-01-02T03:04:05Z',
    lastDeployed: '2026-01-02T03:04:05Z',
  };
}

/** What `olmv1 upgrade plan` renders: the gates read from the Deployment, then the plan service. */
async function planLists(deployment: KubeObject, ce: ClusterExtension, bundle: RegistryV1Bundle) {
  const cluster = fakeCluster();
  cluster.seed(deployment);
  const release = installedRelease();
  const read = await planGates(cluster.client, SYSTEM_NAMESPACE, { certProvider: undefined }, release.manifest.objects(), controllerGates);
  if (!read.ok) throw new Error(read.error);
  const gates = read.value;
  const object = { ...structuredClone(ce), apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension' } as KubeObject;
  const ports = {
    client: cluster.client,
    schemas: { schemaFor: () => Promise.resolve(undefined) },
    clusterVersion: () => Promise.resolve({ ok: false as const, error: 'not OpenShift' }),
  };
  const planned = await planChanges(ports, {
    ce: { object, extension: ce },
    release,
    pick: { bundle: `p.v${VERSION}`, version: VERSION },
    bundle,
    features: renderFeatures(gates.values),
    now: Date.parse('2026-01-02T03:04:05Z'),
  });
  return { gates, planned };
}

describe('olmv1 upgrade plan renders as the controller applies, under every combination of the rendering gates', () => {
  for (const c of CASES) {
    it.each(COMBINATIONS)(`${c.name}: $name`, async ({ gates }) => {
      const deployment = controllerDeployment(gates);
      const bundle = bundleOf({ pkg: 'p', version: VERSION, ...c.bundle });
      const ce = extension(c.config);
      const [plan, controller] = await Promise.all([planLists(deployment, ce, bundle), controllerApplies(deployment, ce, bundle)]);
      expect(plan.gates).toMatchObject({ source: 'deployment', values: gates });
      if (!plan.planned.ok) {
        // Nothing applied, and the controller reports the very failure the plan gives.
        const failure = renderFailureToError(plan.planned.error);
        expect(controller.recorded).toBeUndefined();
        expect(controller.writes).toEqual([]);
        expect(controller.progressing?.message).toBe(`error for resolved bundle "p.v${VERSION}" with version "${VERSION}": ${failure.message}`);
        expect(controller.progressing?.reason).toBe(plan.planned.error.terminal ? plan.planned.error.reason : 'Retrying');
        return;
      }
      const objects = plan.planned.value.objects;
      expect(controller.recorded).toEqual(objects);
      // The plan lists each of them as added (nothing was deployed from this bundle), and the controller applied each.
      const names = objects.map(describeObject);
      expect([...plan.planned.value.changes.objects.added].sort()).toEqual([...names].sort());
      expect(controller.writes.filter((w) => w.startsWith('apply ')).sort()).toEqual(names.map((n) => `apply ${n}`).sort());
    });
  }

  it('the table renders somewhere in each case and fails somewhere in each gated case', async () => {
    // Guards the table itself: every gate matters to some case, so a plan that ignored one would differ.
    const outcomes = await Promise.all(
      CASES.flatMap((c) =>
        COMBINATIONS.map(async ({ gates }) => {
          const { planned } = await planLists(
            controllerDeployment(gates),
            extension(c.config),
            bundleOf({ pkg: 'p', version: VERSION, ...c.bundle }),
          );
          return `${c.name} ${planned.ok ? 'renders' : 'fails'}`;
        }),
      ),
    );
    for (const c of CASES) {
      expect(outcomes).toContain(`${c.name} renders`);
      expect(outcomes).toContain(`${c.name} fails`);
    }
  });
});
