// Pruning fields the API server's schema does not declare before server-side apply
// (decision 0044), on the real kube-apiserver with the schemas it publishes (OpenAPI v3).
//
// For built-in kinds (a Deployment with stray keys at three depths, a v1 CRD carrying
// v1beta1-era `spec.version` and `spec.validation`, a ServiceAccount with an unknown
// top-level key) server-side apply with the controller's field manager and force is refused
// with the server's "field not declared in schema" message, naming exactly the paths
// pruneUnknownFields reports; the pruned objects apply and the live objects keep every known
// field. Custom resources are refused the same way (nested fields too); pruned with the
// CRD's published schema they apply and equal what a create stores. Rendered fixture
// bundles lose nothing to pruning (no false positives), and multi-crd installs after it.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { FIELD_MANAGER } from '../../pkg/shared/api/index.ts';
import { pruneUnknownFields } from '../../pkg/operator-controller/applier/index.ts';
import { parseBundle, readBundleDir } from '../../pkg/operator-controller/bundle/index.ts';
import {
  connect,
  createOpenApiSchemas,
  type KubeClient,
  type KubeContext,
  type KubeObject,
  type OpenApiSchemas,
} from '../../pkg/shared/kube/index.ts';
import { render, type RenderOptions } from '../../pkg/operator-controller/render/index.ts';
import { FIXTURE_BUNDLES_DIR, GOLDEN_CASES } from '../fixtures/bundles/golden-cases.ts';
import {
  applyAll,
  deleteAndWait,
  describeObject,
  loadBundleDir,
  refOf,
  renderRelease,
  uniqueMultiCrdBundle,
  waitForCrdsEstablished,
  writeBundleDir,
} from '../support/bundle-flow.ts';
import { customResourceDefinition } from '../support/crds.ts';

const RUN = randomBytes(3).toString('hex');
const NS = `prune-${RUN}`;
const GROUP = `p${RUN}.prune.example.com`;

let kube: KubeContext;
let admin: KubeClient;
let schemas: OpenApiSchemas;
let tmp: string;
const cleanup: KubeObject[] = [];

beforeAll(async () => {
  kube = await connect({ kind: 'file', path: inject('envtestControlPlane').kubeconfigPath });
  admin = kube.client;
  schemas = createOpenApiSchemas(admin.transport);
  await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  tmp = await mkdtemp(join(tmpdir(), 'prune-'));
});

afterAll(async () => {
  for (const obj of cleanup.reverse()) await deleteAndWait(admin, obj);
  kube?.close();
  if (tmp !== undefined) await rm(tmp, { recursive: true, force: true });
});

async function prune(obj: KubeObject): Promise<{ object: KubeObject; dropped: string[] }> {
  return pruneUnknownFields(obj, await schemas.schemaFor(obj.apiVersion, obj.kind));
}

async function applyRefusal(obj: KubeObject): Promise<string> {
  return admin.apply(obj, { fieldManager: FIELD_MANAGER, force: true }).then(
    () => 'applied',
    (e: unknown) => (e as Error).message,
  );
}

/** The paths a "failed to create typed patch object" message names (one, or an `errors:` list). */
function refusedPaths(message: string): string[] {
  return [...message.matchAll(/(\.[^\s:]+): field not declared in schema/g)].map((m) => m[1] ?? '').sort();
}

const DEPLOYMENT: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'stray', namespace: NS, labels: { app: 'stray' } },
  spec: {
    replicas: 1,
    x: 'stray',
    selector: { matchLabels: { app: 'stray' } },
    template: {
      metadata: { labels: { app: 'stray' } },
      spec: {
        containers: [
          {
            name: 'app',
            image: 'registry.example.com/app:1',
            imagePullPolicyy: 'Always',
            ports: [{ containerPort: 8080, name: 'http', hostPortt: 1 }],
            volumeMounts: [{ name: 'data', mountPath: '/data' }],
          },
        ],
        volumes: [{ name: 'data', emptyDir: { sizeLimit: '1Gi' }, foo: 'bar' }],
      },
    },
  },
  // Status is typed too (unknown keys refused), then ignored by the server on apply.
  status: { replicas: 5, bogus: 1 },
};

const CRD: KubeObject = customResourceDefinition({
  group: GROUP,
  kind: 'Gadget',
  plural: 'gadgets',
  extraSpec: { version: 'v1', validation: { openAPIV3Schema: { type: 'object' } } },
  schema: {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          size: { type: 'integer' },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    },
  },
});

const SERVICE_ACCOUNT: KubeObject = {
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name: 'stray', namespace: NS },
  automountServiceAccountToken: false,
  automountToken: true,
};

