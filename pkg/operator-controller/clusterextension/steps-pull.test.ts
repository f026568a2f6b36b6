// The pull step's decision table (steps-pull.ts pullStep) over the real scheduler (bundlepull/pulls.ts)
// with fake ports: what is pulled, what the reconcile waits for, what it applies (the render
// step's objects) and what Progressing says. End to end: test/e2e/operator-controller-stalled-registry.test.ts.
import pino from 'pino';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseBundle, readBundleDir, type RegistryV1Bundle } from '../bundle/index.ts';
import type { KubeObject } from '../../shared/kube/index.ts';
import { LineStore } from '../../shared/lines/index.ts';
import { SignaturePolicyRejectedError } from '../../shared/image/index.ts';
import { Manifest, type Release, type ReleaseBundle } from '../release/index.ts';
import { BundleBudget } from '../bundlepull/index.ts';
import { BundlePulls } from '../bundlepull/index.ts';
import { bundleProperties, type FetchedBundle } from '../bundlepull/index.ts';
import type { ExtensionState } from './pipeline-state.ts';
import { pullStep, renderStep, type PullPorts, type RenderPorts } from './steps-pull.ts';
import { extensionState } from '../../../test/support/extension-state.ts';
import { recordingEvents } from '../../../test/support/extension-ports.ts';
import { installModes, testBundle } from '../../../test/fixtures/bundles/builder.ts';

const DIGEST_REF = `registry.example/p@sha256:${'1'.repeat(64)}`;
const V1: ReleaseBundle = { package: 'p', name: 'p.v1.0.0', version: '1.0.0', image: 'registry.example/p:v1', digestRef: DIGEST_REF };
const V2: ReleaseBundle = { package: 'p', name: 'p.v2.0.0', version: '2.0.0', image: 'registry.example/p:v2' };
const MANIFEST: KubeObject[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p-settings', namespace: 'ns' }, data: { version: '1.0.0' } },
];
const PULL_STARTED = new Date('2026-01-02T03:04:05.678Z');

const release = (config?: Record<string, unknown>): Release => ({
  extension: 'ext',
  extensionUID: 'u',
  revision: 1,
  status: 'deployed',
  bundle: V1,
  manifest: Manifest.ofObjects(MANIFEST),
  properties: [],
  ...(config === undefined ? {} : { config }),
  description: 'Install complete',
});

const bundleOf = (ref: string): FetchedBundle => ({
  bundle: { packageName: ref } as unknown as RegistryV1Bundle,
  digestRef: `${ref}@digest`,
  fromCache: false,
});

/** Deps with the real scheduler; `pull` ends each fetch (default: never), `cache` holds refs already pulled. */
function harness(o: { cached?: string[]; pull?: (ref: string) => Promise<FetchedBundle>; waitMs?: number } = {}) {
  const fetches: string[] = [];
  const enqueued: string[] = [];
  const cache = new Set(o.cached ?? []);
  const pulls = new BundlePulls({
    fetch: (_ext, ref) => {
      fetches.push(ref);
      return (o.pull ?? (() => new Promise<FetchedBundle>(() => undefined)))(ref).then((b) => {
        cache.add(ref);
        return b;
      });
    },
    cached: (_ext, ref) => Promise.resolve(cache.has(ref) ? { ...bundleOf(ref), fromCache: true } : undefined),
    enqueue: (n) => enqueued.push(n),
    log: pino({ level: 'silent' }),
    waitMs: o.waitMs ?? 30,
    now: () => PULL_STARTED,
  });
  const events: string[] = [];
  const deps = { pulls, events: recordingEvents(events) } satisfies PullPorts;
  return { deps, pulls, fetches, enqueued, events };
}

const pullBundle = async (ports: Omit<PullPorts, 'events'> & Partial<PullPorts>, s: ExtensionState) =>
  pullStep({ events: recordingEvents([]), ...ports }).run(s);
// The release record stands in for the bundle: neither schemas nor switches are read.
const NO_RENDER = {
  schemas: { schemaFor: () => Promise.reject(new Error('not read')) },
  features: { webhookSupport: false, singleOwnNamespaceSupport: false, deploymentConfigSupport: false },
  events: recordingEvents([]),
} satisfies RenderPorts;
const renderBundle = async (s: ExtensionState) => renderStep(NO_RENDER).run(s);

