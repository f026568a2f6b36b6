// pkg/shared/kube against the shared real kube-apiserver: server-side apply keeps a large CRD's schema
// byte-for-byte (the client-node serializer pitfall, decision 0061), apply ownership/force,
// strict field validation, discovery of a newly created kind, pagination and watch.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, isConflict, isNotFound, type KubeContext, type KubeObject } from '../../pkg/shared/kube/index.ts';
import { customResourceDefinition } from '../support/crds.ts';

const suffix = randomBytes(3).toString('hex');
const NS = `kube-client-${suffix}`;
const GROUP = `kc${suffix}.example.com`;
const FIELD_MANAGER = 'olm.operatorframework.io/clusterextension-controller';
let kube: KubeContext;

beforeAll(async () => {
  kube = await connect({ kind: 'file', path: inject('envtestControlPlane').kubeconfigPath }, { userAgent: 'olmv1-integration' });
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
});
afterAll(() => kube?.close());

type Schema = Record<string, unknown>;

// A structural schema of roughly `groups * fields * 350` bytes that uses every construct the
// typed serializer of client-node would mangle: default, enum, int-or-string,
// preserve-unknown-fields, embedded resources, list/map types, CEL validations, nesting.
function largeSchema(groups: number, fields: number): Schema {
  const text = (n: number): string => `Field ${n} controls one aspect of the operand. `.repeat(6);
  const groupProps: Record<string, Schema> = {};
  for (let g = 0; g < groups; g++) {
    const props: Record<string, Schema> = {};
    for (let f = 0; f < fields; f++) {
      const n = g * fields + f;
      if (f % 5 === 0) props[`mode${f}`] = { type: 'string', description: text(n), enum: ['Fast', 'Safe', 'Off'], default: 'Safe' };
      else if (f % 5 === 1)
        props[`port${f}`] = { description: text(n), 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
      else if (f % 5 === 2) props[`count${f}`] = { type: 'integer', format: 'int32', minimum: 0, maximum: 1000, default: f, description: text(n) };
      else if (f % 5 === 3) props[`raw${f}`] = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, description: text(n) };
      else {
        props[`nested${f}`] = {
          type: 'object',
          description: text(n),
          properties: { inner: { type: 'object', properties: { leaf: { type: 'string', maxLength: 63, pattern: '^[a-z0-9-]*$', default: 'x' } } } },
        };
      }
    }
    groupProps[`group${g}`] = { type: 'object', description: `Group ${g}.`, properties: props };
  }
  return {
    type: 'object',
    description: 'A test resource with a deliberately large schema.',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        'x-kubernetes-validations': [
          {
            rule: '!has(self.minReplicas) || !has(self.maxReplicas) || self.minReplicas <= self.maxReplicas',
            message: 'minReplicas must not exceed maxReplicas',
          },
        ],
        properties: {
          ...groupProps,
          minReplicas: { type: 'integer', default: 1 },
          maxReplicas: { type: 'integer', default: 3 },
          name: {
            type: 'string',
            maxLength: 64,
            'x-kubernetes-validations': [{ rule: "self.startsWith('op-')", message: 'name must start with op-', reason: 'FieldValueInvalid' }],
          },
          entries: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['key'],
            items: { type: 'object', required: ['key'], properties: { key: { type: 'string' }, value: { type: 'string', default: '' } } },
          },
          labels: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'granular' },
          template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
      status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  };
}

function crd(schema: Schema): KubeObject {
  return customResourceDefinition({ group: GROUP, kind: 'Widget', plural: 'widgets', subresources: { status: {} }, schema });
}

async function waitEstablished(name: string): Promise<void> {
  const established = async (): Promise<boolean> => {
    const got = await kube.client.get<KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> } }>({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name,
    });
    return got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true;
  };
  await expect.poll(established, { timeout: 10_000, interval: 100, message: `CRD ${name} not established` }).toBe(true);
}

