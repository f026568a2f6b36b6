// `helm install`, `helm upgrade` and `helm uninstall` of the chart (helm/olmv1) on a real API
// server.
//
// A control plane of this file's own (the chart creates cluster-scoped objects the shared one
// already holds, and the namespace controller must finish olmv1-system's deletion), with
// kube-controller-manager but no node: the Deployments are checked as objects, never waited on
// (`helm install` without --wait). The release lives in namespace default.
//   install: every object `helm template` renders exists, owned by the release; the label
//     policy it installs labels a ClusterCatalog with its name.
//   upgrade: new replicas and resources change exactly those fields; every other object keeps
//     its resourceVersion (Helm patched nothing else).
//   value files: an upgrade to helm/cert-manager.yaml creates the Issuers and Certificates (on
//     open CRDs of cert-manager's kinds), one to helm/openshift.yaml deletes them, annotates the
//     Services, swaps operator-controller's CA volume to the service CA's and the trusted CA
//     bundle's ConfigMaps, and creates the Roles in openshift-config (made first, as on
//     OpenShift) and the default ClusterCatalogs.
//   uninstall: every object goes but the CRDs (helm.sh/resource-policy: keep) and so the
//     ClusterCatalogs they hold; a second install adopts the kept CRDs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, isNotFound, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { helmWith } from '../support/helm.ts';
import { waitForCrdsEstablished } from '../support/bundle-flow.ts';
import { certManagerCrds } from '../support/crds.ts';
import { CHART, objectKey, renderChart, repoPath } from '../support/helm-chart.ts';
import { useOwnControlPlane } from '../support/own-control-plane.ts';

const own = useOwnControlPlane({ controllerManager: true });
let kube: KubeContext;
let rendered: KubeObject[];
const RELEASE = ['olmv1', '-n', 'default'] as const;
// The label policy sets the label before catalogd's webhook is asked, so ClusterCatalogs can be
// written with no catalogd running (failurePolicy Fail).
const VALUES = ['--set', 'options.metadataNameLabelPolicy.enabled=true'] as const;
const LABEL = 'olm.operatorframework.io/metadata.name';

beforeAll(async () => {
  kube = await connect({ kind: 'file', path: own.info.kubeconfigPath });
  rendered = await renderChart(own.info.kubeconfigPath, { set: [VALUES[1]] });
});
afterAll(() => {
  kube?.close();
});

const helm = (...args: string[]): ReturnType<typeof helmWith> => helmWith(own.info.kubeconfigPath, ...args);

