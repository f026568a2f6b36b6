// The install service (service.ts) on the shared fake cluster: what it writes and returns, its
// progress events, the wait for Installed through an injected clock, and refusals as values.
// The command's output: cmd/olmv1/install*.test.ts; end to end: test/e2e/olmv1-install.test.ts.
import { describe, expect, it } from 'vitest';
import { clusterCatalogObject } from '../../../test/support/cluster-catalogs.ts';
import { chainedPackage, generatedBundle } from '../../../test/support/extension-ports.ts';
import { extensionRequest } from '../../../test/support/extension-request.ts';
import { fakeCluster, type FakeCluster } from '../../../test/support/fake-cluster.ts';
import { ok } from '../../shared/errors/index.ts';
import { resolve, type ResolveInput } from '../../operator-controller/resolve/index.ts';
import type { InstallEvent, InstallPorts } from './ports.ts';
import { CATALOG_DISPLAY_NAME_ANNOTATION, CATALOG_SOURCE_TYPE_ANNOTATION } from './catalog-badge.ts';
import { SUGGESTED_NAMESPACE_TEMPLATE_ANNOTATION } from './namespace-template.ts';
import { installExtension, type InstallRequest } from './service.ts';

const CE = { kind: 'ClusterExtension', metadata: { name: 'demo' } };

/** The ports over `cluster`: one catalog `c` serving demo 1.0.0; each sleep runs `onSleep`. */
function ports(cluster: FakeCluster, events: InstallEvent[], onSleep: () => void = () => undefined): InstallPorts {
  const input = (): ResolveInput => ({ packageName: 'demo', catalogs: [{ name: 'c', priority: 0, package: chainedPackage('demo', ['1.0.0']) }] });
  let now = 0;
  return {
    client: cluster.client,
    catalogs: {
      input: () => Promise.resolve(ok(input())),
      resolve: (_name, _selector, i) => Promise.resolve({ result: resolve(i) }),
      hints: () => Promise.resolve([]),
      source: () => Promise.reject(new Error('not used')),
      dependencyCheck: () => Promise.reject(new Error('not used')),
    },
    loadBundle: () => Promise.resolve(generatedBundle('demo', '1.0.0')),
    clock: {
      now: () => now,
      sleep: (ms) => {
        now += ms;
        onSleep();
        return Promise.resolve();
      },
    },
    onEvent: (e) => events.push(e),
  };
}

function request(more: Partial<InstallRequest> = {}): InstallRequest {
  return { extension: extensionRequest('demo'), ...more };
}

function cluster(): FakeCluster {
  const c = fakeCluster();
  c.seed(clusterCatalogObject('c'));
  return c;
}

/** What operator-controller writes once it installed the extension's current generation. */
function installed(c: FakeCluster): void {
  c.edit(CE, (o) => {
    const generation = o.metadata.generation ?? 1;
    o.metadata.generation = generation;
    o['status'] = {
      conditions: [
        { type: 'Installed', status: 'True', reason: 'Succeeded', observedGeneration: generation },
        { type: 'Progressing', status: 'True', reason: 'Succeeded', message: 'done', observedGeneration: generation },
      ],
      install: { bundle: { name: 'demo.v1.0.0', version: '1.0.0' } },
    };
  });
}

