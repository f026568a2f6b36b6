// Taking over ClusterObjectSet revisions written by upstream's own operator-controller (issue 64,
// decision 0125): on a control plane of this file's own, with kube-controller-manager (its
// Deployment and ReplicaSet controllers make the Pods; its garbage collector acts on owner
// references), upstream's binary, run with --feature-gates=BoxcutterRuntime=true, installs the
// example extension from the example catalog served by our catalogd; then ours, with the same
// gate, is handed the cluster. No node runs: until the test marks the Pods Ready (a stand-in for
// the kubelet, test/support/upstream-boxcutter-kubelet.ts) the Deployment is never Available, so
// revision 1 stays rolling out with every phase up to `deploy` applied.
//   1. upstream installs 0.1.0: revision 1 rolling out; what it wrote is recorded.
//   2. ours takes it over rolling out: upstream's revisions kept (uid, spec), at most one next
//      revision (how it differs from upstream's is printed) that then controls every object, no
//      object re-created or owned by anything but a revision of the extension, the extension's
//      Installed and Progressing written by ours (taken off first) in upstream's words.
//   3. handed back to upstream, the Pods marked Ready: upstream ends with its newest revision
//      Succeeded, the others archived, the extension Installed; recorded.
//   4. ours takes that over: the same, for the Installed state (once settled).
//   5. ours upgrades to 0.2.0: one new revision takes the objects over (uids kept), the others
//      archived.
//   6. ours uninstalls: the CRD (and its uid) kept, no owner reference left on it.
// The processes' logs are kept (their directory named on stderr) when a test fails.
//
// Upstream's binary is not part of this repository and not built by `npm test` (its Go build and
// the private mount namespace it needs, as root, are outside the CI budget and set-up, as for
// test/e2e/signature-policy-upstream.test.ts): the suite runs when
// OLMV1_UPSTREAM_OPERATOR_CONTROLLER names it, and is skipped otherwise. Build (v1.11.0, with
// upstream's Makefile tag; its dependency pkg.package-operator.run/boxcutter is taken from the
// v0.14.0 tag of github.com/package-operator/boxcutter where the module proxy does not serve
// that host):
//   go mod download -json github.com/operator-framework/operator-controller@v1.11.0
//   cp -r $(go env GOMODCACHE)/github.com/operator-framework/operator-controller@v1.11.0 src && chmod -R u+w src && cd src
//   go mod edit -replace pkg.package-operator.run/boxcutter=../boxcutter   # only where the proxy refuses it
//   GOFLAGS=-mod=mod go build -tags containers_image_openpgp -o /tmp/upstream-oc-1.11/operator-controller ./cmd/operator-controller
// Run (as root): OLMV1_UPSTREAM_OPERATOR_CONTROLLER=/tmp/upstream-oc-1.11/operator-controller \
//   npx vitest run test/e2e/boxcutter-upstream-takeover.test.ts
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { loadAll } from 'js-yaml';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it, onTestFailed } from 'vitest';
import { readManifests } from '../../cmd/olmv1/up-cluster.ts';
import { startComponents, type Components } from '../../cmd/olmv1/up-components.ts';
import { createWorkspace, type ManagedProcess, type Workspace } from '../../pkg/olmv1/localstack/index.ts';
import { readBundleDir } from '../../pkg/operator-controller/bundle/index.ts';
import { CLUSTER_CATALOG, CLUSTER_EXTENSION, CLUSTER_OBJECT_SET, OWNER_NAME_LABEL } from '../../pkg/shared/api/index.ts';
import { connect, isNotFound, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { condition, pushCatalog, waitForCatalog, writeCatalogFiles } from '../support/catalogs.ts';
import { pushBundle } from '../support/extensions.ts';
import { installOlmConfig } from '../support/olm-config.ts';
import { useOwnControlPlane } from '../support/own-control-plane.ts';
import { withTempDir } from '../support/temp-dir.ts';
import { markPodsReady } from '../support/upstream-boxcutter-kubelet.ts';
import { checkPrivateMountNamespace } from '../support/upstream-catalogd-process.ts';
import { insecureRegistriesHome, startUpstreamBoxcutterOperatorController } from '../support/upstream-boxcutter-operator-controller.ts';

const upstreamBinary = process.env.OLMV1_UPSTREAM_OPERATOR_CONTROLLER === '' ? undefined : process.env.OLMV1_UPSTREAM_OPERATOR_CONTROLLER;
if (upstreamBinary === undefined)
  console.warn(
    'boxcutter-upstream-takeover.test.ts skipped: OLMV1_UPSTREAM_OPERATOR_CONTROLLER does not name an upstream operator-controller binary (see the file comment to build it)',
  );

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLE = join(REPO, 'examples', 'example-operator');
const COMMITTED_BUNDLES = '127.0.0.1:5001/olmv1/example-operator-bundle';
const PKG = 'example-operator';
const SYSTEM = 'olmv1-system';
const id = randomBytes(3).toString('hex');
const NAME = `upbox-${id}`;
const NS = `upbox-${id}`;
const CATALOG = `upbox-catalog-${id}`;
const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: 'greetings.demo.example.com' };
const ce = { ...CLUSTER_EXTENSION, name: NAME };

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
interface RevisionObject {
  object?: KubeObject;
  ref?: { name: string; namespace?: string; key: string };
}
interface Revision extends KubeObject {
  spec: { revision: number; lifecycleState: string; phases: { name: string; objects: RevisionObject[] }[] };
  status?: { conditions?: Condition[] };
}
interface ExtensionStatus {
  conditions?: Condition[];
  activeRevisions?: { name: string; conditions?: Condition[] }[];
  install?: { bundle: { name: string; version: string } };
}

