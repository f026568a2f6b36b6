// The Helm chart (helm/olmv1) renders what config/ deploys, for every set of choices both offer.
//
// Each case renders the chart with `helm template` (the helm CLI built for the run) and builds an
// overlay of config/ making the same choices with `kubectl kustomize` (the envtest kubectl); both
// are parsed and compared as sets of objects. The chart's one addition, the keep policy on each
// CRD, must be there and is then set aside. `helm lint` passes on the chart with each preset.
//   Sufficient: every case's two sets are equal, field for field.
//   Complete: every Kustomize component under config/ has a case; the packaged chart renders
//   the same objects as the chart directory.
//   Honest presets: helm/cert-manager.yaml, helm/openshift.yaml and helm/experimental.yaml are
//   the cases' values files.
//   Drop-in: both ship upstream's Services (test/fixtures/upstream-manifests: names, ports, port
//   names, target ports, selectors, labels) and no other, and upstream's labels on the Deployments
//   and their Pod templates.
//   OpenShift parity: config/ with config/openshift and config/openshift/catalogs, and the chart
//   with helm/openshift.yaml, give each component what upstream's rendered OpenShift manifests
//   give it (test/fixtures/upstream-manifests/openshift-*.yaml): the cluster's pull secret and the
//   RBAC to read it, the trusted CA bundle ConfigMap (its name and labels) and the service CA in
//   the directory registry CAs are read from, operator-controller's trust in catalogd, and the
//   default ClusterCatalogs (names and specs).
import { readdir, readFile } from 'node:fs/promises';
import { join, posix, relative } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, inject, it } from 'vitest';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { helm } from '../support/helm.ts';
import {
  CHART,
  kustomizeOverlay,
  objectKey,
  parseObjects,
  renderChart,
  repoPath,
  sorted,
  withoutChartAdditions,
  type Overlay,
} from '../support/helm-chart.ts';
import { allows, deploymentOf, envOf, filesIn, flagOf, INJECT_TRUSTED_CA, sourceOfFile } from '../support/openshift-parity.ts';
import { testTempDir } from '../support/temp-dir.ts';

const cp = inject('envtestControlPlane');
const OC = 'operator-controller-controller-manager';
const CATALOGD = 'catalogd-controller-manager';

/** A JSON 6902 patch of one Deployment's first container, as an overlay's `patches` entry. */
function containerPatch(deployment: string, ops: { op: string; path: string; value: unknown }[]): Record<string, unknown> {
  return {
    target: { kind: 'Deployment', name: deployment },
    patch: JSON.stringify(ops.map((o) => ({ ...o, path: `/spec/template/spec/containers/0/${o.path}` }))),
  };
}
const addArgs = (deployment: string, args: string[]): Record<string, unknown> =>
  containerPatch(
    deployment,
    args.map((value) => ({ op: 'add', path: 'args/-', value })),
  );

interface Case {
  name: string;
  values: { files?: string[]; set?: string[] };
  overlay: Overlay;
  /** A change to the kustomize output that no overlay field expresses as directly. */
  expected?: (objects: KubeObject[]) => KubeObject[];
}

const OC_EXPERIMENTAL_GATES = [
  '--feature-gates=BundleReleaseSupport=true',
  '--feature-gates=DeploymentConfig=true',
  '--feature-gates=SingleOwnNamespaceInstallSupport=true',
  '--feature-gates=WebhookProviderCertManager=true',
  '--feature-gates=WebhookProviderOpenshiftServiceCA=false',
];

