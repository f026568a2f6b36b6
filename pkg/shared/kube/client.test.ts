import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  TokenGetter,
  canI,
  decodeWatchStream,
  isNoKindMatch,
  reviewToken,
  serviceAccountSubject,
  type RequestOptions,
  type Transport,
} from './index.ts';
import { pushWatchEvents } from './watch.ts';
import { createKubeClient } from './client.ts';
import { createResourceMapper, resourcePath } from './resource-mapper.ts';
import { isGone } from './api-error.ts';

interface Call {
  method: string;
  path: string;
  options: RequestOptions;
}

// A scripted transport: discovery documents by path, other answers from `reply`.
function fakeTransport(discovery: Record<string, unknown>, reply: (c: Call) => unknown = () => ({})) {
  const calls: Call[] = [];
  const transport: Transport = {
    identity: 'fake',
    async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
      calls.push({ method, path, options });
      if (method === 'GET' && path in discovery) {
        const doc = discovery[path];
        if (doc === undefined) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
        return doc as T;
      }
      if (method === 'GET' && /^\/(api\/[^/]+|apis\/[^/]+\/[^/]+)$/.test(path)) {
        throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
      }
      return reply({ method, path, options }) as T;
    },
    async stream(method: string, path: string, options: RequestOptions = {}) {
      calls.push({ method, path, options });
      return Readable.from([
        Buffer.from(JSON.stringify({ type: 'ADDED', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } }) + '\n'),
      ]);
    },
  };
  return { transport, calls };
}

const DISCOVERY = {
  '/api/v1': {
    resources: [
      { name: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: ['get', 'list'] },
      { name: 'namespaces', kind: 'Namespace', namespaced: false },
      { name: 'namespaces/status', kind: 'Namespace', namespaced: false },
    ],
  },
  '/apis/apiextensions.k8s.io/v1': { resources: [{ name: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false }] },
};

