// The product as it ships, on a real node (issue #43; decision 0101): the project's image built
// from HEAD and config/ applied through an overlay that changes only the image (and names the
// plain-HTTP registry), serving certificates issued as an administrator without cert-manager
// would (pkg/olmv1/in-cluster). catalogd (2 replicas) and operator-controller run as Pods with
// config/'s security contexts, probes and limits; a ClusterCatalog pulled by catalogd's Pods
// from a registry on the node's bridge address serves; a ClusterExtension of the example
// operator installs and its operator Pod runs, and the console shows it Healthy in chromium; metrics answer 401/403/200 by token; the
// operator-controller leader's Pod deleted hands the Lease to a new Pod with no revision
// written twice; a catalogd leader whose process stood still past its renew deadline exits,
// restarts and leaves the Lease to a replica that writes status (issue 60); a catalogd replica
// deleted leaves the content served; both catalogd Pods evicted at once (a drain) lose one
// only, the PodDisruptionBudget refusing the other, and the content stays served; an upgrade
// rolls the operator's Pods. Each test logs its time. Needs
// root, buildah, debootstrap and the node's prerequisites (.ci/run installs them); the first
// image build takes minutes.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushExample } from '../../cmd/olmv1/up-example.ts';
import { SYSTEM_NAMESPACE, waitForDeployments, type InCluster, type Kubectl } from '../../pkg/olmv1/in-cluster/index.ts';
import type { ControlPlane } from '../../pkg/olmv1/localstack/index.ts';
import {
  condition,
  containerCgroup,
  containerPid,
  deployOnNode,
  httpsGet,
  kube,
  nodeEnv as env,
  nodeUnavailable,
  REPO,
  timed as timedBy,
  type OnNode,
} from '../support/on-node.ts';
import { startConsole } from '../support/console-run.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const missing = nodeUnavailable();
if (missing !== undefined) console.warn(`on-node.test.ts skipped: ${missing}`);

const CATALOG = 'example-catalog';
const EXTENSION = 'example-operator';
const EXT_NS = 'example-operator';
let onNode: OnNode | undefined;
let cp: ControlPlane;
let product: InCluster;
let kubectl: Kubectl;
let k: ReturnType<typeof kube>;
let work = '';
const log = (line: string): void => console.error(`on-node: ${line}`);
const get: ReturnType<typeof kube>['get'] = (args) => k.get(args);
const list: ReturnType<typeof kube>['list'] = (args) => k.list(args);
const apply = (obj: object): Promise<string> => k.apply(obj);
const readyPods = (ns: string, selector: string): Promise<string[]> => k.readyPods(ns, selector);
const clusterIp = (service: string): Promise<string> => k.clusterIp(service);
const timed = (name: string, started: number): void => timedBy(log, name, started);
/** GET over HTTPS trusting only the product's CA, for `servername`. */
const secureGet = (url: string, servername: string, token?: string): Promise<{ status: number; body: string }> =>
  httpsGet(url, { ca: product.caCertPem, servername, token });

beforeAll(async () => {
  if (missing !== undefined) return;
  onNode = await deployOnNode(log);
  ({ cp, product, kubectl } = onNode);
  k = kube(kubectl);
}, 1_800_000);

afterAll(async () => {
  await onNode?.stop();
  if (work !== '') await rm(work, { recursive: true, force: true });
});