describe('server-side apply through the raw transport', () => {
  it('round-trips a large CRD schema unchanged and serves the new kind', async () => {
    const schema = largeSchema(40, 25);
    const manifest = crd(schema);
    expect(JSON.stringify(manifest).length).toBeGreaterThan(300_000);
    const applied = await kube.client.apply(manifest, { fieldManager: FIELD_MANAGER, force: true });
    const appliedSchema = (applied.spec as { versions: Array<{ schema: { openAPIV3Schema: Schema } }> }).versions[0]?.schema.openAPIV3Schema;
    expect(appliedSchema).toEqual(schema);
    const managers = (applied.metadata.managedFields as Array<{ manager: string; operation: string }>).map((m) => `${m.manager}/${m.operation}`);
    expect(managers).toContain(`${FIELD_MANAGER}/Apply`);

    await waitEstablished(`widgets.${GROUP}`);
    const fetched = await kube.client.get({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: `widgets.${GROUP}` });
    expect((fetched.spec as { versions: Array<{ schema: { openAPIV3Schema: Schema } }> }).versions[0]?.schema.openAPIV3Schema).toEqual(schema);

    // Re-applying the same manifest is a no-op for the stored object.
    const again = await kube.client.apply(manifest, { fieldManager: FIELD_MANAGER, force: true });
    expect(again.metadata.resourceVersion).toBe(fetched.metadata.resourceVersion);

    // The kind did not exist at start-up: discovery is refreshed on the miss. Defaults and CEL run.
    const widget = await kube.client.apply(
      { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w1', namespace: NS }, spec: { name: 'op-one', group0: { port1: 'http' } } },
      { fieldManager: FIELD_MANAGER, force: true },
    );
    expect(widget.spec).toMatchObject({ minReplicas: 1, maxReplicas: 3, group0: { mode0: 'Safe', port1: 'http', count2: 2 } });
    const invalid = await kube.client
      .apply(
        { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w2', namespace: NS }, spec: { name: 'bad', minReplicas: 5 } },
        { fieldManager: FIELD_MANAGER },
      )
      .catch((e: unknown) => e);
    expect((invalid as Error).message).toContain('name must start with op-');
    expect((invalid as Error).message).toContain('minReplicas must not exceed maxReplicas');
  });

  it('reports field-ownership conflicts unless forced, and rejects unknown fields with Strict validation', async () => {
    const cm = (value: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'owned', namespace: NS },
      data: { x: value },
    });
    await kube.client.apply(cm('1'), { fieldManager: 'first' });
    const conflict = await kube.client.apply(cm('2'), { fieldManager: 'second' }).catch((e: unknown) => e);
    expect(isConflict(conflict)).toBe(true);
    expect((conflict as Error).message).toContain('conflict');
    const forced = await kube.client.apply(cm('2'), { fieldManager: 'second', force: true });
    expect(forced.data).toEqual({ x: '2' });

    const strict = await kube.client
      .apply({ ...cm('3'), bogus: true }, { fieldManager: 'second', force: true, fieldValidation: 'Strict', dryRun: true })
      .catch((e: unknown) => e);
    expect((strict as Error).message).toContain('bogus');
    const dry = await kube.client.apply(cm('3'), { fieldManager: 'second', force: true, dryRun: true });
    expect(dry.data).toEqual({ x: '3' });
    const stored = await kube.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'owned' });
    expect(stored.data).toEqual({ x: '2' });
  });
});