describe('installExtension', () => {
  it('creates the namespace, ServiceAccount, RBAC and ClusterExtension, waits for Installed and returns them as values', async () => {
    const c = cluster();
    const events: InstallEvent[] = [];
    const result = await installExtension(
      ports(c, events, () => installed(c)),
      request({ timeoutMs: 10_000 }),
    );
    if (!result.ok) throw new Error(result.error);
    const r = result.value;
    expect(r.bundle).toEqual({ name: 'demo.v1.0.0', version: '1.0.0', image: 'registry.example/demo-bundle:v1.0.0', catalog: 'c' });
    expect(r.installed).toBe(true);
    expect(r.written.map((w) => `${w.action} ${w.object.kind}`)).toEqual(r.objects.map((o) => `created ${o.kind}`));
    expect(r.objects[0]?.kind).toBe('Namespace');
    expect(r.objects.at(-1)?.kind).toBe('ClusterExtension');
    expect(r.objects.map((o) => o.kind)).toEqual(expect.arrayContaining(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding']));
    expect(c.writes).toEqual(r.objects.map((o) => expect.stringMatching(new RegExp(`^create ${o.kind} `))));
    expect(events.map((e) => e.type)).toEqual(['resolving', 'resolved', 'rbac', ...r.objects.map(() => 'object'), 'written', 'waiting']);
    expect(events.at(-1)).toEqual({ type: 'waiting', extension: 'demo', progress: 'waiting for operator-controller' });
  });

  it('with dryRun returns every object and writes nothing', async () => {
    const c = cluster();
    const result = await installExtension(ports(c, []), request({ dryRun: true }));
    expect(result.ok && result.value.objects.map((o) => o.kind)[0]).toBe('Namespace');
    expect(result.ok && result.value.written).toEqual([]);
    expect(c.writes).toEqual([]);
  });

  it('returns refusals as values, with the texts olmv1 install prints: no catalogs, a missing ServiceAccount, no Installed in time', async () => {
    expect(await installExtension(ports(fakeCluster(), []), request())).toEqual({
      ok: false,
      error: 'the cluster has no ClusterCatalogs: add one with "olmv1 catalog add NAME IMAGE"',
    });
    const missing = await installExtension(ports(cluster(), []), request({ existingServiceAccount: true }));
    expect(missing.ok ? '' : missing.error).toMatch(/^ServiceAccount demo\/demo-installer not found: --service-account names/);
    const c = cluster();
    const late = await installExtension(ports(c, []), request({ timeoutMs: 3_000 }));
    expect(late.ok ? '' : late.error).toMatch(/^ClusterExtension demo is not installed after 3 s: waiting for operator-controller\n/);
    expect(c.live(CE)).toBeDefined();
  });

  it("creates the namespace with the labels and annotations of the CSV's suggested-namespace template naming it, install's labels over them", async () => {
    const bundle = generatedBundle('demo', '1.0.0');
    const template = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: 'demo',
        labels: { 'openshift.io/cluster-monitoring': 'true', 'olm.operatorframework.io/installed-for': 'other', 'bad key': 'x' },
        annotations: { 'example.com/owner': 'team-a' },
      },
    };
    const csv = {
      ...bundle.csv,
      metadata: { ...bundle.csv.metadata, annotations: { [SUGGESTED_NAMESPACE_TEMPLATE_ANNOTATION]: JSON.stringify(template) } },
    };
    const c = cluster();
    const result = await installExtension({ ...ports(c, []), loadBundle: () => Promise.resolve({ ...bundle, csv }) }, request({ wait: false }));
    if (!result.ok) throw new Error(result.error);
    const ns = c.live({ kind: 'Namespace', metadata: { name: 'demo' } });
    expect(ns?.metadata.labels).toEqual({
      'openshift.io/cluster-monitoring': 'true',
      'olm.operatorframework.io/installed-by': 'olmv1',
      'olm.operatorframework.io/installed-for': 'demo',
    });
    expect(ns?.metadata.annotations).toEqual({ 'example.com/owner': 'team-a' });
    expect(result.value.warnings.filter((w) => w.startsWith(SUGGESTED_NAMESPACE_TEMPLATE_ANNOTATION))).toEqual([
      `${SUGGESTED_NAMESPACE_TEMPLATE_ANNOTATION}: label "olm.operatorframework.io/installed-for" not applied (a reserved prefix)`,
      `${SUGGESTED_NAMESPACE_TEMPLATE_ANNOTATION}: label "bad key" not applied (not a qualified name)`,
    ]);
    // Another namespace than the template's gets nothing of it.
    const other = cluster();
    await installExtension(
      { ...ports(other, []), loadBundle: () => Promise.resolve({ ...bundle, csv }) },
      request({ wait: false, extension: { ...extensionRequest('demo'), namespace: 'elsewhere' } }),
    );
    expect(other.live({ kind: 'Namespace', metadata: { name: 'elsewhere' } })?.metadata.annotations).toBeUndefined();
  });

  it("drops the template's labels that weaken Pod security unless accepted, saying so; a dry run shows what the template sets", async () => {
    const bundle = generatedBundle('demo', '1.0.0');
    const template = { kind: 'Namespace', metadata: { name: 'demo', labels: { 'pod-security.kubernetes.io/enforce': 'privileged', team: 'a' } } };
    const csv = {
      ...bundle.csv,
      metadata: { ...bundle.csv.metadata, annotations: { [SUGGESTED_NAMESPACE_TEMPLATE_ANNOTATION]: JSON.stringify(template) } },
    };
    const load = () => Promise.resolve({ ...bundle, csv });
    const c = cluster();
    const result = await installExtension({ ...ports(c, []), loadBundle: load }, request({ wait: false }));
    if (!result.ok) throw new Error(result.error);
    expect(c.live({ kind: 'Namespace', metadata: { name: 'demo' } })?.metadata.labels).toEqual({
      team: 'a',
      'olm.operatorframework.io/installed-by': 'olmv1',
      'olm.operatorframework.io/installed-for': 'demo',
    });
    expect(result.value.warnings).toContain(
      `${SUGGESTED_NAMESPACE_TEMPLATE_ANNOTATION}: label "pod-security.kubernetes.io/enforce=privileged" not applied (it weakens the namespace's Pod security; accept it with --accept-namespace-labels, or the console's checkbox)`,
    );
    expect(result.value.namespaceTemplate).toEqual({
      labels: { team: 'a' },
      annotations: {},
      podSecurity: ['label pod-security.kubernetes.io/enforce=privileged'],
    });
    const d = cluster();
    const dry = await installExtension({ ...ports(d, []), loadBundle: load }, request({ dryRun: true, acceptNamespaceLabels: true }));
    expect(dry.ok && dry.value.namespaceTemplate?.labels).toEqual({ team: 'a', 'pod-security.kubernetes.io/enforce': 'privileged' });
    expect(d.writes).toEqual([]);
    const accepted = await installExtension({ ...ports(d, []), loadBundle: load }, request({ wait: false, acceptNamespaceLabels: true }));
    if (!accepted.ok) throw new Error(accepted.error);
    expect(d.live({ kind: 'Namespace', metadata: { name: 'demo' } })?.metadata.labels).toMatchObject({
      'pod-security.kubernetes.io/enforce': 'privileged',
    });
    expect(accepted.value.warnings.filter((w) => w.startsWith(SUGGESTED_NAMESPACE_TEMPLATE_ANNOTATION))).toEqual([]);
  });

  it('refuses an install from a catalog marked Community until it is acknowledged; a dry run says so and writes nothing (decision 0148)', async () => {
    const community = (): FakeCluster => {
      const c = fakeCluster();
      const catalog = clusterCatalogObject('c');
      catalog.metadata.annotations = { [CATALOG_SOURCE_TYPE_ANNOTATION]: 'Community', [CATALOG_DISPLAY_NAME_ANNOTATION]: 'Friendly' };
      c.seed(catalog);
      return c;
    };
    const c = community();
    const refused = await installExtension(ports(c, []), request());
    expect(refused.ok ? '' : refused.error).toMatch(
      /^package demo resolves to ClusterCatalog c \("Friendly"\), which the cluster's administrators mark as community content: .*--accept-community/,
    );
    expect(c.writes).toEqual([]);
    const dry = await installExtension(ports(c, []), request({ dryRun: true }));
    expect(dry.ok && dry.value.community).toMatch(/^package demo resolves to ClusterCatalog c /);
    expect(c.writes).toEqual([]);
    const accepted = await installExtension(ports(c, []), request({ acceptCommunity: true, wait: false }));
    expect(accepted.ok && accepted.value.community).toMatch(/community content/);
    expect(c.live(CE)).toBeDefined();
    // Any other catalog asks nothing.
    const plain = await installExtension(ports(cluster(), []), request({ dryRun: true }));
    expect(plain.ok && plain.value.community).toBeUndefined();
  });
});