describe('built-in kinds with fields their schema does not declare', () => {
  const cases: { name: string; object: KubeObject; dropped: string[]; check: (live: Record<string, unknown>) => void }[] = [
    {
      name: 'a Deployment with a stray spec key and unknown keys in a container, a port and a volume',
      object: DEPLOYMENT,
      dropped: [
        '.spec.x',
        '.spec.template.spec.containers[name="app"].imagePullPolicyy',
        '.spec.template.spec.containers[name="app"].ports[containerPort=8080,protocol="TCP"].hostPortt',
        '.spec.template.spec.volumes[name="data"].foo',
        '.status.bogus',
      ],
      check: (live) => {
        const spec = live['spec'] as {
          replicas: number;
          template: { spec: { containers: Record<string, unknown>[]; volumes: Record<string, unknown>[] } };
        };
        expect(spec.replicas).toBe(1);
        expect(spec).not.toHaveProperty('x');
        expect(spec.template.spec.containers[0]).toMatchObject({
          name: 'app',
          image: 'registry.example.com/app:1',
          ports: [{ containerPort: 8080, name: 'http' }],
        });
        expect(spec.template.spec.containers[0]).not.toHaveProperty('imagePullPolicyy');
        expect(spec.template.spec.volumes).toEqual([{ name: 'data', emptyDir: { sizeLimit: '1Gi' } }]);
        expect(live['status']).not.toHaveProperty('replicas');
      },
    },
    {
      name: 'a v1 CustomResourceDefinition carrying v1beta1-style spec.version and spec.validation',
      object: CRD,
      dropped: ['.spec.version', '.spec.validation'],
      check: (live) => {
        const spec = live['spec'] as Record<string, unknown>;
        expect(spec).not.toHaveProperty('version');
        expect(spec).not.toHaveProperty('validation');
        expect(spec['versions']).toMatchObject([{ name: 'v1', served: true, storage: true }]);
      },
    },
    {
      name: 'a ServiceAccount with an unknown top-level key',
      object: SERVICE_ACCOUNT,
      dropped: ['.automountToken'],
      check: (live) => {
        expect(live['automountServiceAccountToken']).toBe(false);
        expect(live).not.toHaveProperty('automountToken');
      },
    },
  ];

  for (const c of cases) {
    it(`${c.name}: refused as is, applied after pruning exactly the stray paths`, async () => {
      const refusal = await applyRefusal(c.object);
      expect(refusal).toContain(`failed to create typed patch object (${describeTarget(c.object)})`);
      const pruned = await prune(c.object);
      expect(pruned.dropped).toEqual(c.dropped);
      // The server names (at most one per object map) paths we drop, in the same syntax;
      // that the pruned object applies shows nothing undeclared is left.
      const named = refusedPaths(refusal);
      expect(named.length).toBeGreaterThan(0);
      expect(c.dropped).toEqual(expect.arrayContaining(named));
      cleanup.push(pruned.object);
      await admin.apply(pruned.object, { fieldManager: FIELD_MANAGER, force: true });
      c.check(await admin.get(refOf(c.object)));
    });
  }
});

