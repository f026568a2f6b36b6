// Rendered bundles are valid Kubernetes objects: every object `render` produces passes a
// server-side-apply dry run on the real API server, as admin, with the controller's field
// manager and fieldValidation=Strict (an unknown or duplicate field is an error, not a warning).
//
// The multi-CRD fixture (names made unique to this run) has its CRDs created for real and
// Established first, then is rendered for AllNamespaces, OwnNamespace and SingleNamespace and
// with every deploymentConfig option. The webhook fixture is rendered with both certificate
// providers; for cert-manager the test creates its own minimal, permissive CRDs for
// `cert-manager.io/v1` Issuer and Certificate, so those objects are checked by the server too.
// A refusal names the object and carries the API server's message.
import { FIELD_MANAGER } from '../../pkg/shared/api/index.ts';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RegistryV1Bundle } from '../../pkg/operator-controller/bundle/index.ts';
import { connect, isNotFound, type KubeClient, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import type { RenderOptions } from '../../pkg/operator-controller/render/index.ts';
import { dryRunObjects } from '../../pkg/operator-controller/applier/index.ts';
import { FIXTURE_BUNDLES_DIR } from '../fixtures/bundles/golden-cases.ts';
import { certManagerCrds } from '../support/crds.ts';
import {
  applyAll,
  applyEach,
  deleteAndWait,
  loadBundleDir,
  refOf,
  renderRelease,
  uniqueMultiCrdBundle,
  waitForCrdsEstablished,
  writeBundleDir,
} from '../support/bundle-flow.ts';

const RUN = randomBytes(3).toString('hex');
const SYS = `render-${RUN}`;
const WATCHED = `render-${RUN}-watched`;
const EXT = `render-${RUN}`;

let kube: KubeContext;
let admin: KubeClient;
let tmp: string;
let multiCrd: RegistryV1Bundle;
let webhook: RegistryV1Bundle;
const createdCrds: KubeObject[] = [];

beforeAll(async () => {
  kube = await connect({ kind: 'file', path: inject('envtestControlPlane').kubeconfigPath });
  admin = kube.client;
  for (const name of [SYS, WATCHED]) await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  tmp = await mkdtemp(join(tmpdir(), 'render-apply-'));
  multiCrd = await loadBundleDir(await writeBundleDir(tmp, await uniqueMultiCrdBundle(RUN)));
  webhook = await loadBundleDir(join(FIXTURE_BUNDLES_DIR, 'webhook'));
  // cert-manager's CRD names are fixed: create them only when absent, and remove only those.
  for (const crd of certManagerCrds()) {
    if (
      await admin.get(refOf(crd)).then(
        () => false,
        (e: unknown) => (isNotFound(e) ? true : Promise.reject(e)),
      )
    )
      createdCrds.push(crd);
  }
  createdCrds.push(...multiCrd.crds.map((c) => ({ ...c, metadata: { ...c.metadata } })));
  await applyAll(admin, createdCrds);
  await waitForCrdsEstablished(admin, createdCrds);
});

afterAll(async () => {
  for (const crd of createdCrds) await deleteAndWait(admin, crd);
  kube?.close();
  if (tmp !== undefined) await rm(tmp, { recursive: true, force: true });
});

// Every deploymentConfig option, with values the API server validates (quantities, taints,
// affinity terms, volume sources).
const DEPLOYMENT_CONFIG = {
  env: [
    { name: 'LOG_LEVEL', value: 'debug' },
    { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
  ],
  envFrom: [{ prefix: 'ACME_', secretRef: { name: 'acme-env', optional: true } }],
  resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '1Gi' } },
  tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'acme', effect: 'NoExecute', tolerationSeconds: 120 }],
  nodeSelector: { 'kubernetes.io/os': 'linux' },
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] }],
      },
    },
    podAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        { weight: 10, podAffinityTerm: { topologyKey: 'topology.kubernetes.io/zone', labelSelector: { matchLabels: { app: 'db' } } } },
      ],
    },
  },
  volumes: [
    { name: 'config', configMap: { name: 'acme-override' } },
    { name: 'scratch', emptyDir: { sizeLimit: '1Gi' } },
  ],
  volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
  annotations: { 'acme.example.com/team': 'platform' },
};