const CASES: Case[] = [
  { name: 'defaults: config/', values: {}, overlay: {} },
  {
    name: 'helm/cert-manager.yaml: config/cert-manager',
    values: { files: [repoPath('helm/cert-manager.yaml')] },
    overlay: { components: ['cert-manager'] },
  },
  {
    name: 'helm/openshift.yaml: config/openshift and config/openshift/catalogs',
    values: { files: [repoPath('helm/openshift.yaml')] },
    overlay: { components: ['openshift', 'openshift/catalogs'] },
  },
  {
    name: 'options.openshift without the default catalogs (disableAllDefaultSources): config/openshift alone',
    values: { set: ['options.openshift.enabled=true', 'options.openshift.defaultCatalogs.enabled=false'] },
    overlay: { components: ['openshift'] },
  },
  {
    name: 'options.openshift.defaultCatalogs: one left out, another release',
    values: {
      files: [repoPath('helm/openshift.yaml')],
      set: ['options.openshift.defaultCatalogs.disabled={openshift-redhat-marketplace}', 'options.openshift.defaultCatalogs.version=v4.22'],
    },
    overlay: { components: ['openshift', 'openshift/catalogs'] },
    expected: (objects) =>
      objects
        .filter((o) => !(o.kind === 'ClusterCatalog' && o.metadata.name === 'openshift-redhat-marketplace'))
        .map((o) => (o.kind === 'ClusterCatalog' ? (JSON.parse(JSON.stringify(o).replace(':v4.21"', ':v4.22"')) as KubeObject) : o)),
  },
  {
    name: 'BoxcutterRuntime among the enabled gates: config/boxcutter',
    values: { set: ['options.operatorController.features.enabled={BoxcutterRuntime}'] },
    overlay: { components: ['boxcutter'] },
  },
  {
    name: 'TenantExtensions among the enabled gates: config/tenant-extensions',
    values: { set: ['options.operatorController.features.enabled={TenantExtensions}'] },
    overlay: { components: ['tenant-extensions'] },
  },
  {
    name: 'options.console with helm/cert-manager.yaml: config/console and config/console/cert-manager',
    values: { files: [repoPath('helm/cert-manager.yaml')], set: ['options.console.enabled=true'] },
    overlay: { components: ['cert-manager', 'console', 'console/cert-manager'] },
  },
  {
    name: 'options.console.oidc: config/console/oidc after config/console',
    values: { files: [repoPath('helm/cert-manager.yaml')], set: ['options.console.enabled=true', 'options.console.oidc.enabled=true'] },
    overlay: { components: ['cert-manager', 'console', 'console/cert-manager', 'console/oidc'] },
  },
  {
    name: 'options.console with helm/openshift.yaml: config/console and config/console/openshift',
    values: { files: [repoPath('helm/openshift.yaml')], set: ['options.console.enabled=true'] },
    overlay: { components: ['openshift', 'openshift/catalogs', 'console', 'console/openshift'] },
  },
  {
    name: 'the default install ServiceAccount: config/default-installer',
    values: { set: ['options.operatorController.defaultInstallServiceAccount.enabled=true'] },
    overlay: { components: ['default-installer'] },
  },
  {
    name: 'helm/experimental.yaml: two replicas each and the feature gates',
    values: { files: [repoPath('helm/experimental.yaml')] },
    overlay: {
      fields: {
        replicas: [{ name: OC, count: 2 }],
        patches: [addArgs(OC, OC_EXPERIMENTAL_GATES), addArgs(CATALOGD, ['--feature-gates=APIV1MetasHandler=true'])],
      },
    },
  },
  {
    name: 'image, replicas, resources, extra arguments, OpenShift and the default installer at once',
    values: {
      files: [repoPath('helm/openshift.yaml')],
      set: [
        'options.operatorController.deployment.image=registry.test/olmv1:v9',
        'options.catalogd.deployment.image=registry.test/olmv1:v9',
        'options.catalogd.deployment.replicas=3',
        'options.operatorController.deployment.replicas=2',
        'options.operatorController.deployment.resources.limits.memory=1Gi',
        'options.operatorController.deployment.resources.requests.cpu=200m',
        'options.catalogd.deployment.extraArguments={--insecure-registry=registry.test:5000,--log-level=debug}',
        'options.operatorController.deployment.extraArguments={--insecure-registry=registry.test:5000}',
        'options.operatorController.defaultInstallServiceAccount.enabled=true',
      ],
    },
    overlay: {
      components: ['openshift', 'openshift/catalogs', 'default-installer'],
      fields: {
        images: [{ name: 'olmv1', newName: 'registry.test/olmv1', newTag: 'v9' }],
        replicas: [
          { name: CATALOGD, count: 3 },
          { name: OC, count: 2 },
        ],
        patches: [
          addArgs(CATALOGD, ['--insecure-registry=registry.test:5000', '--log-level=debug']),
          addArgs(OC, ['--insecure-registry=registry.test:5000']),
          containerPatch(OC, [
            { op: 'replace', path: 'resources', value: { requests: { cpu: '200m', memory: '150Mi' }, limits: { memory: '1Gi' } } },
          ]),
        ],
      },
    },
  },
  {
    name: 'namespaces.olmv1.name: every olmv1-system of config/ renamed',
    values: { set: ['namespaces.olmv1.name=olm-elsewhere'] },
    overlay: {},
    expected: (objects) => JSON.parse(JSON.stringify(objects).replaceAll('olmv1-system', 'olm-elsewhere')) as KubeObject[],
  },
  {
    name: "options.catalogd.webhook.caBundle: config/webhook's caBundle patched in",
    values: { set: ['options.catalogd.webhook.caBundle=Q0EgUEVN'] },
    overlay: {
      fields: {
        patches: [
          {
            target: { kind: 'MutatingWebhookConfiguration', name: 'catalogd-mutating-webhook-configuration' },
            patch: JSON.stringify([{ op: 'add', path: '/webhooks/0/clientConfig/caBundle', value: 'Q0EgUEVN' }]),
          },
        ],
      },
    },
  },
  {
    name: 'namespaces.olmv1.create=false: config/ without its Namespace',
    values: { set: ['namespaces.olmv1.create=false'] },
    overlay: {},
    expected: (objects) => objects.filter((o) => o.kind !== 'Namespace'),
  },
  {
    name: "options.networkPolicy: sources on config/'s webhook and metrics rules patched in",
    values: {
      set: [
        'options.networkPolicy.webhookFrom[0].ipBlock.cidr=10.0.0.0/24',
        'options.networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.team=monitoring',
      ],
    },
    overlay: {
      fields: {
        patches: [
          {
            target: { kind: 'NetworkPolicy', name: 'catalogd-controller-manager' },
            patch: JSON.stringify([
              { op: 'add', path: '/spec/ingress/1/from', value: [{ ipBlock: { cidr: '10.0.0.0/24' } }] },
              { op: 'add', path: '/spec/ingress/2/from', value: [{ namespaceSelector: { matchLabels: { team: 'monitoring' } } }] },
            ]),
          },
          {
            target: { kind: 'NetworkPolicy', name: 'operator-controller-controller-manager' },
            patch: JSON.stringify([
              { op: 'add', path: '/spec/ingress/0/from', value: [{ namespaceSelector: { matchLabels: { team: 'monitoring' } } }] },
            ]),
          },
        ],
      },
    },
  },
  {
    name: "options.*.podDisruptionBudget: upstream's values, catalogd's by maxUnavailable, operator-controller's off",
    values: {
      set: [
        'options.catalogd.podDisruptionBudget.minAvailable=',
        'options.catalogd.podDisruptionBudget.maxUnavailable=50%',
        'options.operatorController.podDisruptionBudget.enabled=false',
      ],
    },
    overlay: {},
    expected: (objects) =>
      objects
        .filter((o) => !(o.kind === 'PodDisruptionBudget' && o.metadata.name === OC))
        .map((o) =>
          o.kind === 'PodDisruptionBudget'
            ? {
                ...o,
                spec: { maxUnavailable: '50%', unhealthyPodEvictionPolicy: 'AlwaysAllow', selector: (o.spec as { selector: unknown }).selector },
              }
            : o,
        ),
  },
  {
    name: 'the metadata.name label policy: config/admission',
    values: { set: ['options.metadataNameLabelPolicy.enabled=true'] },
    overlay: { components: ['admission'] },
  },
];

