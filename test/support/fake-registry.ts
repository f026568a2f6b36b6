/**
 * An in-process fake of the OCI distribution API for unit tests of this module only
 * (integration tests use the real registry from test/envtest). It stores manifests and blobs
 * in memory, speaks basic or bearer auth, and can inject faults: corrupted blobs, blob
 * redirects to another origin, missing digest headers, refused HEADs, stalled answers.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Authentication the fake demands. */
type FakeAuth =
  | { kind: 'none' }
  | { kind: 'basic'; username: string; password: string }
  | { kind: 'bearer'; username?: string; password?: string; expiresIn?: number };

/** Fault switches; change them between requests. */
interface FakeFaults {
  /** Serve these blobs with one byte flipped. */
  corruptBlobs: Set<string>;
  /** Answer blob GETs with a 307 to this origin (`http://127.0.0.1:PORT`). */
  redirectBlobsTo?: string;
  /** Leave out Docker-Content-Digest on manifest HEAD. */
  omitDigestHeader: boolean;
  /** Answer manifest HEAD with 405. */
  refuseHead: boolean;
  /** Never answer manifest requests (the connection stays open). */
  stallManifests?: boolean;
  /** Send these blobs' headers and half their bytes, then nothing more. */
  stallBlobs?: Set<string>;
}

/** A running fake registry. */
export interface FakeRegistry {
  host: string;
  url: string;
  faults: FakeFaults;
  /** `METHOD path` of every request, in order (token requests included). */
  requests: string[];
  /** Authorization headers seen, in request order. */
  authorizations: Array<string | undefined>;
  tokenRequests: URLSearchParams[];
  blobs: Map<string, Buffer>;
  close(): Promise<void>;
}

const sha256 = (b: Buffer): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

