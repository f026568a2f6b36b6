// The NetworkPolicies of config/ and of the chart on a real API server (issue 60, decision 0113).
// The network plugin of the test node (a bridge) does not enforce NetworkPolicy, so what is
// checked is what the API server can show: the policies of `kubectl kustomize config/`, moved to a
// namespace of this file's own, are created for real beside Pods made from the shipped Deployments'
// Pod templates; each policy's podSelector, evaluated by the API server, selects exactly the Pods
// meant (the namespace-wide deny all of them); every port a shipped Service sends to is opened by
// an ingress rule of a policy selecting its Pods, and no other port (the health port is the
// kubelet's, from the Pod's own node, which NetworkPolicy never blocks); egress is open. The
// chart with options.networkPolicy.webhookFrom and .metricsFrom renders policies the API server
// accepts, with those sources on the webhook and metrics rules only.
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type KubeContext, type KubeObject, connect } from '../../pkg/shared/kube/index.ts';
import { kustomizeOverlay, renderChart } from '../support/helm-chart.ts';

const exec = promisify(execFile);
const NS = `netpol-${randomBytes(3).toString('hex')}`;
const SHIPPED_NS = 'olmv1-system';

interface Port {
  name?: string;
  containerPort?: number;
  port?: number | string;
  targetPort?: number | string;
  protocol?: string;
}
interface PolicySpec {
  podSelector: { matchLabels?: Record<string, string> };
  policyTypes: string[];
  ingress?: Array<{ ports?: Port[]; from?: unknown[] }>;
  egress?: unknown[];
}
type Policy = KubeObject & { spec: PolicySpec };
type PodTemplate = { metadata: { labels: Record<string, string> }; spec: { containers: Array<{ ports?: Port[] }> } };

let kube: KubeContext;
let built: KubeObject[];
const cp = () => inject('envtestControlPlane');
const kubectl = async (...args: string[]): Promise<string> =>
  (await exec(cp().kubectl, ['--kubeconfig', cp().kubeconfigPath, ...args], { maxBuffer: 16 << 20 })).stdout;

/** The objects moved from olmv1-system to this file's namespace. */
const moved = (objects: KubeObject[]): KubeObject[] => JSON.parse(JSON.stringify(objects).replaceAll(`"${SHIPPED_NS}"`, `"${NS}"`)) as KubeObject[];
const ofKind = <T extends KubeObject>(objects: KubeObject[], kind: string): T[] => objects.filter((o): o is T => o.kind === kind);
const selector = (labels: Record<string, string> | undefined): string =>
  Object.entries(labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',');

beforeAll(async () => {
  kube = await connect({ kind: 'file', path: cp().kubeconfigPath });
  built = moved(await kustomizeOverlay(cp().kubectl));
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  // The Pods the Deployments would make (Pending: nothing schedules them), with their ServiceAccounts.
  for (const sa of ofKind(built, 'ServiceAccount')) await kube.client.create(sa);
  for (const d of ofKind<KubeObject & { spec: { template: PodTemplate } }>(built, 'Deployment')) {
    const { template } = d.spec;
    await kube.client.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: d.metadata.name, namespace: NS, labels: template.metadata.labels },
      spec: template.spec,
    });
  }
  for (const p of ofKind(built, 'NetworkPolicy')) await kube.client.create(p);
}, 120_000);

afterAll(async () => {
  await kubectl('delete', 'namespace', NS, '--wait=false').catch(() => undefined);
  kube?.close();
});

/** The names of the Pods the API server selects with `labels` in this file's namespace. */
async function selected(labels: Record<string, string> | undefined): Promise<string[]> {
  const list = await kube.client.list({ apiVersion: 'v1', kind: 'Pod' }, { namespace: NS, labelSelector: selector(labels) });
  return list.items.map((p) => p.metadata.name ?? '').sort();
}