describe('helm template of helm/olmv1 equals kubectl kustomize of config/', () => {
  it.each(CASES)('$name', async ({ values, overlay, expected }) => {
    const chart = withoutChartAdditions(await renderChart(cp.kubeconfigPath, values));
    const built = await kustomizeOverlay(cp.kubectl, overlay);
    const want = sorted(expected === undefined ? built : expected(built));
    expect(chart.map(objectKey)).toEqual(want.map(objectKey));
    expect(chart).toEqual(want);
  });

  it('the cases cover what differs: each one renders objects the defaults do not', async () => {
    const defaults = JSON.stringify(withoutChartAdditions(await renderChart(cp.kubeconfigPath)));
    for (const c of CASES.slice(1)) {
      expect(JSON.stringify(withoutChartAdditions(await renderChart(cp.kubeconfigPath, c.values))), c.name).not.toBe(defaults);
    }
  });
});

describe('helm/olmv1 follows config/ as a whole', () => {
  it('every Kustomize component of config/ is a case above, or a part of one (a new component needs a value)', async () => {
    const kustomization = (component: string): Promise<string> =>
      readFile(repoPath(`config/${component}/kustomization.yaml`), 'utf8').catch(() => '');
    const components = [];
    for (const entry of await readdir(repoPath('config'), { withFileTypes: true, recursive: true })) {
      if (!entry.isDirectory()) continue;
      const component = relative(repoPath('config'), join(entry.parentPath, entry.name));
      if (/^kind: Component$/m.test(await kustomization(component))) components.push(component);
    }
    // A case covers its components and the components they include (config/boxcutter: crd/experimental).
    const covered = new Set<string>();
    const cover = async (component: string): Promise<void> => {
      if (covered.has(component)) return;
      covered.add(component);
      const parts = (load(await kustomization(component)) as { components?: string[] } | undefined)?.components ?? [];
      for (const part of parts) await cover(posix.normalize(posix.join(component, part)));
    };
    for (const c of CASES.flatMap((x) => x.overlay.components ?? [])) await cover(c);
    expect(components.sort()).toEqual([...covered].sort());
  });

  it('the packaged chart (helm package follows the files/crd link) renders what the directory does', async () => {
    const dir = await testTempDir('helm-chart-package-');
    const run = await helm('package', CHART, '--destination', dir);
    expect(run, run.stderr).toMatchObject({ code: 0 });
    const packaged = await helm('template', 'olmv1', join(dir, (await readdir(dir))[0] ?? 'none'));
    expect(packaged, packaged.stderr).toMatchObject({ code: 0 });
    expect(sorted(parseObjects(packaged.stdout))).toEqual(sorted(await renderChart(cp.kubeconfigPath)));
  });
});