describe('KubeClient', () => {
  it('marks the POSTs that only ask or mint as idempotent (reviews, TokenRequest), other creates not', async () => {
    const discovery = {
      ...DISCOVERY,
      '/api/v1': {
        resources: [
          ...DISCOVERY['/api/v1'].resources,
          { name: 'serviceaccounts/token', kind: 'TokenRequest', namespaced: true },
          { name: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true },
        ],
      },
      '/apis/authentication.k8s.io/v1': { resources: [{ name: 'tokenreviews', kind: 'TokenReview', namespaced: false }] },
      '/apis/authorization.k8s.io/v1': { resources: [{ name: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false }] },
    };
    const { transport, calls } = fakeTransport(discovery, (c) =>
      c.path.endsWith('/token') ? { status: { token: 't', expirationTimestamp: '2099-01-01T00:00:00Z' } } : { status: {} },
    );
    const client = createKubeClient(transport, createResourceMapper(transport));
    await reviewToken(client, 'tok');
    await canI(client, serviceAccountSubject('ns', 'sa'), [{ verb: 'get', resource: 'pods' }]);
    await new TokenGetter({ client }).get('ns', 'sa');
    await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } });
    const posts = calls.filter((c) => c.method === 'POST').map((c) => [c.path, c.options.idempotent]);
    expect(posts).toEqual([
      ['/apis/authentication.k8s.io/v1/tokenreviews', true],
      ['/apis/authorization.k8s.io/v1/subjectaccessreviews', true],
      ['/api/v1/namespaces/ns/serviceaccounts/sa/token', true],
      ['/api/v1/namespaces/ns/configmaps', false],
    ]);
  });

  it('maps kinds to paths for namespaced, cluster-scoped and subresource requests', async () => {
    const { transport, calls } = fakeTransport(DISCOVERY);
    const client = createKubeClient(transport, createResourceMapper(transport));
    await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns 1', name: 'a/b' });
    await client.get({ apiVersion: 'v1', kind: 'Namespace', namespace: 'ignored', name: 'n' });
    await client.updateStatus({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } });
    await client.list({ apiVersion: 'v1', kind: 'ConfigMap' }, { labelSelector: 'a=b', limit: 5 });
    const paths = calls.filter((c) => !c.path.endsWith('/v1')).map((c) => `${c.method} ${c.path}`);
    expect(paths).toEqual([
      'GET /api/v1/namespaces/ns%201/configmaps/a%2Fb',
      'GET /api/v1/namespaces/n',
      'PUT /api/v1/namespaces/n/status',
      'GET /api/v1/configmaps',
    ]);
    expect(calls.at(-1)?.options.query).toMatchObject({ labelSelector: 'a=b', limit: 5 });
    expect(calls.filter((c) => c.path === '/api/v1')).toHaveLength(1); // discovery cached
  });

  it('applies with the apply-patch content type and the object stringified unchanged', async () => {
    const { transport, calls } = fakeTransport(DISCOVERY);
    const client = createKubeClient(transport, createResourceMapper(transport));
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.example.com' },
      spec: { versions: [{ schema: { openAPIV3Schema: { properties: { a: { default: 1, enum: [1, 2], 'x-kubernetes-int-or-string': true } } } } }] },
    };
    await client.apply(crd, { fieldManager: 'olm', force: true, fieldValidation: 'Strict', dryRun: true });
    const call = calls.at(-1) as Call;
    expect(call.method).toBe('PATCH');
    expect(call.path).toBe('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.example.com');
    expect(call.options.contentType).toBe('application/apply-patch+yaml');
    expect(call.options.body).toBe(JSON.stringify(crd));
    expect(call.options.query).toMatchObject({ fieldManager: 'olm', force: 'true', fieldValidation: 'Strict', dryRun: 'All' });
    await expect(client.apply(crd, { fieldManager: '' })).rejects.toThrow('server-side apply needs a fieldManager');
  });

  it('sends patches and delete options', async () => {
    const { transport, calls } = fakeTransport(DISCOVERY);
    const client = createKubeClient(transport, createResourceMapper(transport));
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'c' };
    await client.patch(ref, [{ op: 'remove', path: '/data/x' }], 'json');
    expect(calls.at(-1)?.options.contentType).toBe('application/json-patch+json');
    await client.patch(ref, { data: { x: null } }, 'merge', { subresource: 'status' });
    expect(calls.at(-1)).toMatchObject({
      path: '/api/v1/namespaces/ns/configmaps/c/status',
      options: { contentType: 'application/merge-patch+json' },
    });
    await client.delete(ref, { propagationPolicy: 'Foreground', preconditions: { uid: 'u1' } });
    expect(calls.at(-1)).toMatchObject({
      method: 'DELETE',
      options: { body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground', preconditions: { uid: 'u1' } } },
    });
  });

  it('pages through lists with continue tokens', async () => {
    let page = 0;
    const { transport, calls } = fakeTransport(DISCOVERY, () => {
      page++;
      return { metadata: { resourceVersion: `rv${page}`, continue: page < 3 ? `tok${page}` : '' }, items: [{ metadata: { name: `i${page}` } }] };
    });
    const client = createKubeClient(transport, createResourceMapper(transport));
    const all = await client.listAll({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'ns', limit: 1 });
    expect(all.items.map((i) => i.metadata.name)).toEqual(['i1', 'i2', 'i3']);
    expect(all.resourceVersion).toBe('rv1');
    expect(calls.filter((c) => c.path.includes('configmaps')).map((c) => c.options.query?.continue)).toEqual([undefined, 'tok1', 'tok2']);
  });

  it('asks for metadata only when told, and reads an empty metadata page (items: null) as no items', async () => {
    const { transport, calls } = fakeTransport(DISCOVERY, () => ({
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadataList',
      metadata: {},
      items: null,
    }));
    const client = createKubeClient(transport, createResourceMapper(transport));
    const all = await client.listAll({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'ns', metadataOnly: true });
    expect(all.items).toEqual([]);
    expect(calls.at(-1)?.options.headers).toEqual({ Accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json' });
  });

  it('watches with bookmarks, a jittered server timeout and the given resourceVersion', async () => {
    const { transport, calls } = fakeTransport(DISCOVERY);
    const client = createKubeClient(transport, createResourceMapper(transport));
    const events = [];
    for await (const ev of client.watch({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'ns', resourceVersion: '42' })) events.push(ev);
    expect(events).toEqual([{ type: 'ADDED', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } }]);
    const q = calls.at(-1)?.options.query ?? {};
    expect(q).toMatchObject({ watch: '1', allowWatchBookmarks: 'true', resourceVersion: '42' });
    expect(Number(q.timeoutSeconds)).toBeGreaterThanOrEqual(300);
    expect(Number(q.timeoutSeconds)).toBeLessThan(600);
  });
});