function sendError(res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ errors: [{ code, message, detail: null }] }));
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/** Starts a fake registry on 127.0.0.1 with a random port. */
export async function startFakeRegistry(auth: FakeAuth = { kind: 'none' }): Promise<FakeRegistry> {
  const manifests = new Map<string, { body: Buffer; mediaType: string }>(); // key: repo@digest
  const tags = new Map<string, string>(); // key: repo:tag -> digest
  const blobs = new Map<string, Buffer>();
  const uploads = new Map<string, string>(); // uuid -> repo
  const tokens = new Map<string, Set<string>>(); // token -> granted scopes
  const faults: FakeFaults = { corruptBlobs: new Set(), omitDigestHeader: false, refuseHead: false };
  const requests: string[] = [];
  const authorizations: Array<string | undefined> = [];
  const tokenRequests: URLSearchParams[] = [];
  let base = '';

  const basicOk = (header: string | undefined, username?: string, password?: string): boolean =>
    username === undefined || header === `Basic ${Buffer.from(`${username}:${password ?? ''}`).toString('base64')}`;

  function authorized(req: IncomingMessage, res: ServerResponse, repo: string, action: 'pull' | 'push'): boolean {
    const header = req.headers.authorization;
    if (auth.kind === 'none') return true;
    if (auth.kind === 'basic') {
      if (basicOk(header, auth.username, auth.password)) return true;
      sendError(res, 401, 'UNAUTHORIZED', 'authentication required', { 'www-authenticate': 'Basic realm="fake"' });
      return false;
    }
    const granted = header?.startsWith('Bearer ') === true ? tokens.get(header.slice(7)) : undefined;
    if (granted?.has(`repository:${repo}:${action}`) === true) return true;
    const actions = action === 'push' ? 'pull,push' : 'pull';
    sendError(res, 401, 'UNAUTHORIZED', 'authentication required', {
      'www-authenticate': `Bearer realm="${base}/token",service="fake-registry",scope="repository:${repo}:${actions}"`,
    });
    return false;
  }

  function issueToken(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): void {
    tokenRequests.push(query);
    if (auth.kind !== 'bearer' || !basicOk(req.headers.authorization, auth.username, auth.password)) {
      sendError(res, 401, 'UNAUTHORIZED', 'bad credentials');
      return;
    }
    const granted = new Set<string>();
    for (const scope of query.getAll('scope')) {
      const [type, name, actions] = scope.split(':');
      for (const a of (actions ?? '').split(',')) granted.add(`${type}:${name}:${a}`);
    }
    const token = randomBytes(12).toString('hex');
    tokens.set(token, granted);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ token, expires_in: auth.expiresIn ?? 300, issued_at: new Date().toISOString() }));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', base);
    requests.push(`${req.method} ${url.pathname}`);
    authorizations.push(req.headers.authorization);
    if (url.pathname === '/token') return issueToken(req, res, url.searchParams);
    const m = /^\/v2\/(.+)\/(manifests|blobs)\/(.+)$/.exec(url.pathname);
    if (m === null) return sendError(res, 404, 'NAME_UNKNOWN', 'not found');
    const [, repo = '', kind, ref = ''] = m;
    const write = req.method === 'PUT' || req.method === 'POST';
    if (!authorized(req, res, repo, write ? 'push' : 'pull')) return;

    if (kind === 'manifests') {
      if (req.method === 'PUT') {
        const body = await readBody(req);
        const digest = sha256(body);
        manifests.set(`${repo}@${digest}`, { body, mediaType: req.headers['content-type'] ?? '' });
        if (!ref.startsWith('sha256:')) tags.set(`${repo}:${ref}`, digest);
        res.writeHead(201, { 'docker-content-digest': digest, location: `/v2/${repo}/manifests/${digest}` });
        return void res.end();
      }
      const digest = ref.startsWith('sha256:') ? ref : tags.get(`${repo}:${ref}`);
      const found = digest !== undefined ? manifests.get(`${repo}@${digest}`) : undefined;
      if (found === undefined || digest === undefined) return sendError(res, 404, 'MANIFEST_UNKNOWN', 'manifest unknown');
      if (faults.stallManifests === true) return;
      if (req.method === 'HEAD' && faults.refuseHead) return void res.writeHead(405).end();
      const headers: Record<string, string> = { 'content-type': found.mediaType, 'content-length': String(found.body.length) };
      if (!faults.omitDigestHeader) headers['docker-content-digest'] = digest;
      res.writeHead(200, headers);
      return void res.end(req.method === 'HEAD' ? undefined : found.body);
    }

    if (ref === 'uploads/' && req.method === 'POST') {
      const id = randomBytes(8).toString('hex');
      uploads.set(id, repo);
      res.writeHead(202, { location: `/v2/${repo}/blobs/uploads/${id}?state=x` });
      return void res.end();
    }
    if (ref.startsWith('uploads/') && req.method === 'PUT') {
      const body = await readBody(req);
      const digest = url.searchParams.get('digest') ?? '';
      if (!uploads.delete(ref.slice('uploads/'.length))) return sendError(res, 404, 'BLOB_UPLOAD_UNKNOWN', 'upload unknown');
      if (sha256(body) !== digest) return sendError(res, 400, 'DIGEST_INVALID', 'provided digest did not match uploaded content');
      blobs.set(digest, body);
      res.writeHead(201, { 'docker-content-digest': digest });
      return void res.end();
    }
    let blob = blobs.get(ref);
    if (blob === undefined) return sendError(res, 404, 'BLOB_UNKNOWN', 'blob unknown to registry');
    if (req.method === 'GET' && faults.redirectBlobsTo !== undefined) {
      res.writeHead(307, { location: `${faults.redirectBlobsTo}/blobdata/${ref}` });
      return void res.end();
    }
    if (faults.corruptBlobs.has(ref)) {
      blob = Buffer.from(blob);
      blob[blob.length - 1] = (blob[blob.length - 1] ?? 0) ^ 0xff;
    }
    res.writeHead(200, { 'content-length': String(blob.length), 'docker-content-digest': ref });
    if (req.method === 'GET' && faults.stallBlobs?.has(ref) === true) return void res.write(blob.subarray(0, blob.length >> 1));
    res.end(req.method === 'HEAD' ? undefined : blob);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => sendError(res, 500, 'UNKNOWN', String(err)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  return {
    host: `127.0.0.1:${port}`,
    url: base,
    faults,
    requests,
    authorizations,
    tokenRequests,
    blobs,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A second origin that serves `GET /blobdata/<digest>` from `blobs` and records headers. */
export async function startBlobMirror(blobs: Map<string, Buffer>): Promise<{ url: string; seen: Array<string | undefined>; close(): Promise<void> }> {
  const seen: Array<string | undefined> = [];
  const server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    const digest = (req.url ?? '').replace('/blobdata/', '');
    const blob = blobs.get(digest);
    if (blob === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-length': String(blob.length) });
    res.end(blob);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