describe("config/ and helm/olmv1 ship upstream's Services and labels", () => {
  const upstream = async (): Promise<KubeObject[]> =>
    parseObjects(await readFile(repoPath('test/fixtures/upstream-manifests/standard-services-deployments.yaml'), 'utf8'));
  type Service = KubeObject & { spec: { ports: unknown[]; selector: unknown } };
  type Deployment = KubeObject & { spec: { template: { metadata: { labels: Record<string, string> } } } };
  const named = <T extends KubeObject>(objects: KubeObject[], kind: string, name: string | undefined): T => {
    const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
    if (found === undefined) throw new Error(`no ${kind} ${name}`);
    return found as T;
  };

  it.each([
    { shipped: 'kubectl kustomize config/', build: () => kustomizeOverlay(cp.kubectl) },
    { shipped: 'helm template helm/olmv1', build: () => renderChart(cp.kubeconfigPath) },
  ])('$shipped', async ({ build }) => {
    const [theirs, ours] = await Promise.all([upstream(), build()]);
    const services = (objects: KubeObject[]) => objects.filter((o) => o.kind === 'Service').map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    expect(services(ours).sort()).toEqual(services(theirs).sort());
    for (const want of theirs.filter((o): o is Service => o.kind === 'Service')) {
      const got = named<Service>(ours, 'Service', want.metadata.name);
      expect(got.spec.ports, want.metadata.name).toEqual(want.spec.ports);
      expect(got.spec.selector, want.metadata.name).toEqual(want.spec.selector);
      expect(got.metadata.labels, want.metadata.name).toEqual(want.metadata.labels);
    }
    // Upstream's labels, each with its value; the selectors stay ours (a Deployment's selector is immutable).
    for (const want of theirs.filter((o): o is Deployment => o.kind === 'Deployment')) {
      const got = named<Deployment>(ours, 'Deployment', want.metadata.name);
      expect(got.metadata.labels, want.metadata.name).toMatchObject(want.metadata.labels ?? {});
      expect(got.spec.template.metadata.labels, want.metadata.name).toMatchObject(want.spec.template.metadata.labels);
    }
  });
});