/** A reconcile's state after resolve: `target` with `installed` deployed. */
function state(target: ReleaseBundle, installed: Release | undefined, config?: Record<string, unknown>): ExtensionState {
  return extensionState({
    ...(config === undefined ? {} : { spec: { config: { configType: 'Inline', inline: config } } }),
    ...(installed === undefined ? {} : { installed, history: [installed] }),
    target: { bundle: target },
  });
}

function progressing(s: ExtensionState): { status: string; reason: string; message: string } | undefined {
  return s.ce.status?.conditions?.find((c) => c.type === 'Progressing');
}

describe('pull step', () => {
  it("holds the bundle lease until the reconcile ends (the state's held stack, disposed by the StepReconciler)", async () => {
    const budget = new BundleBudget(100);
    const lease = await budget.acquire(60);
    const s = state(V2, undefined);
    const deps = { pulls: { get: () => Promise.resolve({ state: 'done' as const, fetched: { ...bundleOf('registry.example/p:v2'), lease } }) } };
    expect(await pullBundle(deps, s)).toBeUndefined();
    expect(budget.held).toBe(60);
    s.held.dispose();
    expect(budget.held).toBe(0);
  });

  it("keeps a bundle's line file open until the reconcile ends, then closes it", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pull-lines-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const lines = LineStore.file(dir);
    lines.push('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}');
    const fetched = bundleOf('registry.example/p:v2');
    const s = state(V2, undefined);
    const deps = {
      pulls: { get: () => Promise.resolve({ state: 'done' as const, fetched: { ...fetched, bundle: { ...fetched.bundle, otherLines: lines } } }) },
    };
    expect(await pullBundle(deps, s)).toBeUndefined();
    expect(lines.at(0)).toContain('ConfigMap');
    s.held.dispose();
    expect(() => lines.at(0)).toThrow('line store: read or written after close');
  });

  it('installed bundle, cached: renders the cached bundle', async () => {
    const h = harness({ cached: [DIGEST_REF] });
    const s = state(V1, release());
    expect(await pullBundle(h.deps, s)).toBeUndefined();
    expect(s.bundle).toEqual({ packageName: DIGEST_REF });
    expect(s.target?.bundle.digestRef).toBe(`${DIGEST_REF}@digest`);
    expect(h.fetches).toEqual([]);
  });

  it('installed bundle, not cached, same config: re-applies the release record at once and refills the cache in the background', async () => {
    // A wait would show as this test timing out: the fetch never ends.
    const h = harness({ waitMs: 3_600_000 });
    const s = state(V1, release());
    expect(await pullBundle(h.deps, s)).toBeUndefined();
    expect(s.bundle).toBeUndefined();
    expect(s.target?.bundle).toEqual(V1);
    expect(progressing(s)).toBeUndefined();
    await renderBundle(s);
    expect(s.plan?.desired.manifest.objects()).toEqual(MANIFEST);
    // The pull of the installed digest runs in the background.
    expect(h.fetches).toEqual([DIGEST_REF]);
  });

  it('installed bundle, not cached, same config, earlier pull failed: re-applies the record, no error (as before)', async () => {
    const h = harness({ pull: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5000')) });
    await pullBundle(h.deps, state(V1, release()));
    await h.pulls.settled();
    expect(h.enqueued).toEqual(['ext']);
    const s = state(V1, release());
    expect(await pullBundle(h.deps, s)).toBeUndefined();
    expect(s.target?.bundle).toEqual(V1);
    expect(s.resolutionError).toBeUndefined();
    expect(progressing(s)).toBeUndefined();
  });

  it('installed bundle, config as recorded: an equal inline config counts as the same', async () => {
    const h = harness();
    const s = state(V1, release({ watchNamespace: 'w' }), { watchNamespace: 'w' });
    expect(await pullBundle(h.deps, s)).toBeUndefined();
    expect(s.target?.bundle).toEqual(V1);
  });

  it('new bundle, pull still running: Progressing Retrying naming the pull, stop without error; its end queues the extension', async () => {
    let finish: (b: FetchedBundle) => void = () => undefined;
    const h = harness({ pull: () => new Promise<FetchedBundle>((resolve) => (finish = resolve)) });
    const s = state(V2, release());
    expect(await pullBundle(h.deps, s)).toEqual({});
    expect(progressing(s)).toEqual(
      expect.objectContaining({
        status: 'True',
        reason: 'Retrying',
        message: 'pulling image "registry.example/p:v2" of bundle "p.v2.0.0" with version "2.0.0" since 2026-01-02T03:04:05Z',
      }),
    );
    expect(s.ce.status?.install).toEqual({ bundle: { name: 'p.v1.0.0', version: '1.0.0' } });
    expect(h.fetches).toEqual(['registry.example/p:v2']);

    finish(bundleOf('registry.example/p:v2'));
    await h.pulls.settled();
    expect(h.enqueued).toEqual(['ext']);
    const next = state(V2, release());
    expect(await pullBundle(h.deps, next)).toBeUndefined();
    expect(next.bundle).toEqual({ packageName: 'registry.example/p:v2' });
    expect(h.fetches).toHaveLength(1);
  });

  it('new bundle, pull failed: the error for the resolved bundle, with backoff (thrown)', async () => {
    const err = new Error('pulling image "registry.example/p:v2": timeout after 30s reading layer sha256:2 from registry registry.example');
    const h = harness({ pull: () => Promise.reject(err) });
    const s = state(V2, release());
    await expect(pullBundle(h.deps, s)).rejects.toThrow(`error for resolved bundle "p.v2.0.0" with version "2.0.0": ${err.message}`);
    expect(progressing(s)).toEqual(
      expect.objectContaining({
        status: 'True',
        reason: 'Retrying',
        message: `error for resolved bundle "p.v2.0.0" with version "2.0.0": ${err.message}`,
      }),
    );
    expect(h.events).toEqual([`Warning PullFailed: Pulling bundle p.v2.0.0 (version 2.0.0) failed: ${err.message}`]);
  });

  it("new bundle refused by the signature policy: the condition in upstream's words, the Event naming image, policy, scope and requirement", async () => {
    const refused = new SignaturePolicyRejectedError('A signature was required, but no signature exists', {
      image: 'registry.example/p:v2',
      scope: 'docker:registry.example',
      requirement: 'signedBy (GPGKeys, keyPath /etc/pki/k.gpg, signedIdentity matchRepoDigestOrExact)',
      policyFile: '/etc/containers/policy.json',
    });
    const h = harness({ pull: () => Promise.reject(refused) });
    const s = state(V2, release());
    await expect(pullBundle(h.deps, s)).rejects.toThrow(
      'error for resolved bundle "p.v2.0.0" with version "2.0.0": Source image rejected: A signature was required, but no signature exists',
    );
    expect(h.events).toEqual([
      'Warning PullFailed: Pulling bundle p.v2.0.0 (version 2.0.0) failed: Source image rejected: A signature was required, but no signature exists' +
        ' (image registry.example/p:v2, policy /etc/containers/policy.json, scope docker:registry.example,' +
        ' requirement signedBy (GPGKeys, keyPath /etc/pki/k.gpg, signedIdentity matchRepoDigestOrExact))',
    ]);
  });

  it('first install, pull still running: Retrying, Installed False', async () => {
    const h = harness();
    const s = state(V2, undefined);
    expect(await pullBundle(h.deps, s)).toEqual({});
    expect(progressing(s)?.message).toMatch(/^pulling image "registry\.example\/p:v2" of bundle "p\.v2\.0\.0"/);
    expect(s.ce.status?.conditions?.find((c) => c.type === 'Installed')?.status).toBe('False');
  });

  it('installed bundle, changed config, pull still running: waits like a new bundle (the record has the old config)', async () => {
    const h = harness();
    const s = state(V1, release({ watchNamespace: 'a' }), { watchNamespace: 'b' });
    expect(await pullBundle(h.deps, s)).toEqual({});
    expect(progressing(s)?.message).toBe(`pulling image "${DIGEST_REF}" of bundle "p.v1.0.0" with version "1.0.0" since 2026-01-02T03:04:05Z`);
  });

  it('installed bundle, changed config, pull failed: re-applies the record, then reports the pull error', async () => {
    const h = harness({ pull: () => Promise.reject(new Error('connect ECONNREFUSED')) });
    const s = state(V1, release({ watchNamespace: 'a' }), { watchNamespace: 'b' });
    expect(await pullBundle(h.deps, s)).toBeUndefined();
    expect(s.target?.bundle).toEqual(V1);
    expect(s.resolutionError?.message).toBe('error for resolved bundle "p.v1.0.0" with version "1.0.0": connect ECONNREFUSED');
    await renderBundle(s);
    expect(s.plan?.desired.manifest.objects()).toEqual(MANIFEST);
  });
});

describe('render step', () => {
  it("a bundle without AllNamespaces given no watchNamespace: upstream's text on Progressing, how to set it in one Event, once per change", async () => {
    const events: string[] = [];
    const ports = {
      schemas: { schemaFor: () => Promise.resolve(undefined) },
      features: { webhookSupport: false, singleOwnNamespaceSupport: true, deploymentConfigSupport: false },
      events: recordingEvents(events),
    } satisfies RenderPorts;
    const step = renderStep(ports);
    const bundle = testBundle({ spec: { installModes: installModes('OwnNamespace') } });
    const upstream = 'invalid ClusterExtension configuration: invalid configuration: required field "watchNamespace" is missing';
    for (let i = 0; i < 2; i++) {
      const s = extensionState({ target: { bundle: V1 }, bundle, spec: { namespace: 'ns' } });
      await expect(step.run(s)).rejects.toThrow(upstream);
      expect(s.ce.status?.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({
        status: 'False',
        reason: 'InvalidConfiguration',
        message: `error for resolved bundle "${V1.name}" with version "${V1.version}": ${upstream}`,
      });
    }
    expect(events).toEqual([
      `Warning WatchNamespaceRequired: ${upstream}\nthe bundle supports only the OwnNamespace install mode: set spec.config.inline.watchNamespace: ns, the install namespace`,
    ]);
  });

  it('renders with the cluster-wide proxy as the port tells it at each reconcile (decision 0132)', async () => {
    const bundleDir = fileURLToPath(new URL('../../../test/fixtures/bundles/minimal', import.meta.url));
    let proxy = { httpProxy: 'http://proxy:3128', httpsProxy: '', noProxy: '.svc' };
    const ports = {
      schemas: { schemaFor: () => Promise.resolve(undefined) },
      features: { webhookSupport: false, singleOwnNamespaceSupport: false, deploymentConfigSupport: true },
      events: recordingEvents([]),
      clusterProxy: () => proxy,
    } satisfies RenderPorts;
    const step = renderStep(ports);
    /** The env of the rendered Deployment's first container. */
    const renderedEnv = async (): Promise<unknown> => {
      const parsed = parseBundle(await readBundleDir(bundleDir));
      if (!parsed.ok) throw new Error(parsed.error);
      const s = extensionState({ target: { bundle: V1 }, bundle: parsed.value, spec: { namespace: 'ns' } });
      expect(await step.run(s)).toBeUndefined();
      const deployment = s.plan?.desired.manifest.objects().find((o) => o.kind === 'Deployment') as
        { spec: { template: { spec: { containers: Array<{ env?: unknown }> } } } } | undefined;
      return deployment?.spec.template.spec.containers[0]?.env;
    };
    expect(await renderedEnv()).toEqual([
      { name: 'HTTP_PROXY', value: 'http://proxy:3128' },
      { name: 'NO_PROXY', value: '.svc' },
    ]);
    proxy = { httpProxy: '', httpsProxy: 'http://other:8080', noProxy: '' };
    expect(await renderedEnv()).toEqual([{ name: 'HTTPS_PROXY', value: 'http://other:8080' }]);
  });

  it('holds the rendering as one JSON line per labelled object, parsed by nobody until read (decision 0098)', async () => {
    const parsed = parseBundle(await readBundleDir(fileURLToPath(new URL('../../../test/fixtures/bundles/multi-crd', import.meta.url))));
    if (!parsed.ok) throw new Error(parsed.error);
    const s = extensionState({ target: { bundle: V1 }, bundle: parsed.value, spec: { namespace: 'ns' } });
    const asked: string[] = [];
    const ports = {
      // No schema published: nothing is pruned.
      schemas: { schemaFor: (apiVersion: string, kind: string) => (asked.push(`${apiVersion} ${kind}`), Promise.resolve(undefined)) },
      features: { webhookSupport: false, singleOwnNamespaceSupport: false, deploymentConfigSupport: false },
      events: recordingEvents([]),
    } satisfies RenderPorts;
    expect(await renderStep(ports).run(s)).toBeUndefined();
    const rendered = s.plan?.desired.manifest;
    if (rendered === undefined) throw new Error('nothing rendered');
    const whole = vi.spyOn(rendered, 'objects');
    const ids = rendered.identities().map((o) => `${o.kind} ${o.metadata.name ?? ''}`);
    expect(ids).toContain('CustomResourceDefinition widgets.widgets.acme.example.com');
    expect(ids).toContain('ConfigMap acme-widgets-settings');
    expect(asked.length).toBe(ids.length);
    expect(whole).not.toHaveBeenCalled();
    whole.mockRestore();
    // Read whole, the objects carry the owner labels, as the apply sends them.
    for (const obj of rendered.objects()) expect(obj.metadata.labels?.['olm.operatorframework.io/owner-name']).toBe('ext');
    // The parsed bundle was let go of (its CSV's properties are the release's).
    expect(s.bundle).toBeUndefined();
    expect(s.plan?.desired.properties).toEqual(bundleProperties(parsed.value));
  });

  it('renders a bundle whose other objects were kept as lines exactly as one parsed whole, for every fixture bundle', async () => {
    const root = fileURLToPath(new URL('../../../test/fixtures/bundles/', import.meta.url));
    const dirs = (await readdir(root, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
    expect(dirs.length).toBeGreaterThan(3);
    const ports = {
      schemas: { schemaFor: () => Promise.resolve(undefined) },
      features: { webhookSupport: true, singleOwnNamespaceSupport: true, deploymentConfigSupport: true, certProvider: 'cert-manager' as const },
      events: recordingEvents([]),
    } satisfies RenderPorts;
    const spill = await mkdtemp(join(tmpdir(), 'render-lines-'));
    onTestFinished(() => rm(spill, { recursive: true, force: true }));
    const sibling = vi.spyOn(LineStore.prototype, 'sibling');
    onTestFinished(() => sibling.mockRestore());
    let files = 0;
    for (const dir of dirs) {
      const outputs: { text: string | undefined; error: string | undefined }[] = [];
      // Parsed whole; other objects kept as lines in memory; in a file (a bundle near the caps).
      for (const othersAsLines of [false, true, LineStore.file(spill)]) {
        const parsed = parseBundle(await readBundleDir(`${root}${dir}`), { consume: true, othersAsLines });
        if (!parsed.ok) throw new Error(`${dir}: ${parsed.error}`);
        if (othersAsLines !== false) expect(parsed.value.otherLines?.length).toBe(parsed.value.others.length);
        const s = extensionState({ target: { bundle: V1 }, bundle: parsed.value, spec: { namespace: 'ns' } });
        let error: string | undefined;
        try {
          await renderStep(ports).run(s);
        } catch (err) {
          error = String(err);
        }
        // A bundle whose lines are in a file is rendered into a file too.
        if (othersAsLines instanceof LineStore && error === undefined) expect(sibling).toHaveBeenCalledTimes(++files);
        outputs.push({
          text: s.plan?.desired.manifest
            .objects()
            .map((o) => JSON.stringify(o))
            .join('\n'),
          error,
        });
      }
      expect(outputs[1], dir).toEqual(outputs[0]);
      expect(outputs[2], dir).toEqual(outputs[0]);
    }
  });
});
