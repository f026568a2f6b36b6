// The PodDisruptionBudgets of config/ and of the chart on a real API server (issue 65): those of
// `kubectl kustomize config/`, moved to a namespace of this file's own, are created for real
// beside Pods made from the shipped Deployments' Pod templates; each budget's selector, evaluated
// by the API server, selects exactly the Pods of its Deployment (and the Deployment's own selector
// selects the same); the budget is upstream's (minAvailable 1, AlwaysAllow) and below catalogd's
// replicas, so one catalogd Pod may go at a time. The chart renders the same budgets by default,
// and its values render budgets the API server accepts. The Eviction API honouring them on a real
// node is test/e2e/on-node.test.ts's.
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type KubeContext, type KubeObject, connect } from '../../pkg/shared/kube/index.ts';
import { kustomizeOverlay, renderChart } from '../support/helm-chart.ts';

const exec = promisify(execFile);
const NS = `pdb-${randomBytes(3).toString('hex')}`;
const SHIPPED_NS = 'olmv1-system';

type Budget = KubeObject & {
  spec: {
    minAvailable?: number | string;
    maxUnavailable?: number | string;
    unhealthyPodEvictionPolicy?: string;
    selector: { matchLabels: Record<string, string> };
  };
};
type Deployment = KubeObject & {
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: object };
  };
};

let kube: KubeContext;
let built: KubeObject[];
const cp = () => inject('envtestControlPlane');
const kubectl = async (...args: string[]): Promise<string> =>
  (await exec(cp().kubectl, ['--kubeconfig', cp().kubeconfigPath, ...args], { maxBuffer: 16 << 20 })).stdout;

const moved = (objects: KubeObject[]): KubeObject[] => JSON.parse(JSON.stringify(objects).replaceAll(`"${SHIPPED_NS}"`, `"${NS}"`)) as KubeObject[];
const ofKind = <T extends KubeObject>(objects: KubeObject[], kind: string): T[] => objects.filter((o): o is T => o.kind === kind);
const selector = (labels: Record<string, string>): string =>
  Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');

beforeAll(async () => {
  kube = await connect({ kind: 'file', path: cp().kubeconfigPath });
  built = moved(await kustomizeOverlay(cp().kubectl));
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  for (const sa of ofKind(built, 'ServiceAccount')) await kube.client.create(sa);
  // The Pods the Deployments would make (Pending: nothing schedules them), one per replica.
  for (const d of ofKind<Deployment>(built, 'Deployment')) {
    for (let i = 0; i < d.spec.replicas; i++) {
      await kube.client.create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `${d.metadata.name}-${i}`, namespace: NS, labels: d.spec.template.metadata.labels },
        spec: d.spec.template.spec,
      });
    }
  }
  for (const b of ofKind(built, 'PodDisruptionBudget')) await kube.client.create(b);
}, 120_000);

afterAll(async () => {
  await kubectl('delete', 'namespace', NS, '--wait=false').catch(() => undefined);
  kube?.close();
});

async function selected(labels: Record<string, string>): Promise<string[]> {
  const list = await kube.client.list({ apiVersion: 'v1', kind: 'Pod' }, { namespace: NS, labelSelector: selector(labels) });
  return list.items.map((p) => p.metadata.name ?? '').sort();
}

describe("config/'s PodDisruptionBudgets on a real API server", () => {
  it("are upstream's, stored as shipped, one per Deployment, selecting exactly its Pods", async () => {
    const budgets = ofKind<Budget>(built, 'PodDisruptionBudget');
    const deployments = ofKind<Deployment>(built, 'Deployment');
    expect(budgets.map((b) => b.metadata.name).sort()).toEqual(deployments.map((d) => d.metadata.name).sort());
    expect(budgets.map((b) => b.metadata.name).sort()).toEqual(['catalogd-controller-manager', 'operator-controller-controller-manager']);
    for (const b of budgets) {
      const live = await kube.client.get<Budget>({
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        namespace: NS,
        name: b.metadata.name ?? '',
      });
      expect(live.spec).toEqual(b.spec);
      expect(live.spec).toMatchObject({ minAvailable: 1, unhealthyPodEvictionPolicy: 'AlwaysAllow' });
      const d = deployments.find((x) => x.metadata.name === b.metadata.name);
      const pods = Array.from({ length: d?.spec.replicas ?? 0 }, (_, i) => `${b.metadata.name}-${i}`).sort();
      expect(await selected(live.spec.selector.matchLabels)).toEqual(pods);
      expect(await selected(d?.spec.selector.matchLabels ?? {})).toEqual(pods);
    }
    // catalogd: more replicas than the budget keeps, so a drain may take one at a time.
    const catalogd = deployments.find((d) => d.metadata.name === 'catalogd-controller-manager');
    expect(catalogd?.spec.replicas).toBeGreaterThan(1);
  });
});

describe("the chart's options.<component>.podDisruptionBudget", () => {
  it('renders by default what config/ ships, and otherwise budgets the API server accepts', async () => {
    const defaults = ofKind<Budget>(moved(await renderChart(cp().kubeconfigPath)), 'PodDisruptionBudget');
    expect(defaults.map((b) => [b.metadata.name, b.spec]).sort()).toEqual(
      ofKind<Budget>(built, 'PodDisruptionBudget')
        .map((b) => [b.metadata.name, b.spec])
        .sort(),
    );
    const rendered = ofKind<Budget>(
      moved(
        await renderChart(cp().kubeconfigPath, {
          set: [
            'options.catalogd.podDisruptionBudget.minAvailable=',
            'options.catalogd.podDisruptionBudget.maxUnavailable=1',
            'options.operatorController.podDisruptionBudget.enabled=false',
          ],
        }),
      ),
      'PodDisruptionBudget',
    );
    expect(rendered.map((b) => b.metadata.name)).toEqual(['catalogd-controller-manager']);
    const dry = await kube.client.create<Budget>(
      { ...rendered[0]!, metadata: { ...rendered[0]!.metadata, name: 'catalogd-by-max-unavailable' } },
      { dryRun: true },
    );
    expect(dry.spec).toMatchObject({ maxUnavailable: 1, unhealthyPodEvictionPolicy: 'AlwaysAllow' });
    expect(dry.spec.minAvailable).toBeUndefined();
  });
});