/** `<ns>/<name>; <group>/<version>, Kind=<kind>` as the server writes it (`/v1` for the core group). */
function describeTarget(obj: KubeObject): string {
  const name = `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
  return `${name}; ${obj.apiVersion.includes('/') ? '' : '/'}${obj.apiVersion}, Kind=${obj.kind}`;
}

// A custom resource kind of our own: a structural schema with a status subresource.
const WIDGET_CRD: KubeObject = customResourceDefinition({
  group: GROUP,
  kind: 'Widget',
  plural: 'widgets',
  subresources: { status: {} },
  schema: {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          size: { type: 'integer' },
          items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
      status: { type: 'object', properties: { ready: { type: 'boolean' } } },
    },
  },
});

function widget(name: string, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: 'Widget',
    metadata: { name, namespace: NS },
    spec: { size: 3, color: 'red', items: [{ name: 'a', extra: 1 }], free: { anything: { goes: true } } },
    ...extra,
  };
}

describe('custom resources with fields their CRD does not declare', () => {
  beforeAll(async () => {
    cleanup.push(WIDGET_CRD);
    await admin.apply(WIDGET_CRD, { fieldManager: FIELD_MANAGER, force: true });
    await waitForCrdsEstablished(admin, [WIDGET_CRD]);
  });

  it('apply refuses unknown fields, nested or top-level; pruned with the published schema, the result equals a create', async () => {
    // The kind is published a moment after the CRD is Established: a miss re-reads the index.
    const schema = await vi.waitFor(
      async () => {
        const found = await schemas.schemaFor(`${GROUP}/v1`, 'Widget');
        if (found === undefined) throw new Error(`Widget of ${GROUP}/v1 is not published yet`);
        return found;
      },
      { timeout: 10_000, interval: 250 },
    );
    expect(schema).toBeDefined();

    // Unknown nested fields alone are refused, like an unknown top-level key.
    for (const [obj, unknown] of [
      [widget('nested'), ['.spec.color', '.spec.items[0].extra']],
      [widget('stray', { top: 1 }), ['.spec.color', '.spec.items[0].extra', '.top']],
    ] as const) {
      const refusal = await applyRefusal(obj);
      expect(refusal).toContain(`failed to create typed patch object (${describeTarget(obj)})`);
      const named = refusedPaths(refusal);
      expect(named.length).toBeGreaterThan(0);
      expect(unknown).toEqual(expect.arrayContaining(named));
    }

    // Pruned, it applies and equals what a create stores (upstream creates objects; on create
    // the server drops unknown fields of custom resources silently).
    const stray = widget('stray', { top: 1 });
    const pruned = pruneUnknownFields(stray, schema);
    expect(pruned.dropped).toEqual(['.spec.color', '.spec.items[0].extra', '.top']);
    await admin.apply(pruned.object, { fieldManager: FIELD_MANAGER, force: true });
    await admin.create({ ...stray, metadata: { name: 'created', namespace: NS } });
    const applied = await admin.get(refOf(stray));
    const created = await admin.get(refOf({ ...stray, metadata: { name: 'created', namespace: NS } }));
    expect(applied['spec']).toEqual(created['spec']);
    expect(Object.keys(applied).sort()).toEqual(Object.keys(created).sort());
    expect(applied).not.toHaveProperty('top');
  });
});

// Option sets tried on every fixture bundle: whatever renders is checked.
const FIXTURE_OPTIONS: RenderOptions[] = [
  { installNamespace: NS },
  { installNamespace: NS, config: { watchNamespace: NS } },
  { installNamespace: NS, config: { watchNamespace: `${NS}-watched` } },
  { installNamespace: NS, certProvider: 'cert-manager' },
  { installNamespace: NS, certProvider: 'openshift-service-ca' },
];

describe('rendered fixture bundles', () => {
  it('lose no field to pruning, in every fixture bundle that renders and every golden case', async () => {
    const rendered = new Set<string>();
    const dropped: string[] = [];
    let checked = 0;
    const check = async (label: string, objects: readonly KubeObject[]): Promise<void> => {
      for (const rendered of objects) {
        const obj: KubeObject = { ...rendered, metadata: rendered.metadata ?? {} };
        const schema = await schemas.schemaFor(obj.apiVersion, obj.kind);
        if (schema === undefined) continue;
        checked++;
        for (const path of pruneUnknownFields(obj, schema).dropped) dropped.push(`${label}: ${describeObject(obj)}: ${path}`);
      }
    };
    for (const entry of await readdir(FIXTURE_BUNDLES_DIR, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const bundle = parseBundle(await readBundleDir(join(FIXTURE_BUNDLES_DIR, entry.name)));
      if (!bundle.ok) continue;
      for (const options of FIXTURE_OPTIONS) {
        const objects = render(bundle.value, options);
        if (!objects.ok) continue;
        rendered.add(entry.name);
        await check(`${entry.name} ${JSON.stringify(options)}`, objects.value);
      }
    }
    for (const c of GOLDEN_CASES) {
      const bundle = parseBundle(await readBundleDir(join(FIXTURE_BUNDLES_DIR, c.bundle)));
      if (!bundle.ok || c.via !== 'render') continue;
      const objects = render(bundle.value, c.options);
      if (!objects.ok) throw new Error(`golden case ${c.name}: ${objects.error.message}`);
      await check(c.name, objects.value);
    }
    expect(dropped).toEqual([]);
    expect([...rendered].sort()).toEqual(['anchors', 'dependencies', 'extra-kinds', 'minimal', 'multi-crd', 'own-only', 'single-only', 'webhook']);
    expect(checked).toBeGreaterThan(150);
  });

  it('multi-crd installs with the controller field manager after pruning, which drops nothing', async () => {
    const bundle = await loadBundleDir(await writeBundleDir(join(tmp, 'multi-crd'), await uniqueMultiCrdBundle(RUN)));
    const objects = renderRelease(bundle, { installNamespace: NS }, `prune-${RUN}`);
    const pruned: KubeObject[] = [];
    for (const obj of objects) {
      const result = await prune(obj);
      expect(result.dropped, describeObject(obj)).toEqual([]);
      expect(result.object).toEqual(obj);
      pruned.push(result.object);
    }
    const crds = pruned.filter((o) => o.kind === 'CustomResourceDefinition');
    cleanup.push(...crds);
    await applyAll(admin, pruned);
    await waitForCrdsEstablished(admin, crds);
  });
});