/** What a controller left on the cluster, as read back. */
interface Snapshot {
  revisions: { name: string; uid: string; revision: number; lifecycleState: string; phases: string; conditions: Condition[] }[];
  extension: ExtensionStatus;
  /** uid of every object the active revisions name that is on the cluster, by `Kind ns/name`. */
  uids: Record<string, string>;
  /** The objects of the active revisions that are not on the cluster. */
  missing: string[];
}

const words = (cs: readonly Condition[] | undefined, types: readonly string[]): Record<string, Condition | undefined> =>
  Object.fromEntries(
    types.map((t) => {
      const c = cs?.find((x) => x.type === t);
      return [t, c === undefined ? undefined : { type: c.type, status: c.status, reason: c.reason, message: c.message }];
    }),
  );

describe.skipIf(upstreamBinary === undefined)("taking over upstream's BoxcutterRuntime revisions", () => {
  const own = useOwnControlPlane({ controllerManager: true });
  const binary = upstreamBinary ?? '';
  let kube: KubeContext;
  let workspace: Workspace;
  let components: Components | undefined;
  let upstream: ManagedProcess | undefined;
  let home = '';
  let registry = '';
  let upstreamRollingOut: Snapshot;
  let upstreamInstalled: Snapshot;
  /** The processes' logs: removed after the file when every test passed, kept (and named) otherwise. */
  let logRoot = '';
  let failed = false;

  /** Starts our catalogd and operator-controller (BoxcutterRuntime on); `controller` false stops our operator-controller again. */
  async function startOurs(controller: boolean): Promise<void> {
    await components?.operatorController.stop();
    await components?.catalogd.stop();
    const logDir = join(logRoot, `ours-${Date.now()}`);
    await mkdir(logDir, { recursive: true });
    components = await startComponents({
      repoRoot: REPO,
      node: process.execPath,
      kubeconfig: own.info.kubeconfigPath,
      systemNamespace: SYSTEM,
      insecureRegistries: ['127.0.0.1'],
      logDir,
      workspace,
      env: process.env,
      featureGates: { catalogd: [], operatorController: ['BoxcutterRuntime=true'] },
    });
    if (!controller) await components.operatorController.stop();
  }

  async function startUpstream(): Promise<void> {
    await components?.operatorController.stop();
    upstream = await startUpstreamBoxcutterOperatorController({
      binary,
      cp: own.info,
      workDir: logRoot,
      reaper: workspace.reaper,
      home,
      namespace: SYSTEM,
    });
  }

  async function stopUpstream(): Promise<void> {
    await upstream?.stop();
    upstream = undefined;
  }

  async function revisions(): Promise<Revision[]> {
    const items = (await kube.client.listAll<Revision>(CLUSTER_OBJECT_SET, { labelSelector: `${OWNER_NAME_LABEL}=${NAME}` })).items;
    return items.sort((a, b) => a.spec.revision - b.spec.revision);
  }

  async function extension(): Promise<KubeObject & { status?: ExtensionStatus }> {
    return kube.client.get(ce);
  }

  /** The manifests of a revision: inline, or read from the Secret its ref names (gzip or not), decoded here, not by our reader. */
  async function manifests(rev: Revision): Promise<KubeObject[]> {
    const out: KubeObject[] = [];
    for (const phase of rev.spec.phases) {
      for (const o of phase.objects) {
        if (o.object !== undefined) {
          out.push(o.object);
          continue;
        }
        const ref = o.ref ?? { name: '', key: '' };
        const secret = await kube.client.get<KubeObject & { data?: Record<string, string> }>({
          apiVersion: 'v1',
          kind: 'Secret',
          namespace: ref.namespace ?? SYSTEM,
          name: ref.name,
        });
        let bytes = Buffer.from(secret.data?.[ref.key] ?? '', 'base64');
        if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
        out.push(JSON.parse(bytes.toString('utf8')) as KubeObject);
      }
    }
    return out;
  }

  const keyOf = (o: KubeObject): string => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
  const refOf = (o: KubeObject) => ({
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: o.metadata.name ?? '',
    ...(o.metadata.namespace === undefined ? {} : { namespace: o.metadata.namespace }),
  });

  /** Every object the active revisions name, live (undefined when absent), by `Kind ns/name`. */
  async function liveObjects(): Promise<Map<string, KubeObject | undefined>> {
    const out = new Map<string, KubeObject | undefined>();
    for (const rev of (await revisions()).filter((r) => r.spec.lifecycleState === 'Active')) {
      for (const m of await manifests(rev)) {
        if (out.get(keyOf(m)) !== undefined) continue;
        out.set(
          keyOf(m),
          await kube.client.get(refOf(m)).catch((err: unknown) => {
            if (isNotFound(err)) return undefined;
            throw err;
          }),
        );
      }
    }
    return out;
  }

  async function snapshot(): Promise<Snapshot> {
    const live = await liveObjects();
    return {
      revisions: (await revisions()).map((r) => ({
        name: r.metadata.name ?? '',
        uid: r.metadata.uid ?? '',
        revision: r.spec.revision,
        lifecycleState: r.spec.lifecycleState,
        phases: JSON.stringify(r.spec.phases),
        conditions: r.status?.conditions ?? [],
      })),
      extension: (await extension()).status ?? {},
      uids: Object.fromEntries([...live].filter(([, o]) => o !== undefined).map(([k, o]) => [k, o?.metadata.uid ?? ''])),
      missing: [...live].filter(([, o]) => o === undefined).map(([k]) => k),
    };
  }

  /** Owners of every live object of the active revisions that are not a revision of this extension, by `Kind ns/name`. */
  async function foreignOwners(): Promise<Record<string, string[]>> {
    const revisionNames = new Set((await revisions()).map((r) => r.metadata.name));
    const out: Record<string, string[]> = {};
    for (const [k, o] of await liveObjects()) {
      const foreign = (o?.metadata.ownerReferences ?? []).filter((r) => r.kind !== CLUSTER_OBJECT_SET.kind || !revisionNames.has(r.name));
      if (foreign.length > 0) out[k] = foreign.map((r) => `${r.kind}/${r.name}`);
    }
    return out;
  }

  /** Controller owner of every live object of the active revisions, by `Kind ns/name`. */
  async function controllers(): Promise<Record<string, string | undefined>> {
    const out: Record<string, string | undefined> = {};
    for (const [k, o] of await liveObjects()) out[k] = o?.metadata.ownerReferences?.find((r) => r.controller === true)?.name;
    return out;
  }

  /**
   * Takes `types` off the extension's status conditions (upstream stopped, ours not started:
   * nobody else writes them), so that their return shows ours wrote them: upstream and ours
   * write status with the same field manager (`operator-controller`).
   */
  async function dropConditions(types: readonly string[]): Promise<void> {
    const conditions = ((await extension()).status?.conditions ?? []).filter((c) => !types.includes(c.type));
    await kube.client.patch(ce, { status: { conditions } }, 'merge', { subresource: 'status' });
  }

  /** Resolves once every condition of `types` is on the extension again. */
  async function conditionsBack(types: readonly string[]): Promise<void> {
    await expect
      .poll(
        async () => {
          const e = await extension();
          return types.filter((t) => condition(e, t) === undefined);
        },
        { timeout: 90_000, interval: 500 },
      )
      .toEqual([]);
  }

  /** A snapshot for the log, without the revisions' phases. */
  const brief = (x: Snapshot): string => JSON.stringify({ ...x, revisions: x.revisions.map((r) => ({ ...r, phases: undefined })) }, null, 2);

  /** Paths where `a` and `b` differ (`path: a -> b`). */
  function differences(a: unknown, b: unknown, path = ''): string[] {
    if (JSON.stringify(a) === JSON.stringify(b)) return [];
    if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && !Array.isArray(a) && !Array.isArray(b)) {
      const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
      return keys.flatMap((k) => differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`));
    }
    return [`${path}: ${JSON.stringify(a) ?? 'absent'} -> ${JSON.stringify(b) ?? 'absent'}`];
  }

  /** How revision `b` differs from revision `a`: metadata, spec other than phases, phase layout, each object's manifest. */
  async function revisionDifferences(a: Revision, b: Revision): Promise<string[]> {
    const out = [
      ...differences(a.metadata.labels, b.metadata.labels, 'metadata.labels'),
      ...differences(a.metadata.annotations, b.metadata.annotations, 'metadata.annotations'),
      ...differences({ ...a.spec, phases: undefined, revision: undefined }, { ...b.spec, phases: undefined, revision: undefined }, 'spec'),
    ];
    const layout = async (r: Revision) => {
      const ms = await manifests(r);
      let i = 0;
      return r.spec.phases.map((p) => ({ name: p.name, objects: p.objects.map(() => keyOf(ms[i++] as KubeObject)) }));
    };
    out.push(...differences(await layout(a), await layout(b), 'spec.phases(layout)'));
    const byKey = async (r: Revision) => new Map((await manifests(r)).map((m) => [keyOf(m), m]));
    const ma = await byKey(a);
    const mb = await byKey(b);
    for (const k of new Set([...ma.keys(), ...mb.keys()])) out.push(...differences(ma.get(k), mb.get(k), `[${k}]`));
    return out;
  }

  /**
   * True once the newest revision is Succeeded and every other one Archived (the Pods marked Ready
   * at each look when `pods`), and the extension's Progressing says Succeeded.
   */
  function settled(pods: boolean): () => Promise<boolean> {
    return async () => {
      if (pods) await markPodsReady(kube.client, NS);
      const all = await revisions();
      const newest = all.at(-1);
      if (newest === undefined || newest.spec.lifecycleState !== 'Active') return false;
      if (newest.status?.conditions?.find((c) => c.type === 'Succeeded')?.status !== 'True') return false;
      if (all.slice(0, -1).some((r) => r.spec.lifecycleState !== 'Archived')) return false;
      return condition(await extension(), 'Progressing')?.reason === 'Succeeded';
    };
  }

  /**
   * After a hand-over to ours: every revision upstream left is there with its uid and spec; ours
   * made at most one next revision (printing how it differs from upstream's newest), which then
   * controls every object; no object re-created or owned by anything else.
   */
  async function expectTakenOver(from: Snapshot, state: 'rolling-out' | 'installed'): Promise<void> {
    const upstreamNewest = from.revisions.at(-1)?.name ?? '';
    // Whatever ours does first (a next revision or not) is done once the objects' controllers agree
    // on one revision and, for an installed extension, that one Succeeded and the others are archived.
    await expect.poll(async () => new Set(Object.values(await controllers())).size, { timeout: 60_000, interval: 500 }).toBe(1);
    if (state === 'installed') await expect.poll(settled(true), { timeout: 60_000, interval: 1000 }).toBe(true);
    const all = await revisions();
    const mine = all.filter((r) => !from.revisions.some((u) => u.uid === r.metadata.uid));
    for (const r of mine) {
      const base = all[all.indexOf(r) - 1];
      const diff = base === undefined ? [] : await revisionDifferences(base, r);
      process.stderr.write(
        `\nours made ${r.metadata.name ?? ''} on taking over the ${state} ${upstreamNewest}; how it differs from ${base?.metadata.name ?? ''}:\n  ${diff.join('\n  ')}\n`,
      );
    }
    const ours = await snapshot();
    process.stderr.write(`\nours after taking over the ${state} revision:\n${brief(ours)}\n`);
    // Upstream's revisions: not re-created, their spec as upstream wrote it.
    const kept = (x: Snapshot) =>
      x.revisions.filter((r) => from.revisions.some((u) => u.uid === r.uid)).map((r) => [r.name, r.uid, r.revision, r.phases]);
    expect(kept(ours)).toEqual(from.revisions.map((r) => [r.name, r.uid, r.revision, r.phases]));
    expect(mine.map((r) => r.spec.revision).every((n) => n > (from.revisions.at(-1)?.revision ?? 0))).toBe(true);
    expect(mine.length, 'revisions ours made on taking over').toBeLessThanOrEqual(1);
    expect(Object.values(await controllers())).toEqual(Object.values(await controllers()).map(() => mine.at(-1)?.metadata.name ?? upstreamNewest));
    expect(ours.uids).toEqual(upstreamRollingOut.uids);
    expect(await foreignOwners()).toEqual({});
  }

  beforeAll(async () => {
    await checkPrivateMountNamespace();
    registry = inject('envtestRegistries').anonymous.host;
    await installOlmConfig(own.info);
    kube = await connect({ kind: 'file', path: own.info.kubeconfigPath });
    for (const crd of (await readManifests(join(REPO, 'config/crd/experimental'))).filter((o) => o.kind === 'CustomResourceDefinition'))
      await kube.client.apply(crd, { fieldManager: 'boxcutter-upstream-takeover-test', force: true });
    for (const ns of [SYSTEM, NS]) await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    // Our installer (upstream applies as itself, ignoring it): not what this test is about, so cluster-admin.
    await kube.client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer', namespace: NS } });
    await kube.client.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${NAME}-installer` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: 'installer', namespace: NS }],
    });
    for (const version of ['0.1.0', '0.2.0']) {
      const files = new Map<string, string>();
      for (const [path, bytes] of await readBundleDir(join(EXAMPLE, 'bundles', version)))
        if (!path.endsWith('/')) files.set(path, Buffer.from(bytes).toString('utf8'));
      await pushBundle(files, `${registry}/upbox-${id}/bundle:v${version}`);
    }
    const text = (await readFile(join(EXAMPLE, 'catalog', PKG, 'catalog.yaml'), 'utf8')).replaceAll(
      COMMITTED_BUNDLES,
      `${registry}/upbox-${id}/bundle`,
    );
    const docs = loadAll(text) as Record<string, unknown>[];
    const ref = `${registry}/upbox-${id}/catalog:v1`;
    await withTempDir('upbox-fbc-', async (dir) =>
      pushCatalog(await writeCatalogFiles(dir, { [`${PKG}/catalog.json`]: docs.map((d) => JSON.stringify(d)).join('\n') }), ref),
    );
    workspace = await createWorkspace('boxcutter-upstream-takeover-');
    logRoot = await mkdtemp(join(tmpdir(), 'boxcutter-upstream-takeover-logs-'));
    home = join(workspace.dir, 'upstream-home');
    await insecureRegistriesHome(home, [registry]);
    // Our catalogd serves the catalog to both; our operator-controller stays stopped until the hand-over.
    await startOurs(false);
    await kube.client.create({ ...CLUSTER_CATALOG, metadata: { name: CATALOG }, spec: { source: { type: 'Image', image: { ref } } } });
    await waitForCatalog(kube.client, CATALOG, (cc) => condition(cc, 'Serving')?.status === 'True', 90_000);
  }, 300_000);

  afterAll(async () => {
    await stopUpstream();
    await components?.operatorController.stop();
    await components?.catalogd.stop();
    await workspace?.stop();
    kube?.close();
    if (logRoot === '') return;
    if (failed) process.stderr.write(`\nboxcutter-upstream-takeover: logs of upstream's and our operator-controller kept in ${logRoot}\n`);
    else await rm(logRoot, { recursive: true, force: true });
  });

  beforeEach(() => {
    onTestFailed(() => {
      failed = true;
    });
  });

  it("upstream's binary installs 0.1.0 as revision 1, rolling out without a node", async () => {
    await startUpstream();
    await kube.client.create({
      ...CLUSTER_EXTENSION,
      metadata: { name: NAME },
      spec: {
        namespace: NS,
        serviceAccount: { name: 'installer' },
        source: {
          sourceType: 'Catalog',
          catalog: { packageName: PKG, version: '0.1.0', selector: { matchLabels: { 'olm.operatorframework.io/metadata.name': CATALOG } } },
        },
      },
    });
    // Every phase up to deploy applied: the Deployment is there, owned by revision 1; the extension reports it.
    await expect
      .poll(async () => (await controllers())[`Deployment ${NS}/example-operator-controller`], { timeout: 120_000, interval: 1000 })
      .toBe(`${NAME}-1`);
    await expect
      .poll(async () => (await extension()).status?.activeRevisions?.map((r) => r.name), { timeout: 60_000, interval: 500 })
      .toEqual([`${NAME}-1`]);
    await expect.poll(async () => condition(await extension(), 'Progressing')?.reason, { timeout: 60_000, interval: 500 }).toBe('RollingOut');
    // Once kube-controller-manager reported the Deployment's conditions, upstream's probe says so (before: "missing .status.conditions").
    await expect
      .poll(async () => (await revisions())[0]?.status?.conditions?.find((c) => c.type === 'Available')?.message, { timeout: 60_000, interval: 500 })
      .toBe(`Object Deployment.apps/v1 ${NS}/example-operator-controller: .status.condition["Available"] is False`);
    await expect
      .poll(async () => (await extension()).status?.activeRevisions?.[0]?.conditions?.find((c) => c.type === 'Available')?.message, {
        timeout: 60_000,
        interval: 500,
      })
      .toBe(`Object Deployment.apps/v1 ${NS}/example-operator-controller: .status.condition["Available"] is False`);
    upstreamRollingOut = await snapshot();
    process.stderr.write(`\nupstream, rolling out:\n${brief(upstreamRollingOut)}\n`);
    expect(upstreamRollingOut.revisions.map((r) => [r.name, r.revision, r.lifecycleState])).toEqual([[`${NAME}-1`, 1, 'Active']]);
    expect(upstreamRollingOut.missing).toEqual([]);
    expect(Object.keys(upstreamRollingOut.uids)).toContain(`CustomResourceDefinition /${CRD.name}`);
    expect(
      condition({ apiVersion: '', kind: '', metadata: {}, status: { conditions: upstreamRollingOut.revisions[0]?.conditions } }, 'Succeeded')?.status,
    ).not.toBe('True');
    expect(await foreignOwners()).toEqual({});
    await stopUpstream();
  }, 240_000);

  it('ours takes the rolling-out revision over: upstream revision kept, at most one next revision taking the objects over, every uid kept, the status in upstream words', async () => {
    const types = ['Installed', 'Progressing'];
    await dropConditions(types);
    await startOurs(true);
    await conditionsBack(types);
    await expect
      .poll(async () => words((await extension()).status?.conditions, types), { timeout: 30_000, interval: 500 })
      .toEqual(words(upstreamRollingOut.extension.conditions, types));
    await expectTakenOver(upstreamRollingOut, 'rolling-out');
    const ours = await snapshot();
    // Upstream shows every revision that has not succeeded among activeRevisions: so does ours.
    expect(ours.extension.activeRevisions?.map((r) => r.name)).toEqual(
      ours.revisions.filter((r) => r.lifecycleState === 'Active').map((r) => r.name),
    );
    const revisionTypes = ['Available', 'Progressing', 'Succeeded'];
    expect(words(ours.revisions[0]?.conditions, revisionTypes)).toEqual(words(upstreamRollingOut.revisions[0]?.conditions, revisionTypes));
  }, 180_000);

  it('handed back to upstream with the Pods Ready, upstream ends with its newest revision Succeeded and the extension Installed', async () => {
    await startUpstream();
    await expect.poll(settled(true), { timeout: 120_000, interval: 1000 }).toBe(true);
    await expect.poll(async () => condition(await extension(), 'Installed')?.status, { timeout: 60_000, interval: 500 }).toBe('True');
    upstreamInstalled = await snapshot();
    process.stderr.write(`\nupstream, installed:\n${brief(upstreamInstalled)}\n`);
    expect(upstreamInstalled.uids).toEqual(upstreamRollingOut.uids);
    expect(await foreignOwners()).toEqual({});
    await stopUpstream();
  }, 240_000);

  it('ours takes the installed revision over: Installed, upstream revision kept, at most one next revision, every uid kept, the status in upstream words', async () => {
    const types = ['Installed', 'Progressing'];
    await dropConditions(types);
    await startOurs(true);
    await conditionsBack(types);
    await expect
      .poll(async () => words((await extension()).status?.conditions, types), { timeout: 30_000, interval: 500 })
      .toEqual(words(upstreamInstalled.extension.conditions, types));
    const ours = await snapshot();
    expect(ours.extension.install).toEqual(upstreamInstalled.extension.install);
    await expectTakenOver(upstreamInstalled, 'installed');
  }, 180_000);

  it('ours upgrades to 0.2.0: one new revision takes the objects over without re-creating them, the others archived', async () => {
    const before = (await revisions()).length;
    await kube.client.patch(ce, { spec: { source: { catalog: { version: '0.2.0' } } } }, 'merge');
    await expect
      .poll(
        async () => {
          await markPodsReady(kube.client, NS);
          return (await extension()).status?.install?.bundle.version;
        },
        { timeout: 90_000, interval: 1000 },
      )
      .toBe('0.2.0');
    await expect.poll(settled(false), { timeout: 60_000, interval: 1000 }).toBe(true);
    const all = await revisions();
    process.stderr.write(`\nours after the upgrade: ${all.length} revisions (${before} before it)\n`);
    for (const [i, r] of all.entries()) {
      const prev = all[i - 1];
      if (prev !== undefined && prev.spec.revision === r.spec.revision - 1)
        process.stderr.write(
          `  ${r.metadata.name ?? ''} differs from ${prev.metadata.name ?? ''}:\n    ${(await revisionDifferences(prev, r)).join('\n    ')}\n`,
        );
    }
    expect(all.length).toBe(before + 1);
    const newest = all.at(-1)?.metadata.name;
    const after = await snapshot();
    for (const [k, uid] of Object.entries(after.uids)) if (k in upstreamRollingOut.uids) expect(uid, k).toBe(upstreamRollingOut.uids[k]);
    expect(after.uids[`CustomResourceDefinition /${CRD.name}`]).toBe(upstreamRollingOut.uids[`CustomResourceDefinition /${CRD.name}`]);
    expect(after.uids[`Deployment ${NS}/example-operator-controller`]).toBe(upstreamRollingOut.uids[`Deployment ${NS}/example-operator-controller`]);
    expect(new Set(Object.values(await controllers()))).toEqual(new Set([newest]));
    expect(await foreignOwners()).toEqual({});
    expect(after.extension.activeRevisions?.map((r) => r.name)).toEqual([newest]);
    expect(condition(await extension(), 'Installed')).toMatchObject({ status: 'True', reason: 'Succeeded' });
  }, 240_000);

  it('ours uninstalls: the revisions and objects go, the CRD is kept with its uid', async () => {
    const crdUid = upstreamRollingOut.uids[`CustomResourceDefinition /${CRD.name}`];
    await kube.client.delete(ce);
    await expect
      .poll(
        async () =>
          kube.client.get(ce).then(
            () => 'present',
            (err: unknown) => (isNotFound(err) ? 'gone' : String(err)),
          ),
        {
          timeout: 120_000,
          interval: 500,
        },
      )
      .toBe('gone');
    await expect.poll(async () => (await revisions()).length, { timeout: 60_000, interval: 500 }).toBe(0);
    const crd = await kube.client.get(CRD);
    expect(crd.metadata.uid).toBe(crdUid);
    expect(crd.metadata.deletionTimestamp).toBeUndefined();
    expect(crd.metadata.ownerReferences ?? []).toEqual([]);
    await expect
      .poll(
        async () =>
          kube.client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: NS, name: 'example-operator-controller' }).then(
            () => 'present',
            (err: unknown) => (isNotFound(err) ? 'gone' : String(err)),
          ),
        { timeout: 60_000, interval: 500 },
      )
      .toBe('gone');
  }, 180_000);
});
