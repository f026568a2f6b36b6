// The ClusterExtension reconciler as run.ts assembles it under the BoxcutterRuntime
// (reconcilers.ts with the `boxcutter` ports, decision 0125), over fakes of its ports: the
// reconciler writes ClusterObjectSet revisions (and the Secrets holding their objects) with
// operator-controller's own client, never Helm release records nor the bundle's objects; the
// ClusterObjectSet controller (pkg/operator-controller/objectset) is not run: the tests write
// the revisions' status as it would, then reconcile the extension again and assert what its
// status mirrors (applier/boxcutter/status.ts). The Helm runtime's counterpart is
// reconcilers.test.ts.
import pino from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { OWNER_KIND_LABEL, OWNER_NAME_LABEL, type ClusterExtension } from '../../pkg/shared/api/index.ts';
import type { KubeObject } from '../../pkg/shared/kube/index.ts';
import { BundleBudget, type PullStatus } from '../../pkg/operator-controller/bundlepull/index.ts';
import { createObjectSetReleases, type ObjectSetManifest } from '../../pkg/operator-controller/applier/index.ts';
import { createUpgradeNotices } from '../../pkg/operator-controller/clusterextension/index.ts';
import { fakeCluster } from '../../test/support/fake-cluster.ts';
import { informerCopy } from '../../test/support/informer-copy.ts';
import { setCondition, type SetCondition } from '../../test/support/revision-fixtures.ts';
import {
  MemoryReleaseStore,
  bundleImage,
  catalogSource,
  chainedPackage,
  generatedBundle,
  recordingDrift,
  recordingEvents,
  withRulesReviews,
} from '../../test/support/extension-ports.ts';
import { clusterExtensionReconciler, type ClusterExtensionPorts } from './reconcilers.ts';

const SYSTEM_NAMESPACE = 'olmv1-system';
const ANNOTATION = {
  bundleName: 'olm.operatorframework.io/bundle-name',
  packageName: 'olm.operatorframework.io/package-name',
  bundleVersion: 'olm.operatorframework.io/bundle-version',
  bundleReference: 'olm.operatorframework.io/bundle-reference',
  digestReference: 'olm.operatorframework.io/bundle-digest-reference',
};
const OWNER_LABELS = { [OWNER_KIND_LABEL]: 'ClusterExtension', [OWNER_NAME_LABEL]: 'ext' };

/** Upstream's phases of generated bundle p.v1.0.0's objects (applier/boxcutter/phases.ts), `<phase>: <Kind ns/name>`. */
const BUNDLE_PHASES = [
  'identity: ServiceAccount ns/p-controller',
  'crds: CustomResourceDefinition widgets.p.e2e.test',
  // The CSV's cluster permissions, named as upstream's renderer names them.
  'roles: ClusterRole p.v1.0.0-p-control-2dmjwg9oysgco6bimzshxv96db829wykctd8cf8lb1sc',
  'bindings: ClusterRoleBinding p.v1.0.0-p-control-2dmjwg9oysgco6bimzshxv96db829wykctd8cf8lb1sc',
  'deploy: Deployment ns/p-controller',
];

/** Pulls that hand out generated bundle `p.v<version>` for the catalog's image of it (or the digest a revision recorded). */
function generatedPulls(budget: BundleBudget): ClusterExtensionPorts['pulls'] {
  return {
    get: async (_extension: string, ref: string): Promise<PullStatus> => {
      const version = /^registry\.example\/p-bundle(?::v|@sha256:v)(.+)$/.exec(ref)?.[1];
      if (version === undefined) throw new Error(`unexpected pull of ${ref}`);
      const fetched = {
        bundle: generatedBundle('p', version),
        digestRef: `registry.example/p-bundle@sha256:v${version}`,
        fromCache: true,
        lease: await budget.acquire(100),
      };
      return { state: 'done', fetched };
    },
  };
}

const T = '2026-11-28T00:00:00Z';
const cond = (type: string, status: string, reason: string, message: string): SetCondition => setCondition(type, status, reason, message, T);

/** The ClusterObjectSet controller's conditions (objectset/conditions.ts) of a revision of bundle `version` rolling out, probes not yet passing. */
const rollingOutConditions = (version: string): SetCondition[] => [
  cond('Available', 'False', 'RollingOut', `Revision ${version} is rolling out.`),
  cond('Progressing', 'True', 'RollingOut', `Revision ${version} is rolling out.`),
];