describe("config/openshift and helm/openshift.yaml give the components what upstream's OpenShift manifests give them", () => {
  const upstream = async (): Promise<KubeObject[]> =>
    (
      await Promise.all(
        ['openshift-catalogd.yaml', 'openshift-operator-controller.yaml'].map(async (f) =>
          parseObjects(await readFile(repoPath(`test/fixtures/upstream-manifests/${f}`), 'utf8')),
        ),
      )
    ).flat();
  const COMPONENTS = [
    { deployment: CATALOGD, configMap: 'catalogd-trusted-ca-bundle' },
    { deployment: OC, configMap: 'operator-controller-trusted-ca-bundle' },
  ];
  const sortedBy = (files: { file: string; source: string }[]): string[] => files.map((f) => f.source).sort();
  const account = (objects: KubeObject[], deployment: string) => {
    const d = deploymentOf(objects, deployment);
    return { namespace: d.metadata.namespace ?? '', name: d.spec.template.spec.serviceAccountName };
  };

  it.each([
    {
      shipped: 'kubectl kustomize config/ with config/openshift and config/openshift/catalogs',
      build: () => kustomizeOverlay(cp.kubectl, { components: ['openshift', 'openshift/catalogs'] }),
    },
    {
      shipped: 'helm template helm/olmv1 -f helm/openshift.yaml',
      build: () => renderChart(cp.kubeconfigPath, { files: [repoPath('helm/openshift.yaml')] }),
    },
  ])('$shipped', async ({ build }) => {
    const [theirs, ours] = await Promise.all([upstream(), build()]);
    for (const { deployment, configMap } of COMPONENTS) {
      const [their, our] = [deploymentOf(theirs, deployment), deploymentOf(ours, deployment)];
      // The cluster's pull secret, readable (an informer: list and watch) by the component's ServiceAccount.
      const pullSecret = flagOf(their, 'global-pull-secret');
      expect(pullSecret, deployment).toBe('openshift-config/pull-secret');
      expect(flagOf(our, 'global-pull-secret'), deployment).toBe(pullSecret);
      const [namespace = '', name = ''] = (pullSecret ?? '').split('/');
      for (const verb of ['list', 'watch']) {
        const request = { verb, resource: 'secrets', namespace, name };
        expect(allows(theirs, account(theirs, deployment), request), `upstream's ${deployment} ${verb}`).toBe(true);
        expect(allows(ours, account(ours, deployment), request), `${deployment} ${verb}`).toBe(true);
        // Ours: that Secret alone; upstream's Role grants every Secret of openshift-config.
        const other = { ...request, name: 'other-secret' };
        expect(allows(theirs, account(theirs, deployment), other), `upstream's ${deployment} ${verb} of another Secret`).toBe(true);
        expect(allows(ours, account(ours, deployment), other), `${deployment} ${verb} of another Secret`).toBe(false);
      }
      // The trusted CA bundle: upstream's ConfigMap (name, labels) in the component's namespace,
      // for OpenShift to fill.
      const cm = (objects: KubeObject[], ns: string | undefined) =>
        objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === configMap && o.metadata.namespace === ns);
      const theirConfigMap = cm(theirs, their.metadata.namespace);
      expect(theirConfigMap?.metadata.labels?.[INJECT_TRUSTED_CA], configMap).toBe('true');
      expect(cm(ours, our.metadata.namespace), configMap).toEqual({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: configMap, namespace: our.metadata.namespace, labels: theirConfigMap?.metadata.labels },
      });
      // Registry CAs: the same files in the directory upstream names with SSL_CERT_DIR and ours
      // with --pull-cas-dir (which reads *.crt): the trusted CA bundle and the service CA.
      const theirCas = filesIn(theirs, their, envOf(their, 'SSL_CERT_DIR') ?? 'none');
      const ourCas = filesIn(ours, our, flagOf(our, 'pull-cas-dir') ?? 'none');
      expect(sortedBy(theirCas), deployment).toEqual(['ConfigMap openshift-service-ca.crt service-ca.crt', 'the trusted CA bundle ca-bundle.crt']);
      expect(sortedBy(ourCas), deployment).toEqual(sortedBy(theirCas));
      for (const f of ourCas) expect(f.file, deployment).toMatch(/\.crt$/);
    }
    // operator-controller trusts catalogd with the service CA: upstream's --catalogd-cas-dir
    // holds it (and the trusted CA bundle), ours --catalogd-ca-file is that one file.
    const [their, our] = [deploymentOf(theirs, OC), deploymentOf(ours, OC)];
    expect(sortedBy(filesIn(theirs, their, flagOf(their, 'catalogd-cas-dir') ?? 'none'))).toContain(
      'ConfigMap openshift-service-ca.crt service-ca.crt',
    );
    expect(sourceOfFile(ours, our, flagOf(our, 'catalogd-ca-file') ?? 'none')).toBe('ConfigMap openshift-service-ca.crt service-ca.crt');
    // The default catalogs: upstream's names and specs.
    const catalogs = (objects: KubeObject[]) =>
      objects
        .filter((o) => o.kind === 'ClusterCatalog')
        .map((o) => ({ name: o.metadata.name, spec: o['spec'] }))
        .sort((a, b) => String(a.name).localeCompare(String(b.name)));
    expect(catalogs(theirs)).toHaveLength(4);
    expect(catalogs(ours)).toEqual(catalogs(theirs));
  });
});

