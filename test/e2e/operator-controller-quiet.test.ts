// A reconcile that finds nothing changed writes nothing (issue #49): real kube-apiserver (this
// file's own, with an audit log) + etcd, registry, catalogd and operator-controller in this
// process. Every request operator-controller makes (its user agent, and the extension's
// ServiceAccount it acts as) is read from the audit log. No controller manager runs, so the
// test writes the Deployment's status through its status subresource as the deployment
// controller would after a kubelet reported its Pod.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { byOperatorController, describeRequests, type AuditEvent } from '../../bench/lib/audit-log.ts';
import { startControlPlane, type ControlPlane } from '../../pkg/olmv1/localstack/index.ts';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import type { KubeContext, KubeObject, ObjectRef } from '../../pkg/shared/kube/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';
import {
  bundleFiles,
  clusterExtension,
  installedAs,
  installerFor,
  packageCatalog,
  publishCatalog,
  pushBundle,
  startExtensionStack,
  waitForExtension,
  type BundleSpec,
  type ExtensionStack,
} from '../support/extensions.ts';
import { readMetric, startOperatorController, type TestOperatorController } from '../support/operator-controller.ts';

const run = randomBytes(3).toString('hex');
const spec: BundleSpec = { pkg: `quiet-${run}`, version: '1.0.0', configMaps: ['settings'] };
const pkg = spec.pkg;
const CE: ObjectRef = { apiVersion: CLUSTER_EXTENSION.apiVersion, kind: CLUSTER_EXTENSION.kind, name: pkg };
const DEPLOYMENT: ObjectRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: pkg, name: `${pkg}-controller` };
const CONTROLLER = 'controller-operator-cluster-extension-controller';
/** Verbs that only read. */
const READS = new Set(['get', 'list', 'watch']);
let auditDir: string;
let cp: ControlPlane;
let stack: ExtensionStack;
let kube: KubeContext;
/** The operator-controller under test: the stack's, until a test restarts it. */
let controller: TestOperatorController;
/** operator-controller's requests from the ClusterExtension's creation until the install was quiet. */
let installRequests: AuditEvent[];
/** The image of the bundle installed first (1.0.0). */
let firstImage: string;

/**
 * The API server's audit log, one event per request when it is received, whole (the request
 * URI says `dryRun` and the label selector; the bench's reader keeps less).
 */
const audit = {
  path: () => join(auditDir, 'audit.log'),
  async args(): Promise<string[]> {
    const policy = join(auditDir, 'audit-policy.yaml');
    await writeFile(
      policy,
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [ResponseStarted, ResponseComplete, Panic]\nrules:\n  - level: Metadata\n',
    );
    return [`--audit-policy-file=${policy}`, `--audit-log-path=${audit.path()}`, '--audit-log-format=json', '--audit-log-maxsize=0'];
  },
  offset: async (): Promise<number> => (await stat(audit.path())).size,
};