interface Case {
  name: string;
  bundle: () => RegistryV1Bundle;
  options: RenderOptions;
  /** Kinds the rendering must contain (so a case cannot pass by rendering less). */
  kinds: string[];
}

const MULTI_KINDS = ['ServiceAccount', 'ConfigMap', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding', 'Service', 'Deployment'];
const NS_RBAC = [...MULTI_KINDS, 'Role', 'RoleBinding'];
const WEBHOOK_KINDS = [...MULTI_KINDS.filter((k) => k !== 'ConfigMap'), 'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'];

const CASES: Case[] = [
  { name: 'multi-crd, AllNamespaces', bundle: () => multiCrd, options: { installNamespace: SYS }, kinds: MULTI_KINDS },
  { name: 'multi-crd, OwnNamespace', bundle: () => multiCrd, options: { installNamespace: SYS, config: { watchNamespace: SYS } }, kinds: NS_RBAC },
  {
    name: 'multi-crd, SingleNamespace',
    bundle: () => multiCrd,
    options: { installNamespace: SYS, config: { watchNamespace: WATCHED } },
    kinds: NS_RBAC,
  },
  {
    name: 'multi-crd, SingleNamespace with every deploymentConfig option',
    bundle: () => multiCrd,
    options: { installNamespace: SYS, config: { watchNamespace: WATCHED, deploymentConfig: DEPLOYMENT_CONFIG } },
    kinds: NS_RBAC,
  },
  {
    name: 'multi-crd, deploymentConfig removing the affinity',
    bundle: () => multiCrd,
    options: { installNamespace: SYS, config: { deploymentConfig: { affinity: {} } } },
    kinds: MULTI_KINDS,
  },
  {
    name: 'webhook, cert-manager',
    bundle: () => webhook,
    options: { installNamespace: SYS, certProvider: 'cert-manager' },
    kinds: [...WEBHOOK_KINDS, 'Issuer', 'Certificate'],
  },
  {
    name: 'webhook, openshift-service-ca',
    bundle: () => webhook,
    options: { installNamespace: SYS, certProvider: 'openshift-service-ca' },
    kinds: WEBHOOK_KINDS,
  },
];

describe('rendered bundles on the real API server', () => {
  it('the CRDs are Established and serve the example in the CSV', async () => {
    const examples = JSON.parse(multiCrd.csv.metadata?.annotations?.['alm-examples'] ?? '[]') as KubeObject[];
    expect(examples).toHaveLength(1);
    const sample = { ...examples[0], metadata: { name: 'sample', namespace: SYS } } as KubeObject;
    const created = await admin.create(sample, { dryRun: true, fieldValidation: 'Strict' });
    expect(created).toMatchObject({ kind: 'Widget', spec: { size: 3 } });
  });

  for (const c of CASES) {
    it(`${c.name}: every object passes a strict server-side apply dry run`, async () => {
      const objects = renderRelease(c.bundle(), c.options, EXT);
      expect(new Set(objects.map((o) => o.kind))).toEqual(new Set(c.kinds));
      expect(await applyEach(admin, objects, { dryRun: true, fieldValidation: 'Strict' })).toEqual([]);
    });
  }

  it('the server keeps every deploymentConfig value (nothing is pruned or defaulted away)', async () => {
    const objects = renderRelease(multiCrd, { installNamespace: SYS, config: { deploymentConfig: DEPLOYMENT_CONFIG } }, EXT);
    const deployment = objects.find((o) => o.kind === 'Deployment') as KubeObject;
    const answer = await admin.apply(deployment, { fieldManager: FIELD_MANAGER, force: true, dryRun: true, fieldValidation: 'Strict' });
    const pod = (answer['spec'] as { template: { spec: Record<string, unknown> } }).template.spec;
    expect(pod).toMatchObject({ nodeSelector: DEPLOYMENT_CONFIG.nodeSelector, affinity: DEPLOYMENT_CONFIG.affinity });
    expect(pod['tolerations']).toContainEqual(DEPLOYMENT_CONFIG.tolerations[0]);
    const containers = pod['containers'] as { resources: unknown; env: { name: string }[]; volumeMounts: unknown[] }[];
    for (const container of containers) {
      expect(container.resources).toEqual(DEPLOYMENT_CONFIG.resources);
      // The server only adds the default fieldRef.apiVersion.
      expect(container.env.find((e) => e.name === 'POD_NAME')).toEqual({
        name: 'POD_NAME',
        valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } },
      });
      expect(container.volumeMounts).toContainEqual(DEPLOYMENT_CONFIG.volumeMounts[0]);
    }
  });

  it('a refused object is named with the API server message (strict validation catches unknown fields)', async () => {
    const objects = renderRelease(multiCrd, { installNamespace: SYS }, EXT);
    const deployment = objects.find((o) => o.kind === 'Deployment') as KubeObject;
    const spec = deployment['spec'] as Record<string, unknown>;
    const broken = { ...deployment, spec: { ...spec, replicaCount: 2 } };
    const configMap = objects.find((o) => o.kind === 'ConfigMap') as KubeObject;
    const failures = await applyEach(admin, [configMap, broken], { dryRun: true, fieldValidation: 'Strict' });
    expect(failures).toEqual([
      {
        object: `Deployment ${SYS}/acme-${RUN}-controller-manager`,
        message: `failed to create typed patch object (${SYS}/acme-${RUN}-controller-manager; apps/v1, Kind=Deployment): .spec.replicaCount: field not declared in schema`,
      },
    ]);
  });

  it("a refusal by the applier's dry run before the first write carries upstream's dry-run message", async () => {
    const prefix = 'failed to get release state using server-side dry-run: ';
    const group = `dryrun-${RUN}.example.com`;
    const version = (name: string) => ({ name, served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } });
    // Two storage versions: the API server refuses the CRD.
    const crd: KubeObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `gizmos.${group}` },
      spec: { group, scope: 'Namespaced', names: { kind: 'Gizmo', plural: 'gizmos' }, versions: [version('v1'), version('v2')] },
    };
    const refused = await dryRunObjects(admin, [crd], new Set()).then(
      () => undefined,
      (e: unknown) => e as Error & { object?: string },
    );
    expect(refused?.object).toBe(`CustomResourceDefinition gizmos.${group}`);
    expect(refused?.message).toMatch(
      new RegExp(
        `^${prefix}CustomResourceDefinition.apiextensions.k8s.io "gizmos.${group.replaceAll('.', '\\.')}" is invalid: .*must have exactly one version marked as storage version`,
      ),
    );
    expect(
      await admin.get(refOf(crd)).then(
        () => true,
        (e: unknown) => (isNotFound(e) ? false : Promise.reject(e)),
      ),
    ).toBe(false);

    // A kind nothing serves (no CRD of the release defines it): upstream's post-renderer text.
    const gizmo = { apiVersion: `${group}/v1`, kind: 'Gizmo', metadata: { name: 'g', namespace: SYS } };
    const unserved = await dryRunObjects(admin, [gizmo], new Set()).then(
      () => undefined,
      (e: unknown) => e as Error & { object?: string },
    );
    expect(unserved?.message).toBe(
      `${prefix}error while running post render on files: postrenderer[0] (*client.ownerPostRenderer) failed: resource mapping not found for name: "g" namespace: "${SYS}" from "": no matches for kind "Gizmo" in version "${group}/v1"\nensure CRDs are installed first`,
    );
  });
});
