// The deployment manifests of config/ are valid and their RBAC is exactly what the components use.
//
// A control plane of its own, with an audit log of every request catalogd's and
// operator-controller's ServiceAccounts make, and the OpenShift kinds the cluster-upgrade gate
// writes (test/fixtures/openshift). `kubectl kustomize` (the envtest kubectl) builds config/ and
// an overlay adding the config/openshift component; `kubectl apply --dry-run=server` accepts
// every object of both; then the overlay is applied for real. The Deployments' flags are parsed by the components' own option parsers.
// catalogd and operator-controller then run in this process with tokens of the shipped
// ServiceAccounts (so only the shipped RBAC applies) and the shipped flags (leader election on
// the shipped Leases, release records in olmv1-system) and the OpenShift variant's
// --global-pull-secret (openshift-config/pull-secret, read through its Roles there), their
// ServiceAccounts' imagePullSecrets naming a Secret in olmv1-system: a catalog is served (and
// config/openshift/catalogs' ClusterCatalogs pass a server-side dry run); an extension is installed (a release big enough to need chunk Secrets), upgraded and
// uninstalled; the catalog is deleted; Events are recorded, repeats counted in a series. Both serve with a certificate, as shipped: catalogd its
// catalog API and the name-label webhook over HTTPS (operator-controller and the API server
// trusting its CA; the extension selects its catalog by that label) and both their metrics, which a
// token bound to the shipped metrics-reader ClusterRoles reads (each scrape reviewed with the
// components' own TokenReviews and SubjectAccessReviews).
//   Sufficient: every step succeeds, the gate's conditions reach the OLM and ClusterOperator
//   objects, and the audit log holds no 403 for either identity.
// Runs in both integration projects: on KUBERNETES_VERSION and on the oldest supported release,
// where config/ must apply as it is (no MutatingAdmissionPolicy there; decision 0103).
//   Minimal: every grant (verb, group, resource, and for Roles the namespace) of the shipped
//   ClusterRoles and Roles was used by at least one audited request; every request the
//   components made is covered by a shipped grant, or by the default discovery/self-review roles.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAll } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseCatalogdOptions } from '../../cmd/catalogd/options.ts';
import { parseByteSize } from '../../cmd/shared/flags.ts';
import { parseOperatorControllerOptions } from '../../cmd/operator-controller/options.ts';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { connect, isNotFound, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { type ControlPlane, freePorts, requestServiceAccountToken, serviceAccountKubeconfig, startControlPlane } from '../envtest/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import { startCatalogd, type TestCatalogd } from '../support/catalogd.ts';
import {
  applyAsAdmin,
  bundleFiles,
  clusterExtension,
  installedAs,
  packageCatalog,
  publishCatalog,
  pushBundle,
  rbacFor,
  waitForExtension,
} from '../support/extensions.ts';
import { waitForEvent } from '../support/events.ts';
import { installOpenShiftKinds } from '../support/olm-config.ts';
import { startOperatorController, type TestOperatorController } from '../support/operator-controller.ts';
import { handshake, scrape, servingCertificate, type ServingCertificate } from '../support/secure-metrics.ts';
import { kubectlWaitEstablished } from '../support/crd-established.ts';

const repo = (p: string): string => fileURLToPath(new URL(`../../${p}`, import.meta.url));
const RUN = randomBytes(3).toString('hex');
const SYSTEM = 'olmv1-system';
const OPENSHIFT_CONFIG = 'openshift-config';
const NAME_LABEL = 'olm.operatorframework.io/metadata.name';
const USERS = {
  catalogd: `system:serviceaccount:${SYSTEM}:catalogd-controller-manager`,
  operatorController: `system:serviceaccount:${SYSTEM}:operator-controller-controller-manager`,
} as const;

let cp: ControlPlane;
let work: string;
let kube: KubeContext;
let built: KubeObject[];
let catalogd: TestCatalogd | undefined;
let controller: TestOperatorController | undefined;

const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
    users: [${Object.values(USERS)
      .map((u) => JSON.stringify(u))
      .join(', ')}]
  - level: None
`;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'config-manifests-'));
  await writeFile(join(work, 'audit-policy.yaml'), auditPolicy);
  cp = await startControlPlane({
    binaries: inject('envtestBinaries'),
    apiServerExtraArgs: [`--audit-policy-file=${join(work, 'audit-policy.yaml')}`, `--audit-log-path=${join(work, 'audit.log')}`],
  });
  kube = await connect({ kind: 'file', path: cp.info.kubeconfigPath });
});

afterAll(async () => {
  await controller?.destroy();
  await catalogd?.destroy();
  kube?.close();
  await cp?.stop();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

function kubectl(args: readonly string[], stdin?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(cp.info.kubectl, ['--kubeconfig', cp.info.kubeconfigPath, ...args], { maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      err === null ? resolve(stdout) : reject(new Error(`kubectl ${args.join(' ')}: ${stderr}`, { cause: err })),
    );
    if (stdin !== undefined) child.stdin?.end(stdin);
  });
}

const find = (kind: string, name: string): KubeObject => {
  const obj = built.find((o) => o.kind === kind && o.metadata.name === name);
  if (obj === undefined) throw new Error(`kustomize output has no ${kind} ${name}`);
  return obj;
};

type Container = { command: string[]; args: string[] };
const containerOf = (deployment: string): Container =>
  (find('Deployment', deployment) as unknown as { spec: { template: { spec: { containers: Container[] } } } }).spec.template.spec
    .containers[0] as Container;

const CV = { apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', name: 'version' };
const CO = { apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator', name: 'olm' };
const OLM = { apiVersion: 'operator.openshift.io/v1', kind: 'OLM', name: 'cluster' };

/** The OpenShift kinds of test/fixtures/openshift with the objects the gate reads and writes. */
async function installOpenShiftObjects(): Promise<void> {
  await installOpenShiftKinds(cp.info, kube.client);
  const cv = await kube.client.get(CV);
  await kube.client.updateStatus({ ...cv, status: { desired: { version: '4.17.5' } } });
  await kube.client.create({ apiVersion: OLM.apiVersion, kind: OLM.kind, metadata: { name: OLM.name }, spec: { managementState: 'Managed' } });
  await kube.client.create({ apiVersion: CO.apiVersion, kind: CO.kind, metadata: { name: CO.name }, spec: {} });
}

/** The environment a pod of a shipped Deployment sees (downward API and in-cluster service). */
function podEnv(pod: string): NodeJS.ProcessEnv {
  return { POD_NAMESPACE: SYSTEM, POD_NAME: pod, KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
}

/** config/namespace.yaml and openshift-config, where config/openshift's Roles live (an OpenShift cluster has it). */
async function applyNamespaces(): Promise<void> {
  await kubectl(['apply', '-f', repo('config/namespace.yaml')]);
  await kubectl(['apply', '-f', '-'], `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${OPENSHIFT_CONFIG}\n`);
}

async function tokenKubeconfig(sa: string): Promise<string> {
  const path = join(work, `${sa}.kubeconfig`);
  await writeFile(path, serviceAccountKubeconfig(cp.info, await requestServiceAccountToken(cp.info, SYSTEM, sa)));
  return path;
}

/** The kustomize builds of config/, of config/ with the OpenShift component, with the default installer and with the admission policy. */
interface ConfigBuilds {
  yaml: string;
  base: KubeObject[];
  openshiftYaml: string;
  openshift: KubeObject[];
  installerYaml: string;
  withInstaller: KubeObject[];
  policyYaml: string;
  withPolicy: KubeObject[];
}

/** `kubectl kustomize` of config/ with `component` added by an overlay in `work`. */
async function buildWithComponent(component: string): Promise<{ yaml: string; objects: KubeObject[] }> {
  const overlay = join(work, `${component.replaceAll('/', '-')}-overlay`);
  await mkdir(overlay);
  await writeFile(
    join(overlay, 'kustomization.yaml'),
    `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [${relative(overlay, repo('config'))}]\ncomponents: [${relative(overlay, repo(component))}]\n`,
  );
  const yaml = await kubectl(['kustomize', overlay]);
  return { yaml, objects: (loadAll(yaml) as KubeObject[]).filter((o) => o !== null) };
}

async function buildConfig(): Promise<ConfigBuilds> {
  const yaml = await kubectl(['kustomize', repo('config')]);
  const base = (loadAll(yaml) as KubeObject[]).filter((o) => o !== null);
  // The OpenShift overlay: config/ plus the config/openshift component.
  const overlay = join(work, 'openshift-overlay');
  await mkdir(overlay);
  const rel = (p: string): string => relative(overlay, repo(p));
  await writeFile(
    join(overlay, 'kustomization.yaml'),
    `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [${rel('config')}]\ncomponents: [${rel('config/openshift')}]\n`,
  );
  const openshiftYaml = await kubectl(['kustomize', overlay]);
  const openshift = (loadAll(openshiftYaml) as KubeObject[]).filter((o) => o !== null);
  // The opt-in default installer: its ServiceAccount bound to cluster-admin, and the flag.
  const installerOverlay = join(work, 'installer-overlay');
  await mkdir(installerOverlay);
  await writeFile(
    join(installerOverlay, 'kustomization.yaml'),
    `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [${relative(installerOverlay, repo('config'))}]\ncomponents: [${relative(installerOverlay, repo('config/default-installer'))}]\n`,
  );
  const installerYaml = await kubectl(['kustomize', installerOverlay]);
  const withInstaller = (loadAll(installerYaml) as KubeObject[]).filter((o) => o !== null);
  const policy = await buildWithComponent('config/admission');
  // What the tests below read (find, containerOf, grantsOf): the OpenShift variant.
  built = openshift;
  return { yaml, base, openshiftYaml, openshift, installerYaml, withInstaller, policyYaml: policy.yaml, withPolicy: policy.objects };
}

// Each test that needs the builds or the applied config asks for them (once per file), so
// any one of them runs alone.
let builds: Promise<ConfigBuilds> | undefined;
const configBuilds = (): Promise<ConfigBuilds> => (builds ??= buildConfig());
let certificate: Promise<ServingCertificate> | undefined;
/** A certificate of a test CA for 127.0.0.1, in place of the Secrets (both components serve with it). */
const testCertificate = (): Promise<ServingCertificate> => (certificate ??= servingCertificate(work));
let applied: Promise<{ webhookPort: number }> | undefined;
/**
 * The OpenShift variant of config/ applied to the cluster (the components' environment), as it
 * is: its webhook configuration sends ClusterCatalog writes to catalogd. The API server here
 * cannot reach a Service, so the webhook's service reference becomes the address the test's
 * catalogd will serve it on, with the test CA as caBundle (the service CA's injection).
 */
const appliedConfig = (): Promise<{ webhookPort: number }> =>
  (applied ??= (async () => {
    const { openshiftYaml } = await configBuilds();
    await applyNamespaces();
    await kubectl(['apply', '--server-side', '-f', '-'], openshiftYaml);
    await kubectlWaitEstablished(kubectl, ['crd/clustercatalogs.olm.operatorframework.io', 'crd/clusterextensions.olm.operatorframework.io']);
    const [webhookPort = 0] = await freePorts(1);
    const { caPem } = await testCertificate();
    const ref = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      name: 'catalogd-mutating-webhook-configuration',
    };
    const live = (await kube.client.get(ref)) as KubeObject & { webhooks: Array<{ clientConfig: { service?: { path: string } } }> };
    const path = live.webhooks[0]?.clientConfig.service?.path ?? '';
    const clientConfig = { url: `https://127.0.0.1:${webhookPort}${path}`, caBundle: Buffer.from(caPem).toString('base64') };
    await kube.client.patch(ref, [{ op: 'replace', path: '/webhooks/0/clientConfig', value: clientConfig }], 'json');
    return { webhookPort };
  })());

