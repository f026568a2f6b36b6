// Where `olmv1 upgrade plan` takes operator-controller's feature gates from (decision 0137):
// --feature-gates, else operator-controller's Deployment, else its defaults, which alone let the
// deployed release's objects tell the certificate provider; --cert-provider sets it always.
import { describe, expect, it } from 'vitest';
import type { CertProviderName } from '../../pkg/operator-controller/render/index.ts';
import { ApiError, type KubeClient, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { fakeCluster } from '../../test/support/fake-cluster.ts';
import { formatGates, planGates as planWith } from '../../pkg/olmv1/upgrade/index.ts';
import { controllerGates } from './upgrade-gates.ts';

const NS = 'olmv1-system';
const DEFAULTS = {
  SingleOwnNamespaceInstallSupport: true,
  DeploymentConfig: true,
  WebhookProviderCertManager: true,
  WebhookProviderOpenshiftServiceCA: true,
};

function deployment(args: string[], name = 'operator-controller-controller-manager', command: string[] = ['node', 'main.js']): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS, labels: { 'app.kubernetes.io/name': 'operator-controller' } },
    spec: {
      template: {
        spec: {
          containers: [
            { name: 'kube-rbac-proxy', args: ['--feature-gates=DeploymentConfig=true'] },
            { name: 'manager', command, args },
          ],
        },
      },
    },
  };
}

/** A deployed release rendered with the OpenShift service CA (its webhook Service's annotation). */
const SERVICE_CA_RELEASE: KubeObject[] = [
  { apiVersion: 'v1', kind: 'Service', metadata: { name: 'w', annotations: { 'service.beta.openshift.io/serving-cert-secret-name': 'c' } } },
];

/** The plan's gates with operator-controller's own parser, as the commands compose them; a refusal thrown with its exit code. */
async function planGates(...args: [KubeClient, string, { featureGates?: string[]; certProvider?: CertProviderName }, KubeObject[]]) {
  const r = await planWith(...args, controllerGates);
  if (!r.ok) throw Object.assign(new Error(r.error), { exitCode: 1 });
  return r.value;
}

describe('planGates', () => {
  it('--feature-gates decides alone: the Deployment is not read', async () => {
    const cluster = fakeCluster();
    cluster.seed(deployment(['--feature-gates=DeploymentConfig=false']));
    const g = await planGates(
      cluster.client,
      NS,
      { featureGates: ['SingleOwnNamespaceInstallSupport=false', 'WebhookProviderCertManager=false'] },
      [],
    );
    expect(g).toEqual({
      source: 'flag',
      from: '--feature-gates',
      values: { ...DEFAULTS, SingleOwnNamespaceInstallSupport: false, WebhookProviderCertManager: false },
    });
    expect(cluster.calls).toEqual([]);
  });

  it("reads the manager container's --feature-gates in both forms, command and args, with operator-controller's defaults for the rest", async () => {
    const cluster = fakeCluster();
    cluster.seed(
      deployment(['--leader-elect', '--feature-gates', 'SingleOwnNamespaceInstallSupport=false,AllBeta=false'], undefined, [
        'node',
        'main.js',
        '--feature-gates=DeploymentConfig=false',
      ]),
    );
    const g = await planGates(cluster.client, NS, {}, SERVICE_CA_RELEASE);
    // AllBeta is a stage setting: the GA provider gates keep their defaults, and the deployed release tells nothing here.
    expect(g).toEqual({
      source: 'deployment',
      from: `the Deployment ${NS}/operator-controller-controller-manager`,
      values: { ...DEFAULTS, SingleOwnNamespaceInstallSupport: false, DeploymentConfig: false },
    });
    expect(formatGates(g)).toBe(
      'Feature gates: DeploymentConfig=false, SingleOwnNamespaceInstallSupport=false, WebhookProviderCertManager=true, WebhookProviderOpenshiftServiceCA=true' +
        ` (from the Deployment ${NS}/operator-controller-controller-manager)`,
    );
  });

  it('finds the Deployment by its label when it has another name', async () => {
    const cluster = fakeCluster();
    cluster.seed(deployment(['--feature-gates=WebhookProviderCertManager=false'], 'olmv1-operator-controller'));
    const g = await planGates(cluster.client, NS, {}, []);
    expect(g).toMatchObject({
      source: 'deployment',
      from: `the Deployment ${NS}/olmv1-operator-controller`,
      values: { WebhookProviderCertManager: false },
    });
  });

  it('without a Deployment: the defaults, and the certificate provider the deployed release shows', async () => {
    const cluster = fakeCluster();
    expect(await planGates(cluster.client, NS, {}, [])).toEqual({
      source: 'defaults',
      from: `operator-controller's defaults: no Deployment operator-controller-controller-manager (or one labelled app.kubernetes.io/name=operator-controller) in ${NS}`,
      values: DEFAULTS,
    });
    expect(await planGates(cluster.client, NS, {}, SERVICE_CA_RELEASE)).toMatchObject({
      source: 'defaults',
      from: expect.stringMatching(/; certificate provider openshift-service-ca as the deployed release has it$/) as unknown,
      values: { ...DEFAULTS, WebhookProviderCertManager: false, WebhookProviderOpenshiftServiceCA: true },
    });
  });

  it('a Deployment these credentials cannot read: the defaults, saying so', async () => {
    const cluster = fakeCluster({
      refuse: { [`get Deployment ${NS}/operator-controller-controller-manager`]: new ApiError(403, 'Forbidden', 'deployments.apps is forbidden') },
    });
    expect(await planGates(cluster.client, NS, {}, [])).toMatchObject({
      source: 'defaults',
      from: `operator-controller's defaults: the Deployment ${NS}/operator-controller-controller-manager cannot be read with these credentials`,
    });
  });

  it('--cert-provider sets the two provider gates over any source', async () => {
    const cluster = fakeCluster();
    cluster.seed(deployment([]));
    expect(await planGates(cluster.client, NS, { certProvider: 'openshift-service-ca' }, [])).toMatchObject({
      source: 'deployment',
      from: `the Deployment ${NS}/operator-controller-controller-manager; certificate provider openshift-service-ca from --cert-provider`,
      values: { WebhookProviderCertManager: false, WebhookProviderOpenshiftServiceCA: true },
    });
    const off = { featureGates: ['WebhookProviderCertManager=false,WebhookProviderOpenshiftServiceCA=false'], certProvider: 'cert-manager' as const };
    expect((await planGates(cluster.client, NS, off, [])).values).toMatchObject({ WebhookProviderCertManager: true });
  });

  it('a Deployment whose gates operator-controller refuses: exit 1, naming it', async () => {
    const cluster = fakeCluster();
    cluster.seed(deployment(['--feature-gates=NoSuchGate=true']));
    await expect(planGates(cluster.client, NS, {}, [])).rejects.toMatchObject({
      exitCode: 1,
      message: expect.stringMatching(
        new RegExp(
          `^the Deployment ${NS}/operator-controller-controller-manager has --feature-gates operator-controller refuses: unrecognized feature gate: NoSuchGate`,
        ),
      ) as unknown,
    });
  });

  it('another failure to read the Deployment is an error', async () => {
    const cluster = fakeCluster({
      refuse: { [`get Deployment ${NS}/operator-controller-controller-manager`]: new ApiError(500, 'InternalError', 'etcd went away') },
    });
    await expect(planGates(cluster.client, NS, {}, [])).rejects.toThrow(
      `error reading the Deployment ${NS}/operator-controller-controller-manager: etcd went away`,
    );
  });
});