/** operator-controller's requests since `offset` of the audit log (whole lines). */
async function requestsSince(offset: number): Promise<AuditEvent[]> {
  const text = (await readFile(audit.path())).subarray(offset).toString('utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AuditEvent)
    .filter(byOperatorController);
}

/** `verb resource[/subresource]` of each write (not a read), with `dryRun` marked: what the API server was asked to change. */
function writes(events: readonly AuditEvent[]): string[] {
  return events
    .filter((e) => !READS.has(e.verb))
    .map((e) => {
      const r = e.objectRef;
      const dryRun = /[?&]dryRun=/.test(e.requestURI) ? ' (dry run)' : '';
      return `${e.verb} ${r?.resource ?? e.requestURI}${r?.subresource === undefined ? '' : `/${r.subresource}`}${dryRun}`;
    });
}

/** Resources of the release's objects (`deployments`, `configmaps`, ...): what a re-apply or an ownership check touches. */
const RELEASE_RESOURCES = new Set([
  'deployments',
  'configmaps',
  'customresourcedefinitions',
  'serviceaccounts',
  'clusterroles',
  'clusterrolebindings',
  'roles',
  'rolebindings',
]);

/**
 * Requests on the release's objects themselves, but the drift watches' own (opened once, as the
 * ServiceAccount). Validation finds the installer ServiceAccount in its informer (decision 0155):
 * a GET of it here would be one each reconcile.
 */
function onReleaseObjects(events: readonly AuditEvent[]): string[] {
  return events
    .filter(
      (e) =>
        RELEASE_RESOURCES.has(e.objectRef?.resource ?? '') && e.verb !== 'watch' && !(e.verb === 'list' && /[?&]labelSelector=/.test(e.requestURI)),
    )
    .map((e) => `${e.verb} ${e.requestURI}`);
}

const metric = (name: string, labels: Record<string, string> = {}): Promise<number> => readMetric(controller.healthUrl, name, labels);

/** Waits until more than `reconciles` reconciles of the extension controller ended and none is queued or running. */
async function reconciledAfter(reconciles: number): Promise<void> {
  await waitUntil(`a reconcile after the ${reconciles}th, and none running`, async () => {
    const done = await metric('controller_runtime_reconcile_total', { controller: CONTROLLER });
    const busy =
      (await metric('controller_runtime_active_workers', { controller: CONTROLLER })) + (await metric('workqueue_depth', { name: CONTROLLER }));
    return done > reconciles && busy === 0;
  });
}

const healthy = (status: string, message?: string) => (e: Awaited<ReturnType<typeof waitForExtension>>) =>
  e.cond('Healthy')?.status === status && (message === undefined || e.cond('Healthy')?.message === message);

/** The Installed and Healthy conditions of each version of the ClusterExtension the install wrote (`Installed/Healthy`). */
const conditionsSeen: string[] = [];
const stopFollowing = new AbortController();

/** Watches the ClusterExtension from before its creation, noting `conditionsSeen` of each version. */
async function followConditions(): Promise<void> {
  const events = kube.client.watch<KubeObject>(CE, {
    fieldSelector: `metadata.name=${pkg}`,
    signal: stopFollowing.signal,
    allowWatchBookmarks: false,
  });
  try {
    for await (const e of events) {
      const conditions = (e.object as { status?: { conditions?: { type: string; status: string }[] } }).status?.conditions ?? [];
      const status = (type: string): string => conditions.find((c) => c.type === type)?.status ?? '-';
      conditionsSeen.push(`${status('Installed')}/${status('Healthy')}`);
    }
  } catch (err) {
    if (!stopFollowing.signal.aborted) throw err;
  }
}

beforeAll(async () => {
  auditDir = await mkdtemp(join(tmpdir(), 'quiet-audit-'));
  cp = await startControlPlane({ binaries: inject('envtestBinaries'), apiServerExtraArgs: await audit.args() });
  stack = await startExtensionStack(cp.info, inject('envtestRegistries').anonymous.host);
  ({ kube, controller } = stack);
  firstImage = await pushBundle(bundleFiles(spec), `${stack.registry}/bundles/${pkg}:v${spec.version}`);
  await installerFor(kube.client, pkg, 'installer', [spec]);
  const channels = [{ name: 'stable', entries: [{ version: spec.version }] }];
  await publishCatalog(
    stack,
    `quiet-${run}`,
    packageCatalog(pkg, { defaultChannel: 'stable', channels, bundles: [{ version: spec.version, image: firstImage }] }),
  );
  const offset = await audit.offset();
  void followConditions();
  await kube.client.create(clusterExtension(pkg, { namespace: pkg, serviceAccount: 'installer', packageName: pkg }));
  await waitForExtension(kube.client, pkg, 'installed', installedAs(`${pkg}.v1.0.0`));
  // Quiet: the drift watches listed, the reconcile their first list queued reported the
  // Deployment's health, and nothing is queued or running.
  await waitForExtension(kube.client, pkg, 'Healthy False', healthy('False', `Deployment ${pkg}/${pkg}-controller: status not reported yet`));
  await reconciledAfter(0);
  installRequests = await requestsSince(offset);
}, 180_000);

afterAll(async () => {
  stopFollowing.abort();
  if (controller !== stack?.controller) await controller?.destroy();
  await stack?.stop();
  await cp?.stop();
  if (auditDir !== undefined) await rm(auditDir, { recursive: true, force: true });
});

/** Writes the Deployment's status as the deployment controller does once its one replica is available. */
async function reportDeploymentAvailable(): Promise<KubeObject> {
  const live = await kube.client.get(DEPLOYMENT);
  const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const condition = { status: 'True', lastUpdateTime: at, lastTransitionTime: at };
  const status = {
    observedGeneration: live.metadata.generation,
    replicas: 1,
    updatedReplicas: 1,
    readyReplicas: 1,
    availableReplicas: 1,
    conditions: [
      { ...condition, type: 'Progressing', reason: 'NewReplicaSetAvailable', message: 'ReplicaSet has successfully progressed.' },
      { ...condition, type: 'Available', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' },
    ],
  };
  return kube.client.updateStatus({ ...live, status });
}

describe('a reconcile that finds nothing changed', () => {
  it('after an install, the reconcile the drift watches first list queues applies nothing again: each object applied once, then status only', () => {
    const written = writes(installRequests);
    // Each object of the release is applied once (a second, full reconcile re-applied them all).
    const applies = installRequests.filter((e) => e.verb === 'patch' && !/[?&]dryRun=/.test(e.requestURI)).map((e) => e.requestURI.split('?')[0]);
    expect(applies.length, written.join(', ')).toBeGreaterThan(0);
    expect(applies, written.join(', ')).toEqual([...new Set(applies)]);
    // After the last apply: the install's status write (Installed, and Healthy as the apply's
    // answers tell it) and, when the first lists tell otherwise (the CRD established meanwhile,
    // if the CRD watch had not listed it yet), the next reconcile's.
    const lastApply = written.findLastIndex((w) => w.startsWith('patch ') && !w.endsWith('(dry run)'));
    const after = written.slice(lastApply + 1).filter((w) => !w.endsWith(' events') && !w.startsWith('update secrets'));
    expect(after.length, written.join(', ')).toBeGreaterThanOrEqual(1);
    expect(after.length, written.join(', ')).toBeLessThanOrEqual(2);
    expect(new Set(after), written.join(', ')).toEqual(new Set(['update clusterextensions/status']));
  });

  it('after an install, Healthy comes with Installed, from the apply answers: never Unknown while the watches list', () => {
    const installed = conditionsSeen.filter((c) => c.startsWith('True/'));
    expect(installed.length, conditionsSeen.join(', ')).toBeGreaterThan(0);
    expect(new Set(installed), conditionsSeen.join(', ')).toEqual(new Set(['True/False']));
  });

  it('after a health change writes the Healthy condition only: nothing applied, dry-run, checked or recorded', async () => {
    const reconciles = await metric('controller_runtime_reconcile_total', { controller: CONTROLLER });
    const offset = await audit.offset();
    await reportDeploymentAvailable();
    await waitForExtension(kube.client, pkg, 'Healthy True', healthy('True', 'All available: 1 CustomResourceDefinition, 1 Deployment'));
    await reconciledAfter(reconciles);
    const requests = await requestsSince(offset);
    expect(writes(requests), describeRequests(requests)).toEqual(['update clusterextensions/status']);
    expect(onReleaseObjects(requests), describeRequests(requests)).toEqual([]);
  });

  it('after a change that matters to no step (an annotation) writes nothing at all', async () => {
    const before = await kube.client.get(CE);
    const reconciles = await metric('controller_runtime_reconcile_total', { controller: CONTROLLER });
    const offset = await audit.offset();
    await kube.client.patch(CE, { metadata: { annotations: { [`quiet.test/${run}`]: 'irrelevant' } } }, 'merge');
    await reconciledAfter(reconciles);
    const requests = await requestsSince(offset);
    expect(writes(requests), describeRequests(requests)).toEqual([]);
    expect(onReleaseObjects(requests), describeRequests(requests)).toEqual([]);
    expect((await kube.client.get(CE)).status).toEqual(before.status);
  });

  it('still repairs: a changed object is applied again, alone, and no record is written', async () => {
    const reconciles = await metric('controller_runtime_reconcile_total', { controller: CONTROLLER });
    const settings: ObjectRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace: pkg, name: `${pkg}-settings` };
    const version = async (): Promise<string | undefined> =>
      (await kube.client.get<KubeObject & { data?: Record<string, string> }>(settings)).data?.['version'];
    const offset = await audit.offset();
    await kube.client.patch(settings, { data: { version: 'tampered' } }, 'merge', { fieldManager: 'e2e-user' });
    await waitUntil('the ConfigMap restored', async () => (await version()) === '1.0.0');
    await reconciledAfter(reconciles);
    const requests = await requestsSince(offset);
    const objectWrites = writes(requests).filter((w) => !w.endsWith(' events') && w !== 'update clusterextensions/status');
    expect(objectWrites, describeRequests(requests)).toEqual(['patch configmaps']);
  });
});

describe('a restart', () => {
  it('applies nothing in its first reconcile: every object as operator-controller last applied it, status writes aside', async () => {
    const offset = await audit.offset();
    await controller.destroy();
    controller = await startOperatorController(stack.cp);
    // The new process reconciles the extension once (its informer's first list) and is quiet.
    await reconciledAfter(0);
    const requests = await requestsSince(offset);
    // Its drift watches list and watch as the ServiceAccount; nothing is read, dry-run or applied.
    // (At start-up the upgrade gate looks for OpenShift's CRDs, the storage-version migration reads
    // operator-controller's own CRDs (pkg/shared/storageversion), the ServiceAccount's token is requested,
    // and the ServiceAccounts' informer lists them, decision 0155.)
    const startUp = (r: string): boolean =>
      /^list \/api\/v1\/serviceaccounts\?/.test(r) ||
      /[?&]fieldSelector=metadata\.name%3D[a-z.]+\.openshift\.io&/.test(r) ||
      /^get \/apis\/apiextensions\.k8s\.io\/v1\/customresourcedefinitions\/[a-z]+\.olm\.operatorframework\.io$/.test(r) ||
      r.endsWith('/serviceaccounts/installer/token');
    expect(
      onReleaseObjects(requests).filter((r) => !startUp(r)),
      describeRequests(requests),
    ).toEqual([]);
    // No write to the release's objects, its records or the extension (its status is unchanged).
    const ours = (w: string): boolean => /^\S+ (secrets|clusterextensions)/.test(w) || RELEASE_RESOURCES.has(w.split(' ')[1]?.split('/')[0] ?? '');
    expect(
      writes(requests).filter((w) => ours(w) && w !== 'create serviceaccounts/token'),
      describeRequests(requests),
    ).toEqual([]);
    expect(await metric('controller_runtime_reconcile_total', { controller: CONTROLLER })).toBeGreaterThan(0);
  });
});

describe('an upgrade', () => {
  it('applies only what it changes: the Deployment and the RBAC named after the new CSV; nothing else applied or read', async () => {
    // 1.1.0: the Deployment's image moves, and the CSV's cluster permissions become a
    // ClusterRole and binding named after the new CSV (the old ones are deleted); the settings
    // ConfigMap (as an extra object), the CRD and the ServiceAccount are as 1.0.0 applied them: neither applied nor read (the CRD upgrade check included).
    const settings = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${pkg}-settings` }, data: { version: '1.0.0' } };
    const next: BundleSpec = { pkg, version: '1.1.0', extraObjects: [settings] };
    const image = await pushBundle(bundleFiles(next), `${stack.registry}/bundles/${pkg}:v${next.version}`);
    await installerFor(kube.client, pkg, 'installer', [next]);
    const reconciles = await metric('controller_runtime_reconcile_total', { controller: CONTROLLER });
    const offset = await audit.offset();
    const channels = [{ name: 'stable', entries: [{ version: '1.0.0' }, { version: '1.1.0', replaces: '1.0.0' }] }];
    const bundles = [
      { version: '1.0.0', image: firstImage },
      { version: '1.1.0', image },
    ];
    await publishCatalog(stack, `quiet-${run}`, packageCatalog(pkg, { defaultChannel: 'stable', channels, bundles }));
    await waitForExtension(kube.client, pkg, 'upgraded to 1.1.0', installedAs(`${pkg}.v1.1.0`));
    await reconciledAfter(reconciles);
    const requests = await requestsSince(offset);
    const objectRequests = requests.filter((e) => onReleaseObjects([e]).length > 0);
    // (Deletes run several at a time: compared in sorted order.)
    expect(writes(objectRequests).sort(), describeRequests(requests)).toEqual([
      'delete clusterrolebindings',
      'delete clusterroles',
      'patch clusterrolebindings',
      'patch clusterroles',
      'patch clusterroles (dry run)',
      'patch deployments',
      'patch deployments (dry run)',
    ]);
    const unchanged = onReleaseObjects(requests).filter((r) => /\/(configmaps|serviceaccounts|customresourcedefinitions)\//.test(r));
    expect(unchanged, describeRequests(requests)).toEqual([]);
    // The new revision was recorded (the release record Secret), holding every object still.
    expect(writes(requests).filter((w) => w.endsWith(' secrets')).length, describeRequests(requests)).toBeGreaterThan(0);
    expect(
      (
        await kube.client.get<KubeObject & { data?: Record<string, string> }>({
          ...DEPLOYMENT,
          kind: 'ConfigMap',
          apiVersion: 'v1',
          name: `${pkg}-settings`,
        })
      ).data,
    ).toEqual({ version: '1.0.0' });
  });
});