/** The same, once every phase passed its probes. */
const succeededConditions = (version: string): SetCondition[] => [
  cond('Progressing', 'True', 'Succeeded', `Revision ${version} has rolled out.`),
  cond('Available', 'True', 'ProbesSucceeded', 'Objects are available and pass all probes.'),
  cond('Succeeded', 'True', 'Succeeded', 'Revision succeeded rolling out.'),
];

function harness(versions: string[]) {
  const ce: ClusterExtension = {
    metadata: { name: 'ext', generation: 1 },
    spec: {
      namespace: 'ns',
      serviceAccount: { name: 'sa' },
      source: { sourceType: 'Catalog', catalog: { packageName: 'p', upgradeConstraintPolicy: 'CatalogProvided' } },
    },
  };
  // operator-controller's own view: the ClusterExtension, what validate reads, the revisions and their Secrets.
  const own = fakeCluster();
  own.seed({ ...structuredClone(ce), apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterExtension' } as KubeObject);
  own.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } });
  own.seed({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: 'ns' } });
  // What the installer ServiceAccount sees: only asked for its permissions under the BoxcutterRuntime.
  const installer = fakeCluster();
  const catalog = { versions };
  const helmReleases = new MemoryReleaseStore();
  const events: string[] = [];
  const budget = new BundleBudget(1_000);
  const common = {
    client: own.client,
    scoped: { forServiceAccount: () => withRulesReviews(installer.client, 'all'), forget: () => undefined },
    catalogs: catalogSource(() => chainedPackage('p', catalog.versions)),
    bundleCache: { delete: () => Promise.resolve() },
    pulls: generatedPulls(budget),
    schemas: { schemaFor: () => Promise.resolve(undefined) },
    drift: recordingDrift([]),
    healthGauge: { set: () => undefined, forget: () => undefined },
    events: recordingEvents(events),
    upgrades: createUpgradeNotices(new Registry()),
    features: { webhookSupport: false, singleOwnNamespaceSupport: false, deploymentConfigSupport: false, bundleReleaseSupport: false },
  } satisfies Omit<ClusterExtensionPorts, 'releases'>;
  // As control.ts composes them: revisions in ClusterObjectSets, Helm records only migrated from.
  const boxcutter = clusterExtensionReconciler({ ...common, releases: helmReleases, boxcutter: { systemNamespace: SYSTEM_NAMESPACE } });
  // The same, reading the revisions from the informer's copies as of the last `sync` (control.ts passes Informer.list).
  const copy = informerCopy(own, 'ClusterObjectSet');
  const cached = clusterExtensionReconciler({
    ...common,
    releases: helmReleases,
    boxcutter: { systemNamespace: SYSTEM_NAMESPACE, cachedRevisions: copy.of },
  });
  // The Helm runtime over the same records, for the extension installed before the gate.
  const helm = clusterExtensionReconciler({ ...common, releases: helmReleases });
  const ctx = { signal: new AbortController().signal, log: pino({ level: 'silent' }) };
  const stored = () => own.live({ kind: 'ClusterExtension', metadata: { name: 'ext' } }) as unknown as ClusterExtension;
  const sets = () =>
    [...own.objects.values()].filter((o): o is ObjectSetManifest => o.kind === 'ClusterObjectSet').sort((a, b) => a.spec.revision - b.spec.revision);
  return {
    reconcile: () => boxcutter.reconcile('ext', ctx),
    reconcileCached: () => cached.reconcile('ext', ctx),
    sync: copy.sync,
    reconcileHelm: () => helm.reconcile('ext', ctx),
    ce: stored,
    own,
    installer,
    catalog,
    helmReleases,
    events,
    sets,
    /** Revision `name`'s status as the ClusterObjectSet controller would write it. */
    report: (name: string, conditions: SetCondition[]) =>
      own.edit({ kind: 'ClusterObjectSet', metadata: { name } }, (set) => void (set['status'] = { conditions })),
    /** Revision `name` succeeded: the earlier active ones archived, as its controller does first. */
    succeed: (name: string, version: string) => {
      const revision = sets().find((s) => s.metadata.name === name)?.spec.revision ?? 0;
      for (const earlier of sets().filter((s) => s.spec.revision < revision && s.spec.lifecycleState === 'Active')) {
        own.edit(earlier, (set) => void ((set as ObjectSetManifest).spec.lifecycleState = 'Archived'));
      }
      own.edit({ kind: 'ClusterObjectSet', metadata: { name } }, (set) => void (set['status'] = { conditions: succeededConditions(version) }));
    },
    /** Each revision's objects, read back from its Secrets (boxcutter/store.ts), newest first. */
    history: () => createObjectSetReleases(own.client).history('ext'),
  };
}