/** The live object, or undefined when the server has none. */
async function live(o: KubeObject): Promise<KubeObject | undefined> {
  const ref = { apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name ?? '', namespace: o.metadata.namespace };
  try {
    return await kube.client.get(ref);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

async function liveAll(): Promise<Map<string, KubeObject | undefined>> {
  return new Map(await Promise.all(rendered.map(async (o) => [objectKey(o), await live(o)] as const)));
}

/** The fields of a Deployment's spec the upgrade changes (the rest is compared whole). */
interface DeploymentSpec {
  replicas: number;
  template: { spec: { containers: { resources: { limits: Record<string, string> } }[] } };
}

const specOf = (objects: Map<string, KubeObject | undefined>, name: string): DeploymentSpec =>
  (objects.get(`apps/v1/Deployment olmv1-system/${name}`) as unknown as { spec: DeploymentSpec }).spec;

const catalog = (name: string): KubeObject => ({
  apiVersion: 'olm.operatorframework.io/v1',
  kind: 'ClusterCatalog',
  metadata: { name },
  spec: { source: { type: 'Image', image: { ref: 'registry.test/catalog:latest' } } },
});

describe('helm install, upgrade and uninstall of helm/olmv1', () => {
  it('helm install creates every object the chart renders, owned by the release', async () => {
    const run = await helm('install', ...RELEASE, CHART, ...VALUES);
    expect(run, run.stderr).toMatchObject({ code: 0 });
    const objects = await liveAll();
    expect(rendered.length).toBeGreaterThan(20);
    for (const [key, obj] of objects) {
      expect(obj, key).toBeDefined();
      expect(obj?.metadata.labels?.['app.kubernetes.io/managed-by'], key).toBe('Helm');
      expect(obj?.metadata.annotations?.['meta.helm.sh/release-name'], key).toBe('olmv1');
    }
    expect(specOf(objects, 'catalogd-controller-manager').replicas).toBe(2);
    // The label policy is live once the API server has loaded it: a dry-run create shows it.
    await expect
      .poll(async () => (await kube.client.create(catalog('probe'), { dryRun: true })).metadata.labels?.[LABEL], { timeout: 30_000 })
      .toBe('probe');
  });

  it('helm upgrade with new replicas and resources changes exactly those fields', async () => {
    const before = await liveAll();
    const run = await helm(
      'upgrade',
      ...RELEASE,
      CHART,
      '--reuse-values',
      '--set',
      'options.catalogd.deployment.replicas=3',
      '--set',
      'options.operatorController.deployment.resources.limits.memory=768Mi',
    );
    expect(run, run.stderr).toMatchObject({ code: 0 });
    const after = await liveAll();

    const catalogd = structuredClone(specOf(before, 'catalogd-controller-manager'));
    catalogd.replicas = 3;
    expect(specOf(after, 'catalogd-controller-manager')).toEqual(catalogd);
    const oc = structuredClone(specOf(before, 'operator-controller-controller-manager'));
    const [manager] = oc.template.spec.containers;
    if (manager === undefined) throw new Error('operator-controller has no container');
    manager.resources.limits.memory = '768Mi';
    expect(specOf(after, 'operator-controller-controller-manager')).toEqual(oc);

    const untouched = [...before.keys()].filter((k) => !k.startsWith('apps/v1/Deployment '));
    for (const key of untouched) expect(after.get(key)?.metadata.resourceVersion, key).toBe(before.get(key)?.metadata.resourceVersion);
    const history = JSON.parse((await helm('history', ...RELEASE, '-o', 'json')).stdout) as { revision: number; status: string }[];
    expect(history.map((h) => [h.revision, h.status])).toEqual([
      [1, 'superseded'],
      [2, 'deployed'],
    ]);
  });

  it('helm upgrade to helm/cert-manager.yaml, then to helm/openshift.yaml, adds and removes what each one renders', async () => {
    await Promise.all(certManagerCrds().map((crd) => kube.client.create(crd)));
    await waitForCrdsEstablished(kube.client, certManagerCrds());
    const certManager = (await renderChart(own.info.kubeconfigPath, { files: [repoPath('helm/cert-manager.yaml')], set: [VALUES[1]] })).filter(
      (o) => o.apiVersion === 'cert-manager.io/v1',
    );
    expect(certManager.map(objectKey).sort()).toEqual([
      'cert-manager.io/v1/Certificate olmv1-system/catalogd-service-cert',
      'cert-manager.io/v1/Certificate olmv1-system/olmv1-ca',
      'cert-manager.io/v1/Certificate olmv1-system/operator-controller-cert',
      'cert-manager.io/v1/Issuer olmv1-system/olmv1-ca',
      'cert-manager.io/v1/Issuer olmv1-system/olmv1-selfsigned',
    ]);
    let run = await helm('upgrade', ...RELEASE, CHART, '--reuse-values', '-f', repoPath('helm/cert-manager.yaml'));
    expect(run, run.stderr).toMatchObject({ code: 0 });
    for (const o of certManager) expect(await live(o), objectKey(o)).toMatchObject({ spec: o['spec'] as object });

    await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-config' } });
    run = await helm(
      'upgrade',
      ...RELEASE,
      CHART,
      '--reuse-values',
      '--set',
      'options.certManager.enabled=false',
      '-f',
      repoPath('helm/openshift.yaml'),
    );
    expect(run, run.stderr).toMatchObject({ code: 0 });
    for (const o of certManager) expect(await live(o), objectKey(o)).toBeUndefined();
    const openshift = await renderChart(own.info.kubeconfigPath, { files: [repoPath('helm/openshift.yaml')], set: [VALUES[1]] });
    for (const o of openshift.filter((x) => x.kind !== 'Deployment' && x.kind !== 'CustomResourceDefinition')) {
      expect(await live(o), objectKey(o)).toMatchObject({ metadata: { annotations: o.metadata.annotations ?? {} } });
    }
    expect(openshift.some((o) => o.metadata.name === 'operator-controller-openshift-role')).toBe(true);
    expect(openshift.filter((o) => o.kind === 'ClusterCatalog')).toHaveLength(4);
    // The ca-certs volume changed source: the Secret is gone from it, not merged with the ConfigMaps.
    const volumes = (specOf(await liveAll(), 'operator-controller-controller-manager') as unknown as { template: { spec: { volumes: object[] } } })
      .template.spec.volumes;
    expect(volumes).toContainEqual({
      name: 'ca-certs',
      projected: {
        sources: [
          { configMap: { name: 'operator-controller-trusted-ca-bundle', items: [{ key: 'ca-bundle.crt', path: 'ca-bundle.crt' }] } },
          { configMap: { name: 'openshift-service-ca.crt', items: [{ key: 'service-ca.crt', path: 'ca.crt' }] } },
        ],
        defaultMode: 420,
      },
    });
  });

  it('helm uninstall removes every object but the CRDs, which keep their ClusterCatalogs', async () => {
    await kube.client.create(catalog('kept'));
    const run = await helm('uninstall', ...RELEASE);
    expect(run, run.stderr).toMatchObject({ code: 0 });
    const crds = rendered.filter((o) => o.kind === 'CustomResourceDefinition');
    expect(crds.map((o) => o.metadata.name).sort()).toEqual([
      'clustercatalogs.olm.operatorframework.io',
      'clusterextensions.olm.operatorframework.io',
    ]);
    for (const crd of crds) expect(run.stdout).toContain(`[CustomResourceDefinition] ${crd.metadata.name}`);

    const gone = rendered.filter((o) => o.kind !== 'CustomResourceDefinition');
    // The namespace controller finishes olmv1-system's deletion.
    await expect.poll(async () => (await Promise.all(gone.map(live))).filter((o) => o !== undefined).map(objectKey), { timeout: 60_000 }).toEqual([]);
    for (const crd of crds) expect(await live(crd), crd.metadata.name).toBeDefined();
    expect((await live(catalog('kept')))?.metadata.labels?.[LABEL]).toBe('kept');
    expect(JSON.parse((await helm('list', '-n', 'default', '-o', 'json')).stdout)).toEqual([]);
  });

  it('helm install again adopts the kept CRDs', async () => {
    const run = await helm('install', ...RELEASE, CHART, ...VALUES);
    expect(run, run.stderr).toMatchObject({ code: 0 });
    for (const [key, obj] of await liveAll()) expect(obj, key).toBeDefined();
  });
});