describe('ResourceMapper', () => {
  it('refetches a group-version on a miss so new CRD kinds resolve, and names unknown kinds', async () => {
    const discovery: Record<string, unknown> = { '/apis/example.com/v1': { resources: [] } };
    const { transport, calls } = fakeTransport(discovery);
    const mapper = createResourceMapper(transport, { minRefreshMs: 0 });
    const gvk = { group: 'example.com', version: 'v1', kind: 'Widget' };
    const err = await mapper.resolve(gvk).catch((e: unknown) => e);
    expect(isNoKindMatch(err)).toBe(true);
    expect((err as Error).message).toBe('no matches for kind "Widget" in version "example.com/v1"');
    discovery['/apis/example.com/v1'] = { resources: [{ name: 'widgets', kind: 'Widget', namespaced: true }] };
    expect(await mapper.resolve(gvk)).toMatchObject({ resource: 'widgets', namespaced: true });
    const fetches = calls.length;
    await mapper.resolve(gvk);
    expect(calls.length).toBe(fetches);
    expect(await mapper.hasGroupVersion('config.openshift.io', 'v1')).toBe(false);
  });

  it('limits refetches on repeated misses', async () => {
    const { transport, calls } = fakeTransport({ '/api/v1': { resources: [] } });
    const mapper = createResourceMapper(transport, { minRefreshMs: 60_000 });
    for (let i = 0; i < 5; i++) await mapper.resolve({ group: '', version: 'v1', kind: 'Nope' }).catch(() => undefined);
    expect(calls).toHaveLength(1);
  });

  it('refuses to address a namespaced object without a namespace', () => {
    const info = { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments', namespaced: true, verbs: [] };
    expect(() => resourcePath(info, { name: 'd' })).toThrow('a namespace is required to address deployments "d"');
    expect(resourcePath(info, {})).toBe('/apis/apps/v1/deployments');
  });
});

describe('decodeWatchStream', () => {
  it('splits events across chunk boundaries and multi-byte characters', async () => {
    const line = JSON.stringify({
      type: 'MODIFIED',
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ü' }, data: { k: 'v'.repeat(1000) } },
    });
    const bytes = Buffer.from(`${line}\n${line}\n`);
    const chunks = [bytes.subarray(0, 37), bytes.subarray(37, 38), bytes.subarray(38, 1500), bytes.subarray(1500)];
    const out = [];
    for await (const ev of decodeWatchStream(Readable.from(chunks))) out.push(ev);
    expect(out).toHaveLength(2);
    expect(out[1]?.object.metadata.name).toBe('ü');
  });

  it('maps ERROR events to ApiErrors (410 Gone) and rejects garbage', async () => {
    const gone = JSON.stringify({
      type: 'ERROR',
      object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (2)' },
    });
    const err = await (async () => {
      for await (const _ of decodeWatchStream(Readable.from([Buffer.from(`${gone}\n`)]))) void _;
    })().catch((e: unknown) => e);
    expect(isGone(err)).toBe(true);
    expect((err as Error).message).toBe('too old resource version: 1 (2)');
    const bad = (async () => {
      for await (const _ of decodeWatchStream(Readable.from([Buffer.from('{not json\n')]))) void _;
    })();
    await expect(bad).rejects.toThrow(/malformed watch event/);
  });
});

describe('pushWatchEvents', () => {
  const line = (name: string): string =>
    `${JSON.stringify({ type: 'ADDED', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } })}\n`;

  it('hands each event over as its line completes, across chunks and multi-byte characters, and resolves at the end', async () => {
    const body = new PassThrough();
    const names: string[] = [];
    const done = pushWatchEvents(body, (ev) => names.push(ev.object.metadata.name ?? ''));
    const bytes = Buffer.from(line('ü') + line('b'));
    body.write(bytes.subarray(0, 60));
    await new Promise((r) => setImmediate(r));
    expect(names).toEqual([]);
    body.write(bytes.subarray(60, bytes.length - 3));
    await new Promise((r) => setImmediate(r));
    expect(names).toEqual(['ü']);
    body.end(Buffer.concat([bytes.subarray(bytes.length - 3), Buffer.from(line('c').trimEnd())]));
    await done;
    expect(names).toEqual(['ü', 'b', 'c']);
    expect(body.destroyed).toBe(true);
  });

  it('rejects as decodeWatchStream throws: ERROR events, garbage, a broken or closed stream, an abort, a failing handler', async () => {
    const gone = JSON.stringify({
      type: 'ERROR',
      object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (2)' },
    });
    const run = async (feed: (body: PassThrough, abort: AbortController) => void, onEvent = (): void => undefined): Promise<unknown> => {
      const body = new PassThrough();
      const abort = new AbortController();
      const done = pushWatchEvents(body, onEvent, abort.signal).catch((e: unknown) => e);
      feed(body, abort);
      const err = await done;
      expect(body.destroyed).toBe(true);
      return err;
    };
    const g = await run((b) => b.write(`${gone}\n`));
    expect(isGone(g)).toBe(true);
    expect(((await run((b) => b.write('{not json\n'))) as Error).message).toMatch(/malformed watch event/);
    expect(((await run((b) => b.destroy(new Error('stream reset')))) as Error).message).toBe('watch stream broke: stream reset');
    expect(((await run((b) => b.destroy())) as Error).message).toBe('watch stream broke: Premature close');
    expect(await run((_b, a) => a.abort(new Error('stopped')))).toEqual(new Error('stopped'));
    const thrown = await run(
      (b) => b.write(line('x')),
      () => {
        throw new Error('handler failed');
      },
    );
    expect((thrown as Error).message).toBe('handler failed');
  });
});