describe('CRUD, pagination and watch', () => {
  it('lists all pages, watches changes and deletes with preconditions', async () => {
    const type = { apiVersion: 'v1', kind: 'ConfigMap' };
    for (let i = 0; i < 7; i++) {
      await kube.client.create({ ...type, metadata: { name: `page-${i}`, namespace: NS, labels: { set: 'pages' } } });
    }
    const all = await kube.client.listAll(type, { namespace: NS, labelSelector: 'set=pages', limit: 3 });
    expect(all.items.map((i) => i.metadata.name).sort()).toEqual(['page-0', 'page-1', 'page-2', 'page-3', 'page-4', 'page-5', 'page-6']);

    const ctl = new AbortController();
    const events: string[] = [];
    const watching = (async () => {
      try {
        for await (const ev of kube.client.watch(type, {
          namespace: NS,
          labelSelector: 'set=pages',
          resourceVersion: all.resourceVersion,
          signal: ctl.signal,
        })) {
          if (ev.type !== 'BOOKMARK') events.push(`${ev.type} ${ev.object.metadata.name}`);
          if (events.length === 2) ctl.abort();
        }
      } catch (err) {
        if (!ctl.signal.aborted) throw err;
      }
    })();
    await kube.client.patch({ ...type, namespace: NS, name: 'page-0' }, { data: { a: 'b' } }, 'merge');
    const victim = await kube.client.get({ ...type, namespace: NS, name: 'page-1' });
    const wrongUid = await kube.client
      .delete({ ...type, namespace: NS, name: 'page-1' }, { preconditions: { uid: 'not-the-uid' } })
      .catch((e: unknown) => e);
    expect(isConflict(wrongUid)).toBe(true);
    await kube.client.delete({ ...type, namespace: NS, name: 'page-1' }, { preconditions: { uid: victim.metadata.uid as string } });
    await watching;
    expect(events).toEqual(['MODIFIED page-0', 'DELETED page-1']);
    expect(isNotFound(await kube.client.get({ ...type, namespace: NS, name: 'page-1' }).catch((e: unknown) => e))).toBe(true);
  });

  it('streams list pages item by item: the same items, resourceVersion and continue tokens as a whole-page list', async () => {
    const type = { apiVersion: 'v1', kind: 'ConfigMap' };
    // Large values with the characters a splitter must not take for structure.
    const data = (i: number): Record<string, string> =>
      Object.fromEntries(Array.from({ length: 4_000 }, (_, k) => [`k${k}`, `{"v":"${i}-${k}"} ] \\ "é" ${'x'.repeat(k % 50)}`]));
    for (let i = 0; i < 5; i++) {
      await kube.client.create({ ...type, metadata: { name: `stream-${i}`, namespace: NS, labels: { set: 'stream' } }, data: data(i) });
    }
    const whole = await kube.client.listAll(type, { namespace: NS, labelSelector: 'set=stream', limit: 2 });
    const listEach = kube.client.listEach?.bind(kube.client);
    if (listEach === undefined) throw new Error('the client offers no streamed list');
    const streamed: KubeObject[] = [];
    const tokens: Array<string | undefined> = [];
    let cont: string | undefined;
    // Other files write to this API server meanwhile: the first page asks for the whole list's
    // resourceVersion (a paginated list at a resourceVersion is served exactly at it).
    do {
      const envelope = await listEach(
        type,
        {
          namespace: NS,
          labelSelector: 'set=stream',
          limit: 2,
          ...(cont === undefined ? { resourceVersion: whole.resourceVersion } : { continue: cont }),
        },
        (item) => streamed.push(item),
      );
      expect(envelope.kind).toBe('ConfigMapList');
      if (cont === undefined) expect(envelope.metadata.resourceVersion).toBe(whole.resourceVersion);
      cont = envelope.metadata.continue || undefined;
      tokens.push(cont);
    } while (cont !== undefined);
    expect(tokens).toHaveLength(3);
    expect(streamed).toEqual(whole.items);
    expect(streamed[4]?.data).toEqual(data(4));

    const names: string[] = [];
    await listEach(type, { namespace: NS, labelSelector: 'set=stream', metadataOnly: true }, (item) =>
      names.push(`${item.kind} ${item.metadata.name}`),
    );
    expect(names).toEqual([
      'PartialObjectMetadata stream-0',
      'PartialObjectMetadata stream-1',
      'PartialObjectMetadata stream-2',
      'PartialObjectMetadata stream-3',
      'PartialObjectMetadata stream-4',
    ]);
    const none = await listEach(type, { namespace: NS, labelSelector: 'set=none', metadataOnly: true }, () => {
      throw new Error('no item expected');
    });
    expect(none.metadata.resourceVersion).not.toBe('');
  });

  it('reuses keep-alive sockets instead of opening one per request or watch', async () => {
    const type = { apiVersion: 'v1', kind: 'ConfigMap' };
    for (let i = 0; i < 40; i++) {
      await kube.client.get({ ...type, namespace: NS, name: 'page-0' });
      if (i % 10 === 0) {
        const ctl = new AbortController();
        const w = kube.client.watch(type, { namespace: NS, signal: ctl.signal, resourceVersion: '0' });
        await w.next();
        ctl.abort();
        await w.return(undefined);
      }
    }
    const count = (sockets: NodeJS.ReadOnlyDict<unknown[]>): number => Object.values(sockets).reduce((n, l) => n + (l?.length ?? 0), 0);
    const agent = kube.connection.agent;
    expect(count(agent.sockets) + count(agent.freeSockets)).toBeLessThanOrEqual(3);
  });
});