describe.skipIf(missing !== undefined)('the product on a real node', () => {
  it('runs config/ as shipped: catalogd with 2 Ready replicas and operator-controller, with their security contexts, probes, limits and certificates', async () => {
    for (const [name, replicas] of [
      ['catalogd', 2],
      ['operator-controller', 1],
    ] as const) {
      const pods = await list(['pods', '-n', SYSTEM_NAMESPACE, '-l', `app.kubernetes.io/name=${name}`]);
      expect(pods).toHaveLength(replicas);
      for (const pod of pods) {
        expect(condition(pod, 'Ready')).toBe('True');
        const spec = pod.spec as {
          securityContext: object;
          containers: Array<Record<string, unknown>>;
          volumes: Array<{ secret?: { secretName: string } }>;
        };
        expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
        const [c] = spec.containers;
        expect(c?.['image']).toBe(product.imageRef);
        expect(c?.['securityContext']).toMatchObject({
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
        });
        expect(c?.['readinessProbe']).toMatchObject({ httpGet: { path: '/readyz' } });
        expect(c?.['livenessProbe']).toMatchObject({ httpGet: { path: '/healthz' } });
        expect(c?.['resources']).toMatchObject({ limits: { memory: '512Mi' } });
        expect(spec.volumes.map((v) => v.secret?.secretName).filter(Boolean)).toContain(
          name === 'catalogd' ? 'catalogd-service-cert' : 'operator-controller-cert',
        );
        const statuses = (pod.status?.['containerStatuses'] ?? []) as Array<{ imageID: string; restartCount: number; containerID: string }>;
        expect(statuses[0]?.imageID).toContain(product.imageRef.split('@')[1]);
        expect(statuses[0]?.restartCount).toBe(0);
        // What the kernel enforces on the running process: uid and gid 65532 (the image's
        // nonroot entry in /etc/passwd gives the group: the kubelet passes the uid alone), no
        // capabilities, no new privileges, a read-only root.
        const pid = containerPid(statuses[0]?.containerID ?? '');
        const procStatus = readFileSync(`/proc/${pid}/status`, 'utf8');
        log(
          `${pod.metadata.name}: ${procStatus
            .split('\n')
            .filter((l) => /^(Uid|Gid|Groups|CapEff|NoNewPrivs|Seccomp):/.test(l))
            .join(' | ')}`,
        );
        expect(procStatus).toMatch(/^Uid:\t65532\t65532\t65532\t65532$/m);
        expect(procStatus).toMatch(/^Gid:\t65532\t65532\t65532\t65532$/m);
        expect(procStatus).toMatch(/^CapEff:\t0{16}$/m);
        expect(procStatus).toMatch(/^NoNewPrivs:\t1$/m);
        const root = readFileSync(`/proc/${pid}/mountinfo`, 'utf8')
          .split('\n')
          .find((l) => l.split(' ')[4] === '/');
        expect(root?.split(' ')[5]?.split(',')).toContain('ro');
      }
    }
  });

  it('serves a ClusterCatalog pulled by catalogd Pods and installs the example operator, whose Pod runs: Installed and Healthy', async () => {
    const started = Date.now();
    work = await mkdtemp(join(tmpdir(), 'olmv1-on-node-'));
    const example = await pushExample(REPO, product.registry.host, [product.registry.host], work, env);
    log(`example pushed to ${product.registry.host} in ${Date.now() - started} ms`);
    await apply({
      apiVersion: 'olm.operatorframework.io/v1',
      kind: 'ClusterCatalog',
      metadata: { name: CATALOG },
      spec: { source: { type: 'Image', image: { ref: example.catalogRef } } },
    });
    await expect.poll(async () => condition(await get(['clustercatalog', CATALOG]), 'Serving'), { timeout: 120_000, interval: 1000 }).toBe('True');
    timed('ClusterCatalog Serving', started);
    await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: EXT_NS } });
    // The same ServiceAccount installs 0.2.0 and upgrades to 1.0.0 below.
    await k.clusterAdminInstaller(EXT_NS, 'example-operator-installer');
    await apply(extension('0.2.0'));
    await expect.poll(() => extensionState(), { timeout: 180_000, interval: 1000 }).toEqual({ installed: 'True', healthy: 'True', version: '0.2.0' });
    const pods = await list(['pods', '-n', EXT_NS]);
    expect(pods.filter((p) => condition(p, 'Ready') === 'True').length).toBeGreaterThan(0);
    timed('catalog Serving and extension Installed + Healthy', started);
  }, 420_000);

  it("shows the extension Healthy in the console, in chromium: its conditions and its release's objects as the health step judges them", async () => {
    const running = await startConsole(cp.info.kubeconfigPath);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      await page.goto(running.url);
      await page.goto(`${new URL(running.url).origin}/#/installed/${EXTENSION}`);
      const cells = (label: string) =>
        page
          .getByRole('table', { name: label })
          .locator('tbody tr')
          .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')))
          .catch(() => [] as string[][]);
      // The page shows what operator-controller wrote: Installed and Healthy True with the Pod running.
      await expect
        .poll(async () => (await cells('Conditions')).filter((r) => r[0] === 'Installed' || r[0] === 'Healthy').map((r) => `${r[0]}=${r[1]}`), {
          timeout: 60_000,
        })
        .toEqual(['Installed=True', 'Healthy=True']);
      // The Deployment of the release, judged Healthy on the page as the health step judges it.
      await expect
        .poll(async () => (await cells('Objects of the release')).find((r) => r[0] === 'Deployment')?.slice(1, 3), { timeout: 60_000 })
        .toEqual([`${EXT_NS}/example-operator-controller`, 'Healthy']);
    } finally {
      await browser.close();
      await running.stop();
    }
  }, 180_000);

  it('metrics through the Service: 401 without a token, 403 without the grant, 200 bound to operator-controller-metrics-reader', async () => {
    const started = Date.now();
    const url = `https://${await clusterIp('operator-controller-service')}:8443/metrics`;
    const name = `operator-controller-service.${SYSTEM_NAMESPACE}.svc`;
    for (const sa of ['scraper', 'stranger']) await apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa, namespace: EXT_NS } });
    await apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'on-node-scraper' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'operator-controller-metrics-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'scraper', namespace: EXT_NS }],
    });
    const token = async (sa: string): Promise<string> => (await kubectl(['create', 'token', '-n', EXT_NS, sa])).trim();
    expect((await secureGet(url, name)).status).toBe(401);
    expect((await secureGet(url, name, await token('stranger'))).status).toBe(403);
    const ok = await secureGet(url, name, await token('scraper'));
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('# TYPE');
    timed('metrics 401/403/200', started);
  });

  it('keeps serving catalog content through the Service when one catalogd replica is deleted', async () => {
    const started = Date.now();
    const path = `/catalogs/${CATALOG}/api/v1/all`;
    const name = `catalogd-service.${SYSTEM_NAMESPACE}.svc`;
    // Every replica serves the catalog before one goes.
    const pods = await list(['pods', '-n', SYSTEM_NAMESPACE, '-l', 'app.kubernetes.io/name=catalogd']);
    for (const pod of pods) {
      const ip = pod.status?.['podIP'] as string;
      await expect
        .poll(async () => (await secureGet(`https://${ip}:8443${path}`, name).catch(() => ({ status: 0 }))).status, { timeout: 60_000 })
        .toBe(200);
    }
    const url = `https://${await clusterIp('catalogd-service')}${path}`;
    await kubectl(['delete', 'pod', '-n', SYSTEM_NAMESPACE, pods[0]?.metadata.name ?? '', '--wait=false']);
    // Sampled for 15 s after the delete; the first answer that is not 200 ends the sampling.
    const statuses: Array<number | string> = [];
    const until = Date.now() + 15_000;
    await expect
      .poll(
        async () => {
          statuses.push(
            await secureGet(url, name).then(
              (r) => r.status,
              (e: Error) => e.message,
            ),
          );
          return Date.now() < until && statuses.every((s) => s === 200) ? 'sampling' : 'sampled';
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBe('sampled');
    log(`${statuses.length} GETs after the delete: ${JSON.stringify([...new Set(statuses)])}`);
    expect(statuses.every((s) => s === 200)).toBe(true);
    timed('catalogd replica deleted, content served', started);
  }, 120_000);

  it('keeps catalog content served through an eviction of both catalogd Pods at once: the PodDisruptionBudget lets one go and refuses the other', async () => {
    const started = Date.now();
    const path = `/catalogs/${CATALOG}/api/v1/all`;
    const name = `catalogd-service.${SYSTEM_NAMESPACE}.svc`;
    const catalogd = 'app.kubernetes.io/name=catalogd';
    const pdb = async (budget: string) => (await get(['poddisruptionbudget', '-n', SYSTEM_NAMESPACE, budget])).status ?? {};
    // Both replicas Ready again (the test before deleted one) and the budget computed by the disruption controller.
    await expect.poll(async () => (await readyPods(SYSTEM_NAMESPACE, catalogd)).length, { timeout: 120_000 }).toBe(2);
    await expect.poll(async () => (await pdb('catalogd-controller-manager'))['disruptionsAllowed'], { timeout: 60_000 }).toBe(1);
    const evict = (pod: string): Promise<string> =>
      kubectl(
        ['create', '--raw', `/api/v1/namespaces/${SYSTEM_NAMESPACE}/pods/${pod}/eviction`, '-f', '-'],
        JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace: SYSTEM_NAMESPACE } }),
      );
    // What a drain of the node does to them, both at once: one goes, the other is refused (429).
    const outcomes = await Promise.allSettled((await readyPods(SYSTEM_NAMESPACE, catalogd)).map(evict));
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refusal = outcomes.find((o) => o.status === 'rejected');
    expect(String(refusal?.reason)).toContain("Cannot evict pod as it would violate the pod's disruption budget");
    // The Pod left serves the catalog through the Service, sampled for 10 s.
    const url = `https://${await clusterIp('catalogd-service')}${path}`;
    const statuses: Array<number | string> = [];
    const until = Date.now() + 10_000;
    await expect
      .poll(
        async () => {
          statuses.push(
            await secureGet(url, name).then(
              (r) => r.status,
              (e: Error) => e.message,
            ),
          );
          return Date.now() < until && statuses.every((s) => s === 200) ? 'sampling' : 'sampled';
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBe('sampled');
    log(`${statuses.length} GETs after the evictions: ${JSON.stringify([...new Set(statuses)])}`);
    expect(statuses.every((s) => s === 200)).toBe(true);
    // operator-controller's budget (upstream's: minAvailable 1) with its 1 replica lets no eviction through.
    await expect.poll(async () => (await pdb('operator-controller-controller-manager'))['currentHealthy'], { timeout: 60_000 }).toBe(1);
    const [oc = ''] = await readyPods(SYSTEM_NAMESPACE, 'app.kubernetes.io/name=operator-controller');
    await expect(evict(oc)).rejects.toThrow("Cannot evict pod as it would violate the pod's disruption budget");
    // catalogd back at 2 Ready replicas for the tests after this one.
    await expect.poll(async () => (await readyPods(SYSTEM_NAMESPACE, catalogd)).length, { timeout: 120_000 }).toBe(2);
    timed('catalogd Pods evicted under the PodDisruptionBudget, content served', started);
  }, 300_000);

  it('hands operator-controller leadership to a new Pod when the leader Pod is deleted, with no revision written twice', async () => {
    const started = Date.now();
    const lease = async (): Promise<string> => {
      for (const l of await list(['lease', '-n', SYSTEM_NAMESPACE])) {
        const holder = (l.spec?.['holderIdentity'] as string | undefined) ?? '';
        if (holder.startsWith('operator-controller-controller-manager-')) return holder.split('_')[0] ?? '';
      }
      return '';
    };
    const [leader] = await readyPods(SYSTEM_NAMESPACE, 'app.kubernetes.io/name=operator-controller');
    expect(leader).toBeDefined();
    await expect.poll(lease, { timeout: 30_000 }).toBe(leader);
    const records = async (): Promise<string[]> =>
      (await list(['secrets', '-n', SYSTEM_NAMESPACE, '-l', `owner=operator-controller,name=${EXTENSION}`]))
        .map((s) => `${s.metadata.labels?.['version']} ${s.metadata.uid}`)
        .sort();
    const before = await records();
    expect(before.length).toBeGreaterThan(0);
    const deleted = Date.now();
    await kubectl(['delete', 'pod', '-n', SYSTEM_NAMESPACE, leader ?? '', '--wait=false']);
    const holder = async (): Promise<string> => {
      const now = await lease();
      return now !== leader && now !== '' ? now : '';
    };
    await expect.poll(holder, { timeout: 90_000, interval: 250 }).not.toBe('');
    const next = await holder();
    const handover = Date.now() - deleted;
    log(`Lease holder changed from ${leader} to ${next} ${handover} ms after the delete`);
    // Within the lease duration (client-go's default, 15 s): the deleted leader released it.
    expect(handover).toBeLessThan(15_000);
    // The new holder is a Pod of the Deployment, not the deleted one.
    expect(next).not.toBe(leader);
    expect((await list(['pods', '-n', SYSTEM_NAMESPACE, '-l', 'app.kubernetes.io/name=operator-controller'])).map((p) => p.metadata.name)).toContain(
      next,
    );
    // The new leader reconciles the extension again: still Installed, the same records.
    await kubectl(['annotate', 'clusterextension', EXTENSION, `on-node/poke=${Date.now()}`, '--overwrite']);
    await expect.poll(() => extensionState(), { timeout: 60_000 }).toEqual({ installed: 'True', healthy: 'True', version: '0.2.0' });
    expect(await records()).toEqual(before);
    timed('leader failover', started);
  }, 180_000);

  it('restarts a catalogd leader whose process stood still past its renew deadline; a replica leads again and writes status', async () => {
    const started = Date.now();
    type ContainerStatus = { containerID?: string; restartCount?: number; lastState?: { terminated?: { exitCode?: number } } };
    const catalogdLease = async (): Promise<{ holder: string; renewed: number }> => {
      for (const l of await list(['lease', '-n', SYSTEM_NAMESPACE])) {
        const holder = (l.spec?.['holderIdentity'] as string | undefined) ?? '';
        if (holder.startsWith('catalogd-controller-manager-')) {
          return { holder: holder.split('_')[0] ?? '', renewed: Date.parse((l.spec?.['renewTime'] as string | undefined) ?? '') };
        }
      }
      return { holder: '', renewed: 0 };
    };
    const container = async (pod: string): Promise<ContainerStatus | undefined> =>
      ((await get(['pod', '-n', SYSTEM_NAMESPACE, pod])).status?.['containerStatuses'] as ContainerStatus[] | undefined)?.[0];
    await expect.poll(async () => (await catalogdLease()).holder, { timeout: 60_000 }).not.toBe('');
    const leader = (await catalogdLease()).holder;
    const before = await container(leader);
    expect(before?.containerID).toBeDefined();
    // SIGSTOP stands the whole process still, as a frozen container or a blocked event loop would.
    const pid = containerPid(before?.containerID ?? '');
    process.kill(pid, 'SIGSTOP');
    try {
      // Until its Lease has gone unrenewed past the renew deadline (10 s), before the liveness probe (30 s) acts.
      await expect.poll(async () => Date.now() - (await catalogdLease()).renewed, { timeout: 30_000, interval: 500 }).toBeGreaterThan(11_000);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    // Resumed, it does not lead on: it exits with status 1 and the kubelet starts its container again.
    await expect
      .poll(
        async () => {
          const now = await container(leader);
          return { restarts: now?.restartCount, exitCode: now?.lastState?.terminated?.exitCode };
        },
        { timeout: 60_000, interval: 500 },
      )
      .toEqual({ restarts: (before?.restartCount ?? 0) + 1, exitCode: 1 });
    // A replica leads again within the lease time: the Lease is renewed, and a spec change reaches status.
    await expect.poll(async () => Date.now() - (await catalogdLease()).renewed, { timeout: 60_000, interval: 500 }).toBeLessThan(5_000);
    const catalog = await get(['clustercatalog', CATALOG]);
    const generation = Number((catalog.metadata as { generation?: number }).generation);
    const priority = Number((catalog.spec as { priority?: number } | undefined)?.priority ?? 0);
    await kubectl(['patch', 'clustercatalog', CATALOG, '--type', 'merge', '-p', JSON.stringify({ spec: { priority: priority + 1 } })]);
    const observed = async (): Promise<number | undefined> =>
      ((await get(['clustercatalog', CATALOG])).status?.['conditions'] as Array<{ type: string; observedGeneration?: number }> | undefined)?.find(
        (c) => c.type === 'Serving',
      )?.observedGeneration;
    await expect.poll(observed, { timeout: 60_000, interval: 500 }).toBe(generation + 1);
    await kubectl(['patch', 'clustercatalog', CATALOG, '--type', 'merge', '-p', JSON.stringify({ spec: { priority } })]);
    log(`catalogd leader ${leader} stood still, exited 1 and restarted; the Lease is held by ${(await catalogdLease()).holder}`);
    timed('catalogd leader stalled past its renew deadline', started);
  }, 240_000);

  it('upgrades the example operator to 1.0.0 and rolls its Pods', async () => {
    const started = Date.now();
    const before = (await list(['pods', '-n', EXT_NS])).map((p) => p.metadata.name);
    await apply(extension('1.0.0'));
    await expect.poll(() => extensionState(), { timeout: 180_000, interval: 1000 }).toEqual({ installed: 'True', healthy: 'True', version: '1.0.0' });
    await expect
      .poll(
        async () => (await list(['pods', '-n', EXT_NS])).filter((p) => !before.includes(p.metadata.name) && condition(p, 'Ready') === 'True').length,
        { timeout: 120_000 },
      )
      .toBeGreaterThan(0);
    await expect
      .poll(async () => (await list(['pods', '-n', EXT_NS])).filter((p) => before.includes(p.metadata.name)).length, { timeout: 120_000 })
      .toBe(0);
    timed('upgrade 0.2.0 -> 1.0.0 rolled', started);
  }, 300_000);
  it('says why a Deployment cannot become Available: an image not pulled, a container crashing (events and last log lines)', async () => {
    const started = Date.now();
    const ns = 'on-node-broken';
    await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const deployment = (name: string, image: string, command: string[]): object => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: ns },
      spec: {
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          // A readiness probe as the components have: a container without one counts as ready
          // (and its Deployment Available) the moment it starts, even one about to exit.
          spec: {
            terminationGracePeriodSeconds: 1,
            containers: [{ name: 'main', image, command, readinessProbe: { httpGet: { path: '/readyz', port: 8081 } } }],
          },
        },
      },
    });
    await apply(deployment('no-image', `${product.registry.host}/olmv1/missing@sha256:${'0'.repeat(64)}`, ['x']));
    await apply(deployment('crashing', product.imageRef, ['node', '-e', 'console.log("giving up now"); process.exit(3)']));
    const pull = await waitForDeployments(kubectl, ns, ['no-image'], 90_000).then(
      () => undefined,
      (e: Error) => e.message,
    );
    expect(pull).toMatch(/^Deployment on-node-broken\/no-image cannot become Available\ncontainer main waiting: (ErrImagePull|ImagePullBackOff)/);
    expect(pull).toMatch(/Failed: Failed to pull image/);
    const crash = await waitForDeployments(kubectl, ns, ['crashing'], 90_000).then(
      () => undefined,
      (e: Error) => e.message,
    );
    expect(crash).toMatch(/cannot become Available\ncontainer main (waiting: CrashLoopBackOff|restarted \d+ times)/);
    expect(crash).toContain('giving up now');
    await kubectl(['delete', 'namespace', ns, '--wait=false']);
    timed('failures reported', started);
  });

  it("reports the Pods' memory: working set from the kubelet's /metrics/resource, RSS from their cgroups", async () => {
    const metrics = await kubectl(['get', '--raw', `/api/v1/nodes/${cp.node?.name ?? ''}/proxy/metrics/resource`]);
    const pods = await list(['pods', '-n', SYSTEM_NAMESPACE]);
    expect(pods.length).toBeGreaterThanOrEqual(3);
    for (const pod of pods) {
      const name = pod.metadata.name;
      const line = metrics.split('\n').find((l) => l.startsWith('container_memory_working_set_bytes{') && l.includes(`pod="${name}"`));
      const workingSet = Number(line?.split(' ')[1]);
      const [status] = (pod.status?.['containerStatuses'] ?? []) as Array<{ containerID: string }>;
      const dir = containerCgroup(status?.containerID ?? '');
      const stat = readFileSync(join(dir, 'memory.stat'), 'utf8');
      const rss = Number(/^total_rss (\d+)$/m.exec(stat)?.[1]);
      log(`${name}: RSS ${(rss / 2 ** 20).toFixed(1)} MiB (cgroup ${dir}), working set ${(workingSet / 2 ** 20).toFixed(1)} MiB`);
      expect(rss).toBeGreaterThan(0);
      expect(workingSet).toBeGreaterThan(0);
    }
  });
});

function extension(version: string): object {
  return {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterExtension',
    metadata: { name: EXTENSION },
    spec: {
      namespace: EXT_NS,
      serviceAccount: { name: 'installer' },
      source: { sourceType: 'Catalog', catalog: { packageName: 'example-operator', version, channels: ['stable'] } },
    },
  };
}

async function extensionState(): Promise<{ installed?: string; healthy?: string; version?: string }> {
  const ext = await get(['clusterextension', EXTENSION]);
  const install = ext.status?.['install'] as { bundle?: { version?: string } } | undefined;
  return { installed: condition(ext, 'Installed'), healthy: condition(ext, 'Healthy'), version: install?.bundle?.version };
}
