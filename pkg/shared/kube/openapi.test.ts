import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createOpenApiSchemas } from './openapi.ts';
import type { RequestOptions, Transport } from './transport.ts';

// A hand-written fake of the transport seam serving an OpenAPI v3 index and documents.
function fakeServer(docs: Record<string, { hash: string; schemas: Record<string, unknown> }>) {
  const requests: string[] = [];
  let failNext: Error | undefined;
  const transport: Transport = {
    identity: 'fake',
    async request<T>(method: string, path: string, options?: RequestOptions): Promise<T> {
      const hash = options?.query?.['hash'];
      requests.push(hash === undefined ? `${method} ${path}` : `${method} ${path}?hash=${String(hash)}`);
      await new Promise((r) => setImmediate(r)); // answers on a later turn of the event loop, as a server does
      if (failNext !== undefined) {
        const err = failNext;
        failNext = undefined;
        throw err;
      }
      if (path === '/openapi/v3') {
        const paths: Record<string, { serverRelativeURL: string }> = {};
        for (const [key, doc] of Object.entries(docs)) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${doc.hash}` };
        return { paths } as T;
      }
      const doc = docs[path.replace('/openapi/v3/', '')];
      if (doc === undefined || doc.hash !== hash) throw new Error(`no document ${path}`);
      return { openapi: '3.0.0', components: { schemas: doc.schemas } } as T;
    },
    stream(): Promise<Readable> {
      throw new Error('not used');
    },
  };
  return { transport, requests, failOnce: (e: Error) => (failNext = e) };
}

const gvk = (group: string, version: string, kind: string) => ({ 'x-kubernetes-group-version-kind': [{ group, version, kind }] });
const meta = { type: 'object', properties: { name: { type: 'string' } } };

function kindSchema(group: string, version: string, kind: string, specFields: string[]): Record<string, unknown> {
  const spec = { type: 'object', properties: Object.fromEntries(specFields.map((f) => [f, { type: 'string' }])) };
  return { type: 'object', properties: { metadata: { allOf: [{ $ref: '#/components/schemas/Meta' }] }, spec }, ...gvk(group, version, kind) };
}

function fields(schema: Awaited<ReturnType<ReturnType<typeof createOpenApiSchemas>['schemaFor']>>, ...path: string[]): boolean {
  let node = schema;
  for (const p of path) node = node?.object?.field(p);
  return node !== undefined;
}

// A clock the tests move; the index is re-read on a miss only when a second has passed.
const clock = { ms: 0, now: () => clock.ms };

describe('createOpenApiSchemas', () => {
  it('fetches the index and each group-version document once, shared by concurrent callers', async () => {
    const server = fakeServer({
      'api/v1': {
        hash: 'c1',
        schemas: { Meta: meta, ConfigMap: kindSchema('', 'v1', 'ConfigMap', ['data']), Other: kindSchema('other', 'v1', 'Other', []) },
      },
      'apis/apps/v1': { hash: 'a1', schemas: { Meta: meta, Deployment: kindSchema('apps', 'v1', 'Deployment', ['replicas']) } },
    });
    const schemas = createOpenApiSchemas(server.transport, { now: clock.now });
    const [cm, again, dep] = await Promise.all([
      schemas.schemaFor('v1', 'ConfigMap'),
      schemas.schemaFor('v1', 'ConfigMap'),
      schemas.schemaFor('apps/v1', 'Deployment'),
    ]);
    expect(cm).toBe(again);
    expect(fields(cm, 'spec', 'data')).toBe(true);
    expect(fields(cm, 'spec', 'replicas')).toBe(false);
    expect(fields(dep, 'metadata', 'name')).toBe(true);
    expect(await schemas.schemaFor('v1', 'Other')).toBeUndefined();
    expect(await schemas.schemaFor('v1', 'Secret')).toBeUndefined();
    expect(await schemas.schemaFor('nothere.example.com/v1', 'Thing')).toBeUndefined();
    expect(server.requests).toEqual(['GET /openapi/v3', 'GET /openapi/v3/api/v1?hash=c1', 'GET /openapi/v3/apis/apps/v1?hash=a1']);
    expect(schemas.stats()).toEqual({ groupVersions: 2, components: 4 });
  });

  it('after refresh, refetches the index and only the documents whose hash changed', async () => {
    const docs: Record<string, { hash: string; schemas: Record<string, unknown> }> = {
      'api/v1': { hash: 'c1', schemas: { Meta: meta, ConfigMap: kindSchema('', 'v1', 'ConfigMap', ['data']) } },
      'apis/acme.example.com/v1': { hash: 'w1', schemas: { Meta: meta, Widget: kindSchema('acme.example.com', 'v1', 'Widget', ['size']) } },
    };
    const server = fakeServer(docs);
    const schemas = createOpenApiSchemas(server.transport, { now: clock.now });
    expect(fields(await schemas.schemaFor('acme.example.com/v1', 'Widget'), 'spec', 'color')).toBe(false);
    await schemas.schemaFor('v1', 'ConfigMap');
    docs['apis/acme.example.com/v1'] = {
      hash: 'w2',
      schemas: { Meta: meta, Widget: kindSchema('acme.example.com', 'v1', 'Widget', ['size', 'color']) },
    };
    docs['apis/new.example.com/v1'] = { hash: 'n1', schemas: { Meta: meta, Gadget: kindSchema('new.example.com', 'v1', 'Gadget', []) } };
    // Without refresh the cached index and documents answer, and a miss within a second of
    // reading the index does not read it again.
    expect(fields(await schemas.schemaFor('acme.example.com/v1', 'Widget'), 'spec', 'color')).toBe(false);
    expect(await schemas.schemaFor('new.example.com/v1', 'Gadget')).toBeUndefined();
    expect(server.requests.filter((r) => r === 'GET /openapi/v3')).toHaveLength(1);
    server.requests.length = 0;
    schemas.refresh();
    expect(fields(await schemas.schemaFor('acme.example.com/v1', 'Widget'), 'spec', 'color')).toBe(true);
    expect(await schemas.schemaFor('v1', 'ConfigMap')).toBeDefined();
    expect(await schemas.schemaFor('new.example.com/v1', 'Gadget')).toBeDefined();
    expect(server.requests).toEqual([
      'GET /openapi/v3',
      'GET /openapi/v3/apis/acme.example.com/v1?hash=w2',
      'GET /openapi/v3/apis/new.example.com/v1?hash=n1',
    ]);
  });

  it('reports a failed fetch with its cause and retries it on the next call', async () => {
    const server = fakeServer({ 'api/v1': { hash: 'c1', schemas: { Meta: meta, ConfigMap: kindSchema('', 'v1', 'ConfigMap', ['data']) } } });
    const schemas = createOpenApiSchemas(server.transport, { now: clock.now });
    const cause = new Error('connection refused');
    server.failOnce(cause);
    const err = await schemas.schemaFor('v1', 'ConfigMap').catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe('reading the OpenAPI schema of v1: connection refused');
    expect((err as Error).cause).toBe(cause);
    expect(await schemas.schemaFor('v1', 'ConfigMap')).toBeDefined();
  });

  it('an aborted caller gets the abort reason while the shared fetch completes for others', async () => {
    const server = fakeServer({ 'api/v1': { hash: 'c1', schemas: { Meta: meta, ConfigMap: kindSchema('', 'v1', 'ConfigMap', ['data']) } } });
    const schemas = createOpenApiSchemas(server.transport, { now: clock.now });
    const controller = new AbortController();
    const reason = new Error('stop');
    const aborted = schemas.schemaFor('v1', 'ConfigMap', controller.signal);
    const other = schemas.schemaFor('v1', 'ConfigMap');
    controller.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    expect(await other).toBeDefined();
  });

  it('a miss re-reads the index when it was read more than a second ago', async () => {
    const docs: Record<string, { hash: string; schemas: Record<string, unknown> }> = {
      'api/v1': { hash: 'c1', schemas: { Meta: meta, ConfigMap: kindSchema('', 'v1', 'ConfigMap', ['data']) } },
    };
    const server = fakeServer(docs);
    const schemas = createOpenApiSchemas(server.transport, { now: clock.now });
    await schemas.schemaFor('v1', 'ConfigMap');
    docs['apis/new.example.com/v1'] = { hash: 'n1', schemas: { Meta: meta, Gadget: kindSchema('new.example.com', 'v1', 'Gadget', []) } };
    clock.ms += 500;
    expect(await schemas.schemaFor('new.example.com/v1', 'Gadget')).toBeUndefined();
    clock.ms += 600;
    expect(await schemas.schemaFor('new.example.com/v1', 'Gadget')).toBeDefined();
    // A kind no document has: one re-read, then none until a second has passed again.
    clock.ms += 1500;
    expect(await schemas.schemaFor('v1', 'Nothing')).toBeUndefined();
    expect(await schemas.schemaFor('v1', 'Nothing')).toBeUndefined();
    expect(server.requests).toEqual([
      'GET /openapi/v3',
      'GET /openapi/v3/api/v1?hash=c1',
      'GET /openapi/v3',
      'GET /openapi/v3/apis/new.example.com/v1?hash=n1',
      'GET /openapi/v3',
    ]);
  });
});