describe("config/'s NetworkPolicies on a real API server", () => {
  it('are stored as shipped and select the Pods they are meant for', async () => {
    const policies = ofKind<Policy>(built, 'NetworkPolicy');
    expect(policies.map((p) => p.metadata.name).sort()).toEqual([
      'catalogd-controller-manager',
      'default-deny-all-traffic',
      'operator-controller-controller-manager',
    ]);
    for (const p of policies) {
      const live = await kube.client.get<Policy>({ apiVersion: p.apiVersion, kind: p.kind, namespace: NS, name: p.metadata.name ?? '' });
      expect(live.spec).toEqual(p.spec);
      expect(live.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    }
    const byName = new Map(policies.map((p) => [p.metadata.name, p.spec]));
    expect(await selected(byName.get('default-deny-all-traffic')?.podSelector.matchLabels)).toEqual([
      'catalogd-controller-manager',
      'operator-controller-controller-manager',
    ]);
    expect(byName.get('default-deny-all-traffic')).toMatchObject({ podSelector: {} });
    expect(byName.get('default-deny-all-traffic')?.ingress).toBeUndefined();
    expect(byName.get('default-deny-all-traffic')?.egress).toBeUndefined();
    expect(await selected(byName.get('catalogd-controller-manager')?.podSelector.matchLabels)).toEqual(['catalogd-controller-manager']);
    expect(await selected(byName.get('operator-controller-controller-manager')?.podSelector.matchLabels)).toEqual([
      'operator-controller-controller-manager',
    ]);
    for (const name of ['catalogd-controller-manager', 'operator-controller-controller-manager']) expect(byName.get(name)?.egress).toEqual([{}]);
  });

  it("open exactly the ports the Services send to, each Pod's own, one rule a port", async () => {
    const policies = ofKind<Policy>(built, 'NetworkPolicy');
    const pods = (await kube.client.list<KubeObject & { spec: PodTemplate['spec'] }>({ apiVersion: 'v1', kind: 'Pod' }, { namespace: NS })).items;
    for (const pod of pods) {
      const containerPorts = pod.spec.containers.flatMap((c) => c.ports ?? []);
      // What the policies selecting this Pod let in, port by port (the deny-all has no rules).
      const opened: number[] = [];
      for (const p of policies) {
        if (!(await selected(p.spec.podSelector.matchLabels)).includes(pod.metadata.name ?? '')) continue;
        for (const rule of p.spec.ingress ?? []) {
          expect(rule.ports).toHaveLength(1);
          for (const port of rule.ports ?? []) {
            expect(port.protocol).toBe('TCP');
            opened.push(Number(port.port));
          }
        }
      }
      // What the Services selecting this Pod send to.
      const targets: number[] = [];
      for (const svc of ofKind<KubeObject & { spec: { selector: Record<string, string>; ports: Port[] } }>(built, 'Service')) {
        if (!(await selected(svc.spec.selector)).includes(pod.metadata.name ?? '')) continue;
        for (const port of svc.spec.ports) {
          const target = containerPorts.find((c) => c.name === port.targetPort || c.containerPort === port.targetPort);
          expect(target, `${svc.metadata.name} targets ${String(port.targetPort)}`).toBeDefined();
          targets.push(target?.containerPort ?? 0);
        }
      }
      expect(opened.sort(), pod.metadata.name).toEqual([...new Set(targets)].sort());
      // Every opened port is one the Pod serves; its probes' port is not opened.
      for (const port of opened) expect(containerPorts.map((c) => c.containerPort)).toContain(port);
      expect(opened).not.toContain(containerPorts.find((c) => c.name === 'health')?.containerPort);
    }
    expect(pods).toHaveLength(2);
  });
});

describe("the chart's options.networkPolicy sources", () => {
  it('go on the webhook and metrics rules only, and the API server accepts the result', async () => {
    const webhookFrom = { ipBlock: { cidr: '10.0.0.0/24' } };
    const metricsFrom = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } };
    const rendered = ofKind<Policy>(
      moved(
        await renderChart(cp().kubeconfigPath, {
          set: [
            `options.networkPolicy.webhookFrom[0].ipBlock.cidr=10.0.0.0/24`,
            `options.networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.kubernetes\\.io/metadata\\.name=monitoring`,
          ],
        }),
      ),
      'NetworkPolicy',
    );
    const fromByPort = (name: string) =>
      Object.fromEntries((rendered.find((p) => p.metadata.name === name)?.spec.ingress ?? []).map((r) => [String(r.ports?.[0]?.port), r.from]));
    expect(fromByPort('catalogd-controller-manager')).toEqual({ '8443': undefined, '9443': [webhookFrom], '7443': [metricsFrom] });
    expect(fromByPort('operator-controller-controller-manager')).toEqual({ '8443': [metricsFrom] });
    for (const p of rendered) {
      const dry = await kube.client.create<Policy>({ ...p, metadata: { ...p.metadata, name: `${p.metadata.name}-sourced` } }, { dryRun: true });
      expect(dry.spec).toEqual(p.spec);
    }
  });
});