describe('helm/olmv1 refuses what config/ cannot express and passes helm lint', () => {
  it('refuses cert-manager and OpenShift together (both would write the serving Secrets)', async () => {
    const run = await helm('template', 'olmv1', CHART, '--set', 'options.certManager.enabled=true', '--set', 'options.openshift.enabled=true');
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('options.certManager.enabled and options.openshift.enabled');
  });

  it('refuses a default catalog it does not know in options.openshift.defaultCatalogs.disabled', async () => {
    const run = await helm(
      'template',
      'olmv1',
      CHART,
      '-f',
      repoPath('helm/openshift.yaml'),
      '--set',
      'options.openshift.defaultCatalogs.disabled={redhat-operators}',
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('options.openshift.defaultCatalogs.disabled: redhat-operators is none of openshift-certified-operators,');
  });

  it.each([{ values: '' }, { values: 'helm/cert-manager.yaml' }, { values: 'helm/openshift.yaml' }, { values: 'helm/experimental.yaml' }])(
    'helm lint --strict with values $values',
    async ({ values }) => {
      const run = await helm('lint', '--strict', CHART, ...(values === '' ? [] : ['-f', repoPath(values)]));
      expect(run, run.stdout + run.stderr).toMatchObject({ code: 0 });
      expect(run.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    },
  );
});