describe('config/ on a real API server', () => {
  it('builds with kubectl kustomize and passes a server-side dry run', async () => {
    const { yaml, base, openshiftYaml, openshift, installerYaml, withInstaller, policyYaml, withPolicy } = await configBuilds();
    const names = base.map((o) => `${o.kind}/${o.metadata.name}`);
    for (const want of [
      'Namespace/olmv1-system',
      'CustomResourceDefinition/clustercatalogs.olm.operatorframework.io',
      'CustomResourceDefinition/clusterextensions.olm.operatorframework.io',
      'ServiceAccount/catalogd-controller-manager',
      'ServiceAccount/operator-controller-controller-manager',
      'ClusterRole/operator-controller-manager-role',
      'Deployment/catalogd-controller-manager',
      'Deployment/operator-controller-controller-manager',
      'Service/catalogd-service',
      'Service/operator-controller-service',
      'ClusterRole/catalogd-metrics-reader',
      'ClusterRole/operator-controller-metrics-reader',
      'MutatingWebhookConfiguration/catalogd-mutating-webhook-configuration',
    ]) {
      expect(names).toContain(want);
    }
    // No MutatingAdmissionPolicy in config/ itself: it applies to clusters that lack the kind.
    expect(base.filter((o) => o.kind.startsWith('MutatingAdmissionPolicy'))).toEqual([]);
    expect(withPolicy.map((o) => `${o.kind}/${o.metadata.name}`).filter((n) => !names.includes(n))).toEqual([
      'MutatingAdmissionPolicy/olm-clustercatalog-metadata-name-label',
      'MutatingAdmissionPolicyBinding/olm-clustercatalog-metadata-name-label',
    ]);
    const at = (o: KubeObject): string => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    expect(openshift.map(at).filter((n) => !base.map(at).includes(n))).toEqual([
      'Role/openshift-config/catalogd-manager-role',
      'Role/openshift-config/operator-controller-manager-role',
      'ClusterRole//operator-controller-openshift-role',
      'RoleBinding/openshift-config/catalogd-manager-rolebinding',
      'RoleBinding/openshift-config/operator-controller-manager-rolebinding',
      'ClusterRoleBinding//operator-controller-openshift-rolebinding',
      'ConfigMap/olmv1-system/catalogd-trusted-ca-bundle',
      'ConfigMap/olmv1-system/operator-controller-trusted-ca-bundle',
    ]);
    expect(withInstaller.map((o) => `${o.kind}/${o.metadata.name}`).filter((n) => !names.includes(n))).toEqual([
      'ServiceAccount/olmv1-default-installer',
      'ClusterRoleBinding/olmv1-default-installer',
    ]);
    const controller = withInstaller.find((o) => o.kind === 'Deployment' && o.metadata.name === 'operator-controller-controller-manager');
    expect(JSON.stringify(controller)).toContain('--default-install-service-account=olmv1-system/olmv1-default-installer');

    // Namespaced objects need their namespace to exist, even in a dry run.
    await applyNamespaces();
    // The admission component where the API server has the kind (GA in 1.36).
    const resources = await kubectl(['api-resources', '--api-group=admissionregistration.k8s.io', '-o', 'name']);
    const policyServed = resources.split('\n').includes('mutatingadmissionpolicies.admissionregistration.k8s.io');
    expect(policyServed).toBe(Number(/^v1\.(\d+)\./.exec(inject('envtestBinaries').versions.kubeApiserver)?.[1]) >= 36);
    for (const [text, objects] of [
      [yaml, base],
      [openshiftYaml, openshift],
      [installerYaml, withInstaller],
      ...(policyServed ? ([[policyYaml, withPolicy]] as const) : []),
    ] as const) {
      const dry = await kubectl(['apply', '--dry-run=server', '-f', '-'], text);
      expect(dry.trim().split('\n')).toHaveLength(objects.length);
      for (const line of dry.trim().split('\n')) expect(line).toMatch(/ \(server dry run\)$/);
    }
  });

  it('ships Deployments whose flags the components accept', async () => {
    await configBuilds();
    const env = podEnv('pod-0');
    const c = containerOf('catalogd-controller-manager');
    expect(c.command.at(-1)).toBe('dist/cmd/catalogd/main.js');
    expect(parseCatalogdOptions(c.args, env)).toMatchObject({ leaderElect: true, systemNamespace: SYSTEM, cacheDir: '/var/cache/catalogd' });
    const o = containerOf('operator-controller-controller-manager');
    expect(o.command.at(-1)).toBe('dist/cmd/operator-controller/main.js');
    expect(parseOperatorControllerOptions(o.args, env)).toMatchObject({
      leaderElect: true,
      systemNamespace: SYSTEM,
      cacheDir: '/var/cache/operator-controller',
    });
    const replicas = (name: string): number => (find('Deployment', name) as unknown as { spec: { replicas: number } }).spec.replicas;
    expect(replicas('catalogd-controller-manager')).toBe(2);
  });

  it("ships both components serving metrics over HTTPS with a mounted certificate, behind their Services' `metrics` ports", async () => {
    await configBuilds();
    type Pod = {
      containers: Array<{
        args: string[];
        ports: Array<{ name: string; containerPort: number }>;
        volumeMounts: Array<{ name: string; mountPath: string }>;
      }>;
      volumes: Array<{ name: string; secret?: { secretName: string } }>;
    };
    const env = podEnv('pod-0');
    const shipped = {
      'catalogd-controller-manager': {
        options: parseCatalogdOptions(containerOf('catalogd-controller-manager').args, env),
        service: 'catalogd-service',
      },
      'operator-controller-controller-manager': {
        options: parseOperatorControllerOptions(containerOf('operator-controller-controller-manager').args, env),
        service: 'operator-controller-service',
      },
    };
    for (const [deployment, { options, service }] of Object.entries(shipped)) {
      if (options === 'help') throw new Error('unreachable');
      expect(options.tls, deployment).toEqual({ certPath: '/var/certs/tls.crt', keyPath: '/var/certs/tls.key' });
      expect(options.tlsProfile.name).toBe('intermediate');
      const pod = (find('Deployment', deployment) as unknown as { spec: { template: { spec: Pod } } }).spec.template.spec;
      const c = pod.containers[0] as Pod['containers'][number];
      const mount = c.volumeMounts.find((m) => m.mountPath === '/var/certs');
      expect(pod.volumes.find((v) => v.name === mount?.name)?.secret?.secretName, deployment).toMatch(/-cert$/);
      const metricsPort = c.ports.find((p) => p.name === 'metrics')?.containerPort;
      expect(metricsPort, deployment).toBe(options.metrics?.port);
      const svc = find('Service', service) as unknown as { spec: { ports: Array<{ name: string; targetPort: number }> } };
      expect(svc.spec.ports).toContainEqual(expect.objectContaining({ name: 'metrics', targetPort: metricsPort }));
    }
    expect(shipped['catalogd-controller-manager'].options).toMatchObject({
      metrics: { port: 7443 },
      externalAddress: 'catalogd-service.olmv1-system.svc',
    });
    expect(shipped['operator-controller-controller-manager'].options).toMatchObject({
      metrics: { port: 8443 },
      catalogdCaFile: '/var/ca-certs/ca.crt',
    });
  });

  it('bounds the memory of every container and every emptyDir, the cache volumes above what the shipped caps let concurrent pulls write', async () => {
    await configBuilds();
    type PodSpec = {
      containers: Array<{ name: string; resources?: { limits?: { memory?: string } } }>;
      volumes: Array<{ name: string; emptyDir?: { sizeLimit?: string } }>;
    };
    const pod = (name: string): PodSpec => (find('Deployment', name) as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec;
    const size = (v: string | undefined): number => parseByteSize('quantity', v ?? '');
    for (const name of ['catalogd-controller-manager', 'operator-controller-controller-manager']) {
      for (const c of pod(name).containers) expect(size(c.resources?.limits?.memory), `${name}/${c.name}`).toBeGreaterThanOrEqual(256 << 20);
      for (const v of pod(name).volumes)
        if (v.emptyDir !== undefined) expect(size(v.emptyDir.sizeLimit), `${name} volume ${v.name}`).toBeGreaterThan(0);
    }
    const cacheOf = (name: string): number => size(pod(name).volumes.find((v) => v.name === 'cache')?.emptyDir?.sizeLimit);
    const env = podEnv('pod-0');
    const c = parseCatalogdOptions(containerOf('catalogd-controller-manager').args, env);
    const o = parseOperatorControllerOptions(containerOf('operator-controller-controller-manager').args, env);
    if (c === 'help' || o === 'help') throw new Error('unreachable');
    // Each concurrent catalog ingest may unpack up to its cap (the fallback) and store ~1.25x the catalog beside it.
    expect(cacheOf('catalogd-controller-manager')).toBeGreaterThan(
      c.maxConcurrentReconciles * (c.imageLimits.maxUnpackedBytes + 1.25 * c.decodeLimits.maxCatalogBytes),
    );
    expect(cacheOf('operator-controller-controller-manager')).toBeGreaterThan(o.maxConcurrentReconciles * o.imageLimits.maxUnpackedBytes);
  });

  // The components serve a catalog and install, upgrade and uninstall an extension with the
  // shipped RBAC, once (shippedLifecycle): the test that checks their API requests needs that
  // run, and starts it when it runs alone.
  async function runShippedLifecycle(): Promise<void> {
    const { webhookPort } = await appliedConfig();
    const env = podEnv(`pod-${RUN}`);
    await installOpenShiftObjects();
    const catalogdShipped = parseCatalogdOptions(containerOf('catalogd-controller-manager').args, env);
    const controllerShipped = parseOperatorControllerOptions(containerOf('operator-controller-controller-manager').args, env);
    if (catalogdShipped === 'help' || controllerShipped === 'help') throw new Error('unreachable');
    // The shipped --global-pull-secret (the cluster's, in openshift-config) and a Secret in
    // olmv1-system named by both ServiceAccounts' imagePullSecrets: each read with its own grant.
    const pullSecret = catalogdShipped.pullSecret;
    if (pullSecret === undefined) throw new Error('the OpenShift variant passes no --global-pull-secret');
    expect(pullSecret).toEqual({ namespace: OPENSHIFT_CONFIG, name: 'pull-secret' });
    expect(controllerShipped.pullSecret).toEqual(pullSecret);
    const auths = { auths: { 'registry.invalid': { auth: Buffer.from('u:p').toString('base64') } } };
    for (const { namespace, name } of [pullSecret, { namespace: SYSTEM, name: 'olmv1-pull-secret' }]) {
      await kube.client.create({
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'kubernetes.io/dockerconfigjson',
        metadata: { name, namespace },
        data: { '.dockerconfigjson': Buffer.from(JSON.stringify(auths)).toString('base64') },
      });
    }
    for (const sa of ['catalogd-controller-manager', 'operator-controller-controller-manager']) {
      const ref = { apiVersion: 'v1', kind: 'ServiceAccount', namespace: SYSTEM, name: sa };
      await kube.client.patch(ref, { imagePullSecrets: [{ name: 'olmv1-pull-secret' }] }, 'merge');
    }
    // The shipped serving setup, with a certificate of a test CA for 127.0.0.1 in place of the Secrets.
    const cert = await testCertificate();
    expect(catalogdShipped.webhook).toEqual({ host: '0.0.0.0', port: 9443 });
    const tls = { certPath: cert.certPath, keyPath: cert.keyPath };
    const [catalogdMetrics = 0, controllerMetrics = 0] = await freePorts(2);
    catalogd = await startCatalogd(cp.info, {
      tls,
      metrics: { host: '127.0.0.1', port: catalogdMetrics },
      tlsProfile: catalogdShipped.tlsProfile,
      tlsOptions: catalogdShipped.tlsOptions,
      kubeconfig: await tokenKubeconfig('catalogd-controller-manager'),
      leaderElect: catalogdShipped.leaderElect,
      leaderElectionId: catalogdShipped.leaderElectionId,
      systemNamespace: catalogdShipped.systemNamespace,
      pullSecret,
      pollMinuteMs: 1000,
      webhook: { host: '127.0.0.1', port: webhookPort },
    });
    controller = await startOperatorController(cp.info, {
      tls,
      metrics: { host: '127.0.0.1', port: controllerMetrics },
      tlsProfile: controllerShipped.tlsProfile,
      tlsOptions: controllerShipped.tlsOptions,
      catalogdCaFile: cert.caPath,
      kubeconfig: await tokenKubeconfig('operator-controller-controller-manager'),
      leaderElect: controllerShipped.leaderElect,
      leaderElectionId: controllerShipped.leaderElectionId,
      leaderElection: controllerShipped.leaderElection,
      systemNamespace: controllerShipped.systemNamespace,
      pullSecret,
    });

    const registry = inject('envtestRegistries').anonymous.host;
    const pkg = `cfg-${RUN}`;
    const ns = `cfg-${RUN}`;
    const sa = 'installer';
    // Two ConfigMaps of random text: the release (compressed) exceeds one Secret's piece.
    const big = (version: string) => {
      const files = bundleFiles({ pkg, version, configMaps: ['a'] });
      for (const part of ['b', 'c']) {
        const data = { blob: randomBytes(450_000).toString('base64') };
        files.set(`manifests/cm-${part}.json`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${pkg}-${part}` }, data }));
      }
      return files;
    };
    const v1 = big('1.0.0');
    const v2 = big('1.1.0');
    const images = [await pushBundle(v1, `${registry}/cfg/${pkg}:v1.0.0`), await pushBundle(v2, `${registry}/cfg/${pkg}:v1.1.0`)];
    const catalog = `cfg-${RUN}`;
    await publishCatalog(
      { kube, registry },
      catalog,
      packageCatalog(pkg, {
        defaultChannel: 'stable',
        channels: [{ name: 'stable', entries: [{ version: '1.0.0' }, { version: '1.1.0', replaces: '1.0.0' }] }],
        bundles: [
          { version: '1.0.0', image: images[0] as string },
          { version: '1.1.0', image: images[1] as string },
        ],
      }),
    );

    // OpenShift's default catalogs (config/openshift/catalogs) are valid ClusterCatalogs.
    const defaults = (await buildWithComponent('config/openshift/catalogs')).objects.filter((o) => o.kind === 'ClusterCatalog');
    expect(defaults).toHaveLength(4);
    for (const c of defaults) await kube.client.create(c, { dryRun: true });

    // Applied before its namespace exists, so the namespace read that names what is missing
    // (granted for that Event alone: the condition is upstream's text either way) is exercised too.
    // catalogd's webhook labelled the catalog with its name; the extension selects it by that label.
    const labels = (await kube.client.get({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name: catalog })).metadata.labels;
    expect(labels?.[NAME_LABEL]).toBe(catalog);
    const name = `cfg-${RUN}`;
    const byName = { matchLabels: { [NAME_LABEL]: catalog } };
    await kube.client.create(clusterExtension(name, { namespace: ns, serviceAccount: sa, packageName: pkg, version: '1.0.0', selector: byName }));
    await waitForExtension(kube.client, name, 'reports the missing service account', (e) =>
      (e.cond('Progressing')?.message ?? '').includes(`service account ${JSON.stringify(sa)} not found in namespace ${JSON.stringify(ns)}`),
    );
    await waitForEvent(kube.client, 'ClusterExtension', name, 'InstallerMissing', (e) =>
      e.note.includes(`\nnamespace ${JSON.stringify(ns)} not found`),
    );
    await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await applyAsAdmin(kube.client, await rbacFor(v1, ns, sa));
    await applyAsAdmin(kube.client, await rbacFor(v2, ns, sa));
    await waitForExtension(kube.client, name, 'installed v1', installedAs(`${pkg}.v1.0.0`), 90_000);
    const chunks = await kube.client.list({ apiVersion: 'v1', kind: 'Secret' }, { namespace: SYSTEM });
    expect(chunks.items.filter((s) => s.metadata.name?.includes(name)).length).toBeGreaterThan(1);

    await kube.client.patch(
      { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind, name },
      { spec: { source: { catalog: { version: '1.1.0' } } } },
      'merge',
    );
    await waitForExtension(kube.client, name, 'upgraded to v2', installedAs(`${pkg}.v1.1.0`), 90_000);

    // Events, written with each component's own identity: an install is recorded, and a
    // refusal that repeats (a ServiceAccount without RBAC, a catalog image that is not there)
    // is created once, then patched with its series count.
    expect(await waitForEvent(kube.client, 'ClusterExtension', name, 'Installed')).toMatchObject({
      type: 'Normal',
      reportingController: 'olm.operatorframework.io/operator-controller',
    });
    const denied = `cfg-denied-${RUN}`;
    await kube.client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'nobody', namespace: ns } });
    await kube.client.create(clusterExtension(denied, { namespace: ns, serviceAccount: 'nobody', packageName: pkg, version: '1.0.0' }));
    const broken = `cfg-broken-${RUN}`;
    await kube.client.create({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterCatalog',
      metadata: { name: broken },
      spec: { source: { type: 'Image', image: { ref: `${registry}/cfg/absent:v1` } } },
    });
    await waitForEvent(kube.client, 'ClusterExtension', denied, 'PreAuthorizationFailed', (e) => e.count >= 2);
    await waitForEvent(
      kube.client,
      'ClusterCatalog',
      broken,
      'UnpackFailed',
      (e) => e.count >= 2 && e.reportingController === 'olm.operatorframework.io/catalogd',
    );
    await kube.client.delete({ apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind, name: denied });
    await kube.client.delete({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name: broken });

    await kube.client.delete({ apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind, name });
    await waitUntil(
      'the extension is uninstalled',
      async () =>
        kube.client.get({ apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind, name }).then(
          () => false,
          (e: unknown) => isNotFound(e),
        ),
      60_000,
    );
    await expect(kube.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: `${pkg}-b` })).rejects.toSatisfy(isNotFound);

    // The gate judged the installed extension and wrote its conditions.
    await waitUntil('the gate wrote the OpenShift conditions', async () => {
      const olm = await kube.client.get(OLM);
      const co = await kube.client.get(CO);
      const types = (o: KubeObject) => ((o.status as { conditions?: { type: string }[] } | undefined)?.conditions ?? []).map((c) => c.type);
      return types(olm).includes('InstalledOLMOperatorsUpgradeable') && types(co).includes('Upgradeable');
    });

    await kube.client.delete({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name: catalog });
    await waitUntil(
      'the catalog is deleted',
      async () =>
        kube.client.get({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', name: catalog }).then(
          () => false,
          (e: unknown) => isNotFound(e),
        ),
      60_000,
    );
    // The catalog API spoke HTTPS: the installs above read it through the test CA (--catalogd-ca-file).
    expect(await handshake(catalogd.options.catalogServer.port, cert.caPem)).toMatch(/^TLSv1\.3 /);
    // Metrics: a token bound to the shipped metrics-reader roles reads both; the components
    // reviewed it with their own identities (the audit check below wants those grants used).
    await kube.client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'scraper', namespace: SYSTEM } });
    for (const role of ['catalogd-metrics-reader', 'operator-controller-metrics-reader']) {
      await kube.client.create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: `scraper-${role}` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'ServiceAccount', name: 'scraper', namespace: SYSTEM }],
      });
    }
    const scraper = await requestServiceAccountToken(cp.info, SYSTEM, 'scraper');
    for (const port of [catalogdMetrics, controllerMetrics]) {
      expect((await scrape(port, cert.caPem)).status).toBe(401);
      const res = await scrape(port, cert.caPem, scraper);
      expect(res.status).toBe(200);
      expect(res.body).toContain('controller_runtime_reconcile_total');
    }
    // Each leader renews its Lease at least once (the audit check below wants that update;
    // operator-controller renews every 26 s, as upstream's).
    for (const o of [catalogdShipped, controllerShipped]) {
      const ref = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: o.systemNamespace, name: o.leaderElectionId };
      await waitUntil(
        `Lease ${o.leaderElectionId} renewed`,
        async () => {
          const lease = (await kube.client.get(ref).catch(() => undefined))?.spec as { acquireTime?: string; renewTime?: string } | undefined;
          return lease?.renewTime !== undefined && lease.renewTime !== lease.acquireTime;
        },
        90_000,
      );
    }
  }
  let lifecycle: Promise<void> | undefined;
  const shippedLifecycle = (): Promise<void> => (lifecycle ??= runShippedLifecycle());

  it(
    'lets catalogd and operator-controller serve a catalog and install, upgrade and uninstall an extension with the shipped RBAC alone',
    () => shippedLifecycle(),
    300_000,
  );

  it('grants each component exactly what it used', async () => {
    await shippedLifecycle();
    const events = (await readFile(join(work, 'audit.log'), 'utf8'))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as AuditEvent);
    const problems: string[] = [];
    for (const [component, user] of Object.entries(USERS)) {
      const mine = events.filter((e) => e.user.username === user);
      if (mine.length === 0) problems.push(`${component}: no audited request`);
      for (const e of mine) if (e.responseStatus?.code === 403) problems.push(`${component}: refused: ${describeEvent(e)}`);
      const grants = grantsOf(user);
      const used = new Set<string>();
      for (const e of mine) {
        if (e.objectRef === undefined) {
          if (!/^\/(api|apis|openapi|version)(\/|$|\?)/.test(e.requestURI)) problems.push(`${component}: no grant covers ${describeEvent(e)}`);
          continue;
        }
        const resource = e.objectRef.resource + (e.objectRef.subresource === undefined ? '' : `/${e.objectRef.subresource}`);
        const group = e.objectRef.apiGroup ?? '';
        // SelfSubject{Access,Rules}Reviews and SelfSubjectReviews (who am I: the pull-secret
        // controller's ServiceAccount) are every authenticated user's (system:basic-user).
        if ((group === 'authorization.k8s.io' || group === 'authentication.k8s.io') && resource.startsWith('selfsubject')) continue;
        const match = grants.filter(
          (g) =>
            g.group === group &&
            g.resource === resource &&
            g.verb === e.verb &&
            (g.namespace === undefined || g.namespace === e.objectRef?.namespace),
        );
        if (match.length === 0) problems.push(`${component}: no grant covers ${describeEvent(e)}`);
        for (const g of match) used.add(g.key);
      }
      for (const g of grants) if (!used.has(g.key) && !ONLY_WHEN_MIGRATING.has(g.key)) problems.push(`${component}: unused grant ${g.key}`);
    }
    expect([...new Set(problems)]).toEqual([]);
  }, 300_000);
});

/**
 * Grants used only when a release changed a storage version of the component's own CRDs (the
 * trim of storedVersions after its objects were rewritten; pkg/shared/storageversion, proven
 * against a real API server by storage-version-migration.test.ts): none changes here.
 */
const ONLY_WHEN_MIGRATING = new Set([
  'ClusterRole/catalogd-manager-role: patch apiextensions.k8s.io/customresourcedefinitions/status',
  'ClusterRole/operator-controller-manager-role: patch apiextensions.k8s.io/customresourcedefinitions/status',
]);

interface AuditEvent {
  verb: string;
  requestURI: string;
  user: { username: string };
  objectRef?: { resource: string; subresource?: string; namespace?: string; apiGroup?: string; name?: string };
  responseStatus?: { code: number };
}

function describeEvent(e: AuditEvent): string {
  return `${e.verb} ${e.requestURI} -> ${e.responseStatus?.code ?? '?'}`;
}

interface Grant {
  key: string;
  verb: string;
  group: string;
  resource: string;
  /** The Role's namespace; undefined for a ClusterRole bound cluster-wide. */
  namespace: string | undefined;
}

type Rule = { apiGroups?: string[]; resources?: string[]; verbs: string[] };

/** Every (verb, group, resource) the shipped (Cluster)RoleBindings of `user` grant. */
function grantsOf(user: string): Grant[] {
  const grants: Grant[] = [];
  for (const binding of built.filter((o) => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding')) {
    const b = binding as unknown as { roleRef: { kind: string; name: string }; subjects: { kind: string; name: string; namespace: string }[] };
    if (!b.subjects.some((s) => s.kind === 'ServiceAccount' && `system:serviceaccount:${s.namespace}:${s.name}` === user)) continue;
    const ns = binding.kind === 'RoleBinding' ? binding.metadata.namespace : undefined;
    const role = built.find(
      (o) => o.kind === b.roleRef.kind && o.metadata.name === b.roleRef.name && (b.roleRef.kind === 'ClusterRole' || o.metadata.namespace === ns),
    );
    if (role === undefined) throw new Error(`${binding.kind} ${binding.metadata.name} refers to a missing ${b.roleRef.kind} ${b.roleRef.name}`);
    for (const rule of (role as unknown as { rules: Rule[] }).rules) {
      for (const group of rule.apiGroups ?? []) {
        for (const resource of rule.resources ?? []) {
          for (const verb of rule.verbs) {
            expect([group, resource, verb]).not.toContain('*');
            grants.push({
              key: `${b.roleRef.kind}/${b.roleRef.name}${ns === undefined ? '' : ` in ${ns}`}: ${verb} ${group}/${resource}`,
              verb,
              group,
              resource,
              namespace: ns,
            });
          }
        }
      }
    }
  }
  return grants;
}