/** `type: status reason "message"` of each condition written. */
function conditions(ce: ClusterExtension, ...types: string[]): string[] {
  return types.map((t) => {
    const c = ce.status?.conditions?.find((x) => x.type === t);
    return c === undefined ? `${t}: absent` : `${t}: ${c.status} ${c.reason} ${JSON.stringify(c.message)}`;
  });
}

/** `<phase>: <Kind ns/name>` of each object of `set`, given its objects in phase order. */
function phaseLines(set: ObjectSetManifest, objects: readonly KubeObject[]): string[] {
  const names = set.spec.phases.flatMap((p) => p.objects.map(() => p.name));
  return objects.map((o, i) => `${names[i]}: ${o.kind} ${o.metadata.namespace === undefined ? '' : `${o.metadata.namespace}/`}${o.metadata.name}`);
}

describe('ClusterExtension reconciler under the BoxcutterRuntime (assembled steps, fake ports)', () => {
  it('install: writes revision 1 (owned by the extension, the bundle in upstream phases), no Helm record, and reports it rolling out', async () => {
    const h = harness(['1.0.0']);
    await expect(h.reconcile()).resolves.toEqual({});
    expect(h.sets()).toEqual([]);

    await expect(h.reconcile()).resolves.toEqual({});
    const [set, ...others] = h.sets();
    expect(others).toEqual([]);
    expect(set?.metadata).toMatchObject({
      name: 'ext-1',
      labels: OWNER_LABELS,
      annotations: {
        [ANNOTATION.bundleName]: 'p.v1.0.0',
        [ANNOTATION.packageName]: 'p',
        [ANNOTATION.bundleVersion]: '1.0.0',
        [ANNOTATION.bundleReference]: bundleImage('p', '1.0.0'),
        [ANNOTATION.digestReference]: 'registry.example/p-bundle@sha256:v1.0.0',
      },
      ownerReferences: [
        {
          apiVersion: 'olm.operatorframework.io/v1',
          kind: 'ClusterExtension',
          name: 'ext',
          uid: h.ce().metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    });
    expect(set?.spec).toMatchObject({ revision: 1, lifecycleState: 'Active', collisionProtection: 'Prevent' });
    expect(set?.spec.phases.map((p) => p.name)).toEqual(['identity', 'crds', 'roles', 'bindings', 'deploy']);
    // The objects are in Secrets of the system namespace, referred to from the phases.
    expect(set?.spec.phases.flatMap((p) => p.objects.map((o) => o.ref?.namespace))).toEqual(Array(5).fill(SYSTEM_NAMESPACE));
    const [release] = await h.history();
    const objects = release?.manifest.objects() ?? [];
    expect(phaseLines(set as ObjectSetManifest, objects)).toEqual(BUNDLE_PHASES);
    for (const o of objects) {
      expect(o.metadata.labels).toMatchObject(OWNER_LABELS);
      expect(o.metadata.annotations).toMatchObject({ [ANNOTATION.packageName]: 'p', [ANNOTATION.bundleVersion]: '1.0.0' });
    }
    // Only revisions and their Secrets are written; no Helm record, nothing as the installer.
    expect(h.own.writes.filter((w) => !w.startsWith('patch ClusterExtension') && !w.startsWith('status ClusterExtension'))).toEqual([
      `create Secret ${SYSTEM_NAMESPACE}/${set?.spec.phases[0]?.objects[0]?.ref?.name}`,
      'create ClusterObjectSet ext-1',
      `patch Secret ${SYSTEM_NAMESPACE}/${set?.spec.phases[0]?.objects[0]?.ref?.name}`,
    ]);
    expect(h.helmReleases.records).toEqual([]);
    expect(h.installer.writes).toEqual([]);

    // No status on the revision yet: nothing to mirror, nothing installed (Absent), the revision listed.
    expect(conditions(h.ce(), 'Installed', 'Progressing', 'Available')).toEqual([
      'Installed: False Absent "No bundle installed"',
      'Progressing: absent',
      'Available: absent',
    ]);
    expect(h.ce().status?.activeRevisions).toEqual([{ name: 'ext-1' }]);
    expect(h.ce().status?.install).toBeUndefined();
    expect(h.events).toEqual(['Normal RevisionCreated: Created revision 1 (ClusterObjectSet ext-1) of bundle p.v1.0.0 (version 1.0.0); rolling out']);

    // Its controller reports it rolling out: the extension mirrors the revision's Progressing.
    h.report('ext-1', rollingOutConditions('1.0.0'));
    await expect(h.reconcile()).resolves.toEqual({});
    expect(h.sets().map((s) => s.metadata.name)).toEqual(['ext-1']);
    expect(conditions(h.ce(), 'Installed', 'Progressing', 'Available')).toEqual([
      'Installed: False Absent "No bundle installed"',
      'Progressing: True RollingOut "Revision 1.0.0 is rolling out."',
      'Available: absent',
    ]);
    expect(h.ce().status?.activeRevisions).toEqual([{ name: 'ext-1', conditions: rollingOutConditions('1.0.0') }]);
  });

  it('install: once the revision succeeded, Installed True with the bundle, its Available and Progressing mirrored', async () => {
    const h = harness(['1.0.0']);
    await h.reconcile();
    await h.reconcile();
    h.succeed('ext-1', '1.0.0');
    await expect(h.reconcile()).resolves.toEqual({});
    expect(conditions(h.ce(), 'Installed', 'Progressing', 'Available')).toEqual([
      `Installed: True Succeeded "Installed bundle ${bundleImage('p', '1.0.0')} successfully"`,
      'Progressing: True Succeeded "Revision 1.0.0 has rolled out."',
      'Available: True ProbesSucceeded "Objects are available and pass all probes."',
    ]);
    expect(h.ce().status?.install).toEqual({ bundle: { name: 'p.v1.0.0', version: '1.0.0' } });
    expect(h.ce().status?.activeRevisions).toEqual([{ name: 'ext-1' }]);
    expect(h.ce().status?.conditions?.every((c) => c.observedGeneration === 1)).toBe(true);
    expect(h.sets().map((s) => s.metadata.name)).toEqual(['ext-1']);
  });

  it('nothing changed: the same bundle again makes no new revision and writes nothing of it', async () => {
    const h = harness(['1.0.0']);
    await h.reconcile();
    await h.reconcile();
    h.succeed('ext-1', '1.0.0');
    await h.reconcile();
    const writes = h.own.writes.length;
    await expect(h.reconcile()).resolves.toEqual({});
    expect(h.sets().map((s) => s.metadata.name)).toEqual(['ext-1']);
    expect(h.own.writes.slice(writes).filter((w) => !w.endsWith('ClusterExtension ext'))).toEqual([]);
    expect(h.events).toHaveLength(1);
  });

  it("lists the extension's revisions once a reconcile, and once more after it wrote one; its Secrets' owners looked at once (issue 74)", async () => {
    const h = harness(['1.0.0']);
    await h.reconcile();
    await h.reconcile();
    h.succeed('ext-1', '1.0.0');
    await h.reconcile();
    const lists = (from: number): string[] => h.own.calls.slice(from).filter((c) => c.startsWith('list ClusterObjectSet'));
    let from = h.own.calls.length;
    await expect(h.reconcile()).resolves.toEqual({});
    expect(lists(from)).toHaveLength(1);
    // Its Secrets were given their owner when it was made: not listed again by this process.
    expect(h.own.calls.slice(from).filter((c) => c.includes('Secret'))).toEqual([]);

    // An upgrade: listed before revision 2 is written and after, not by every read.
    h.catalog.versions = ['1.0.0', '1.1.0'];
    from = h.own.calls.length;
    await expect(h.reconcile()).resolves.toEqual({});
    expect(h.sets().map((s) => s.metadata.name)).toEqual(['ext-1', 'ext-2']);
    expect(lists(from)).toHaveLength(2);
    expect(h.ce().status?.activeRevisions).toEqual([{ name: 'ext-1' }, { name: 'ext-2' }]);
  });

  it("reads the extension's revisions from the informer's copies: no list a reconcile, but while a revision it made is not in them (issue 74)", async () => {
    const h = harness(['1.0.0']);
    await h.reconcile();
    await h.reconcile();
    h.succeed('ext-1', '1.0.0');
    await h.reconcile();
    h.sync();
    const lists = (from: number): string[] => h.own.calls.slice(from).filter((c) => c.startsWith('list ClusterObjectSet'));
    let from = h.own.calls.length;
    await expect(h.reconcileCached()).resolves.toEqual({});
    expect(lists(from)).toEqual([]);
    expect(conditions(h.ce(), 'Installed')).toEqual([`Installed: True Succeeded "Installed bundle ${bundleImage('p', '1.0.0')} successfully"`]);

    // An upgrade: revision 2 made on the copy; the reads after it list until the copy shows it, and make no revision 3.
    h.catalog.versions = ['1.0.0', '1.1.0'];
    from = h.own.calls.length;
    await expect(h.reconcileCached()).resolves.toEqual({});
    expect(lists(from)).toHaveLength(1);
    from = h.own.calls.length;
    await expect(h.reconcileCached()).resolves.toEqual({});
    expect(lists(from)).toHaveLength(1);
    expect(h.sets().map((s) => s.metadata.name)).toEqual(['ext-1', 'ext-2']);
    h.sync();
    from = h.own.calls.length;
    await expect(h.reconcileCached()).resolves.toEqual({});
    expect(lists(from)).toEqual([]);
    expect(h.ce().status?.activeRevisions).toEqual([{ name: 'ext-1' }, { name: 'ext-2' }]);
  });

  it('upgrade: a newer catalog version is revision 2; revision 1 stays installed until 2 has succeeded', async () => {
    const h = harness(['1.0.0']);
    await h.reconcile();
    await h.reconcile();
    h.succeed('ext-1', '1.0.0');
    await h.reconcile();

    h.catalog.versions = ['1.0.0', '1.1.0'];
    await expect(h.reconcile()).resolves.toEqual({});
    expect(
      h.sets().map((s) => `${s.metadata.name} ${s.spec.revision} ${s.spec.lifecycleState} ${s.metadata.annotations?.[ANNOTATION.bundleVersion]}`),
    ).toEqual(['ext-1 1 Active 1.0.0', 'ext-2 2 Active 1.1.0']);
    expect(h.events.at(-1)).toBe(
      'Normal RevisionCreated: Created revision 2 (ClusterObjectSet ext-2) of bundle p.v1.1.0 (version 1.1.0) (installed: version 1.0.0); rolling out',
    );
    // The reconciler leaves revision 1 alone (its archiving is revision 2's controller's, once 2 succeeded).
    expect(h.own.writes.filter((w) => w.includes('ClusterObjectSet ext-1'))).toEqual(['create ClusterObjectSet ext-1']);
    // Revision 1 is still the installed one; revision 2 is listed as rolling out.
    expect(conditions(h.ce(), 'Installed')).toEqual([`Installed: True Succeeded "Installed bundle ${bundleImage('p', '1.0.0')} successfully"`]);
    expect(h.ce().status?.install).toEqual({ bundle: { name: 'p.v1.0.0', version: '1.0.0' } });
    expect(h.ce().status?.activeRevisions).toEqual([{ name: 'ext-1' }, { name: 'ext-2' }]);

    // Revision 2 rolling out: its Progressing is mirrored after the installed one's; another reconcile makes no revision 3.
    h.report('ext-2', rollingOutConditions('1.1.0'));
    await expect(h.reconcile()).resolves.toEqual({});
    expect(h.sets().map((s) => s.metadata.name)).toEqual(['ext-1', 'ext-2']);
    expect(conditions(h.ce(), 'Installed', 'Progressing', 'Available')).toEqual([
      `Installed: True Succeeded "Installed bundle ${bundleImage('p', '1.0.0')} successfully"`,
      'Progressing: True RollingOut "Revision 1.1.0 is rolling out."',
      'Available: True ProbesSucceeded "Objects are available and pass all probes."',
    ]);
    expect(h.ce().status?.activeRevisions).toEqual([{ name: 'ext-1' }, { name: 'ext-2', conditions: rollingOutConditions('1.1.0') }]);

    // Revision 2 succeeded (its controller archived revision 1): 1.1.0 installed, revision 1 no longer active.
    h.succeed('ext-2', '1.1.0');
    await expect(h.reconcile()).resolves.toEqual({});
    expect(h.sets().map((s) => `${s.metadata.name} ${s.spec.lifecycleState}`)).toEqual(['ext-1 Archived', 'ext-2 Active']);
    expect(conditions(h.ce(), 'Installed', 'Progressing', 'Available')).toEqual([
      `Installed: True Succeeded "Installed bundle ${bundleImage('p', '1.1.0')} successfully"`,
      'Progressing: True Succeeded "Revision 1.1.0 has rolled out."',
      'Available: True ProbesSucceeded "Objects are available and pass all probes."',
    ]);
    expect(h.ce().status?.install).toEqual({ bundle: { name: 'p.v1.1.0', version: '1.1.0' } });
    expect(h.ce().status?.activeRevisions).toEqual([{ name: 'ext-2' }]);
  });

  it('migration: an extension installed with a Helm release record gets revision 1 from the deployed record', async () => {
    const h = harness(['1.0.0']);
    // Installed before the gate, by the Helm runtime: one deployed record, the objects on the cluster.
    await h.reconcileHelm();
    await expect(h.reconcileHelm()).resolves.toEqual({});
    const [record] = await h.helmReleases.history('ext');
    expect(record?.status).toBe('deployed');
    const recorded = record?.manifest.objects() ?? [];
    const installerWrites = h.installer.writes.length;

    await expect(h.reconcile()).resolves.toEqual({});
    const migrated = h.sets()[0] as ObjectSetManifest;
    expect(migrated.metadata).toMatchObject({
      name: 'ext-1',
      labels: { ...OWNER_LABELS, 'olm.operatorframework.io/migrated-from-helm': 'true' },
      annotations: { [ANNOTATION.bundleName]: 'p.v1.0.0', [ANNOTATION.packageName]: 'p', [ANNOTATION.bundleVersion]: '1.0.0' },
      ownerReferences: [{ kind: 'ClusterExtension', name: 'ext', uid: h.ce().metadata.uid, controller: true }],
    });
    // Collision protection None (the live objects are adopted), its objects inline, Succeeded at once.
    expect(migrated.spec).toMatchObject({ revision: 1, lifecycleState: 'Active', collisionProtection: 'None' });
    expect(migrated.status?.conditions?.map((c) => `${c.type} ${c.status} ${c.reason} ${c.message}`)).toEqual([
      'Succeeded True Succeeded Revision succeeded - migrated from Helm release',
    ]);
    const inline = migrated.spec.phases.flatMap((p) => p.objects.map((o) => o.object as KubeObject));
    expect(phaseLines(migrated, inline)).toEqual(BUNDLE_PHASES);
    // The record's objects: their content as recorded, metadata reduced to name, namespace, labels (the owner's added) and annotations.
    const byIdentity = new Map(recorded.map((o) => [`${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`, o]));
    expect(inline).toHaveLength(recorded.length);
    for (const o of inline) {
      const source = byIdentity.get(`${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`);
      if (source === undefined) throw new Error(`${o.kind} ${o.metadata.name} is not in the record`);
      const { metadata, ...recordedContent } = source;
      const { status: _status, ...content } = recordedContent as Record<string, unknown>;
      const { metadata: objectMetadata, ...objectContent } = o;
      expect(objectContent).toEqual(content);
      expect(Object.keys(objectMetadata).sort()).toEqual(
        ['annotations', 'labels', 'name', ...(metadata.namespace === undefined ? [] : ['namespace'])].sort(),
      );
      expect(objectMetadata.labels).toEqual({ ...metadata.labels, ...OWNER_LABELS });
      expect(objectMetadata.annotations).toEqual({ ...metadata.annotations, [ANNOTATION.bundleVersion]: '1.0.0', [ANNOTATION.packageName]: 'p' });
    }
    // The records stay; the bundle's objects were not written again.
    expect((await h.helmReleases.history('ext')).map((r) => `${r.revision} ${r.status}`)).toEqual(['1 deployed']);
    expect(h.installer.writes.slice(installerWrites)).toEqual([]);

    // The migrated revision is installed. As upstream, the same reconcile's apply replaces it
    // (its collision protection and inline objects are not what the applier writes): revision 2
    // of the same bundle, rolling out, its objects in Secrets.
    expect(conditions(h.ce(), 'Installed')).toEqual([`Installed: True Succeeded "Installed bundle ${bundleImage('p', '1.0.0')} successfully"`]);
    expect(h.ce().status?.install).toEqual({ bundle: { name: 'p.v1.0.0', version: '1.0.0' } });
    expect(h.sets().map((s) => `${s.metadata.name} ${s.spec.collisionProtection} ${s.metadata.annotations?.[ANNOTATION.bundleVersion]}`)).toEqual([
      'ext-1 None 1.0.0',
      'ext-2 Prevent 1.0.0',
    ]);
    expect(h.ce().status?.activeRevisions).toEqual([{ name: 'ext-1' }, { name: 'ext-2' }]);
    expect(h.events.at(-1)).toBe(
      'Normal RevisionCreated: Created revision 2 (ClusterObjectSet ext-2) of bundle p.v1.0.0 (version 1.0.0) (installed: version 1.0.0); rolling out',
    );
    const [second] = await h.history();
    expect(phaseLines(h.sets()[1] as ObjectSetManifest, second?.manifest.objects() ?? [])).toEqual(BUNDLE_PHASES);

    // Migrating again finds the revisions: nothing more, and no revision 3 while revision 2 rolls out.
    await expect(h.reconcile()).resolves.toEqual({});
    expect(h.sets().map((s) => s.metadata.name)).toEqual(['ext-1', 'ext-2']);
  });

  it('while revision 1 rolls out the catalogs are not asked (no revision beside it, deprecation Unknown); once it failed, a fixed bundle replaces it', async () => {
    const h = harness(['1.0.0']);
    await h.reconcile();
    await h.reconcile();
    h.report('ext-1', rollingOutConditions('1.0.0'));

    // The catalog offers 1.0.1 now: upstream keeps rolling out 1.0.0 and says nothing of deprecation.
    h.catalog.versions = ['1.0.0', '1.0.1'];
    await expect(h.reconcile()).resolves.toEqual({});
    expect(h.sets().map((s) => `${s.metadata.name} ${s.metadata.annotations?.[ANNOTATION.bundleVersion]}`)).toEqual(['ext-1 1.0.0']);
    const unknown = 'Unknown DeprecationStatusUnknown "deprecation status unknown: catalog data unavailable"';
    expect(conditions(h.ce(), 'Deprecated', 'PackageDeprecated', 'ChannelDeprecated', 'BundleDeprecated', 'Progressing')).toEqual([
      `Deprecated: ${unknown}`,
      `PackageDeprecated: ${unknown}`,
      `ChannelDeprecated: ${unknown}`,
      'BundleDeprecated: Unknown Absent "no bundle installed yet"',
      'Progressing: True RollingOut "Revision 1.0.0 is rolling out."',
    ]);

    // Past its progress deadline (Progressing False): resolved again, 1.0.1 is revision 2 (upstream would wait forever).
    h.report('ext-1', [
      cond('Available', 'False', 'RollingOut', 'Revision 1.0.0 is rolling out.'),
      cond(
        'Progressing',
        'False',
        'ProgressDeadlineExceeded',
        'Revision has not rolled out for 10 minute(s). Last status: Revision 1.0.0 is rolling out.',
      ),
    ]);
    await expect(h.reconcile()).resolves.toEqual({});
    expect(h.sets().map((s) => `${s.metadata.name} ${s.metadata.annotations?.[ANNOTATION.bundleVersion]}`)).toEqual(['ext-1 1.0.0', 'ext-2 1.0.1']);
    expect(conditions(h.ce(), 'Deprecated')).toEqual(['Deprecated: False NotDeprecated "not deprecated"']);

    // Revision 2 rolling out: a newer 1.0.2 waits for it, no revision 3.
    h.report('ext-2', rollingOutConditions('1.0.1'));
    h.catalog.versions = ['1.0.0', '1.0.1', '1.0.2'];
    await expect(h.reconcile()).resolves.toEqual({});
    expect(h.sets().map((s) => s.metadata.name)).toEqual(['ext-1', 'ext-2']);
  });

  it('a failed rollout with nothing better in the catalog: resolved again to the same bundle, no second revision', async () => {
    const h = harness(['1.0.0']);
    await h.reconcile();
    await h.reconcile();
    h.report('ext-1', [cond('Progressing', 'False', 'Blocked', 'a referenced Secret changed')]);
    await expect(h.reconcile()).resolves.toEqual({});
    expect(h.sets().map((s) => s.metadata.name)).toEqual(['ext-1']);
    expect(conditions(h.ce(), 'Deprecated')).toEqual(['Deprecated: False NotDeprecated "not deprecated"']);
  });
});
