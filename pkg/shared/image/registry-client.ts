/**
 * The OCI distribution calls we need: manifest HEAD/GET/PUT, blob HEAD/GET and monolithic
 * upload. Bodies are size-limited or digest-checked; failures name the repository and the
 * manifest or blob; a pull's request that times out is a RegistryTimeoutError.
 */
import type { Readable } from 'node:stream';
import { sha256Digest, validateDigest, verifyBytes, verifyStream, type BlobExpectation } from './digest.ts';
import { describeRequest } from '../nodehttp/index.ts';
import type { HttpMethod, HttpResponse, HttpTransport } from './http-transport.ts';
import { MANIFEST_ACCEPT } from './manifest.ts';
import type { ImageReference } from './reference.ts';
import type { RegistryAuth, RepositoryActions } from './registry-auth.ts';
import { readLimited, registryErrorFrom } from './registry-error.ts';
import { rethrowNamingTimeout } from './timeout.ts';

/** Largest manifest or config accepted: bigger documents are garbage, not images. */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/** Repository coordinates; `insecure` (registries.conf) allows plain HTTP or unverified TLS. */
export type Repository = Pick<ImageReference, 'domain' | 'path' | 'name'> & { readonly insecure?: boolean | undefined };

/** Stateless API calls over a shared transport and authenticator. */
export class RegistryClient {
  readonly #transport: HttpTransport;
  readonly #auth: RegistryAuth;

  constructor(transport: HttpTransport, auth: RegistryAuth) {
    this.#transport = transport;
    this.#auth = auth;
  }

  #url(repo: Repository, suffix: string): URL {
    return new URL(`${repo.path}/${suffix}`, this.#transport.apiBase(repo.domain, repo.insecure === true));
  }

  async #call(
    repo: Repository,
    actions: RepositoryActions,
    method: HttpMethod,
    url: URL,
    init: { headers?: Record<string, string>; body?: Buffer; signal?: AbortSignal | undefined } = {},
  ): Promise<HttpResponse> {
    const insecure = repo.insecure === true ? { skipTlsVerify: true, plainHttpFallback: true } : {};
    return this.#auth.send(repo, actions, { method, url, ...init, ...insecure });
  }

  /**
   * The digest the registry reports for `reference` (tag or digest) via HEAD, or undefined
   * when it sends no usable `Docker-Content-Digest` (then GET the manifest instead).
   *
   * @throws RegistryError for any status but 200.
   */
  async headManifestDigest(repo: Repository, reference: string, signal?: AbortSignal): Promise<string | undefined> {
    const url = this.#url(repo, `manifests/${reference}`);
    const res = await this.#call(repo, 'pull', 'HEAD', url, { headers: { accept: MANIFEST_ACCEPT }, signal }).catch((err: unknown) =>
      rethrowNamingTimeout(err, `manifest ${reference}`),
    );
    res.body.resume();
    if (res.status !== 200) throw await registryErrorFrom(res, `error reading manifest ${reference} in ${repo.name}`);
    const header = res.headers['docker-content-digest'];
    const digest = Array.isArray(header) ? header[0] : header;
    return digest !== undefined && validateDigest(digest) === undefined ? digest : undefined;
  }

  /**
   * GETs manifest `reference` (tag or digest). A digest reference is verified against the
   * bytes; for a tag, the digest is the sha256 of the bytes.
   *
   * @throws RegistryError for any status but 200; Error for oversized or mismatching bytes.
   */
  async getManifest(
    repo: Repository,
    reference: string,
    signal?: AbortSignal,
  ): Promise<{ bytes: Buffer; contentType: string | undefined; digest: string }> {
    const url = this.#url(repo, `manifests/${reference}`);
    const what = `manifest ${reference} in ${repo.name}`;
    const res = await this.#call(repo, 'pull', 'GET', url, { headers: { accept: MANIFEST_ACCEPT }, signal }).catch((err: unknown) =>
      rethrowNamingTimeout(err, `manifest ${reference}`),
    );
    if (res.status !== 200) throw await registryErrorFrom(res, `error reading ${what}`);
    const bytes = await this.#readBody(res, MAX_MANIFEST_BYTES, what).catch((err: unknown) => rethrowNamingTimeout(err, `manifest ${reference}`));
    const contentType = res.headers['content-type'];
    if (validateDigest(reference) === undefined) {
      verifyBytes(bytes, { digest: reference }, what);
      return { bytes, contentType, digest: reference };
    }
    return { bytes, contentType, digest: sha256Digest(bytes) };
  }

  /**
   * GETs a small blob (an image config) whole, verified against `expected`.
   *
   * @throws RegistryError for any status but 200; Error when larger than `limit` or corrupt;
   *   RegistryTimeoutError reading `config <digest>`.
   */
  async getBlobBytes(repo: Repository, expected: BlobExpectation, limit: number, signal?: AbortSignal): Promise<Buffer> {
    const what = `blob ${expected.digest} in ${repo.name}`;
    if (expected.size !== undefined && expected.size > limit) throw new Error(`${what} is larger than ${limit} bytes`);
    try {
      const res = await this.#openBlob(repo, expected.digest, what, signal);
      const bytes = await this.#readBody(res, limit, what);
      verifyBytes(bytes, expected, what);
      return bytes;
    } catch (err) {
      rethrowNamingTimeout(err, `config ${expected.digest}`);
    }
  }

  /**
   * Opens a layer blob as a stream verified while read (throws at the end on a digest or size
   * mismatch); read it to the end or destroy it. A timeout is named as reading `layer <digest>`.
   *
   * @throws RegistryError for any status but 200 (before any data is returned).
   */
  async openBlob(repo: Repository, expected: BlobExpectation, signal?: AbortSignal): Promise<{ stream: AsyncIterable<Buffer>; body: Readable }> {
    const what = `blob ${expected.digest} in ${repo.name}`;
    const layer = `layer ${expected.digest}`;
    const res = await this.#openBlob(repo, expected.digest, what, signal).catch((err: unknown) => rethrowNamingTimeout(err, layer));
    const length = Number(res.headers['content-length']);
    if (expected.size !== undefined && Number.isFinite(length) && res.headers['content-length'] !== undefined && length !== expected.size) {
      res.body.destroy();
      throw new Error(`size mismatch for ${what}: expected ${expected.size} bytes, registry sends ${length}`);
    }
    return { stream: namingTimeouts(verifyStream(res.body, expected, what), layer), body: res.body };
  }

  async #openBlob(repo: Repository, digest: string, what: string, signal?: AbortSignal): Promise<HttpResponse> {
    const res = await this.#call(repo, 'pull', 'GET', this.#url(repo, `blobs/${digest}`), { signal });
    if (res.status !== 200) throw await registryErrorFrom(res, `error reading ${what}`);
    return res;
  }

  async #readBody(res: HttpResponse, limit: number, what: string): Promise<Buffer> {
    const length = Number(res.headers['content-length']);
    if (Number.isFinite(length) && length > limit) {
      res.body.destroy();
      throw new Error(`${what} is larger than ${limit} bytes`);
    }
    try {
      return await readLimited(res.body, limit, what);
    } catch (err) {
      if (err instanceof Error && err.message.startsWith(what)) throw err;
      throw new Error(`error reading ${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }

  /** True when the repository already has blob `digest` (HEAD 200); false on 404. */
  async blobExists(repo: Repository, digest: string, signal?: AbortSignal): Promise<boolean> {
    const res = await this.#call(repo, 'pull,push', 'HEAD', this.#url(repo, `blobs/${digest}`), { signal });
    res.body.resume();
    if (res.status === 200) return true;
    if (res.status === 404) return false;
    throw await registryErrorFrom(res, `error checking blob ${digest} in ${repo.name}`);
  }

  /** Opens an upload session (POST) and returns its `Location`. */
  async #startUpload(repo: Repository, what: string, signal?: AbortSignal): Promise<URL> {
    const start = await this.#call(repo, 'pull,push', 'POST', this.#url(repo, 'blobs/uploads/'), { signal, body: Buffer.alloc(0) });
    if (start.status !== 202) throw await registryErrorFrom(start, `error starting upload of ${what}`);
    start.body.resume();
    const location = start.headers.location;
    if (location === undefined) throw new Error(`error starting upload of ${what}: registry sent no Location`);
    return new URL(location, start.url);
  }

  /**
   * Uploads `data` as blob `digest` in one request: POST to open an upload session, then PUT
   * the bytes to its `Location` with `?digest=`. Skips nothing: callers check blobExists.
   *
   * @throws RegistryError when either step is refused.
   */
  async uploadBlob(repo: Repository, digest: string, data: Buffer, signal?: AbortSignal): Promise<void> {
    const what = `blob ${digest} to ${repo.name}`;
    const url = await this.#startUpload(repo, what, signal);
    url.searchParams.set('digest', digest);
    const put = await this.#call(repo, 'pull,push', 'PUT', url, {
      headers: { 'content-type': 'application/octet-stream' },
      body: data,
      signal,
    });
    if (put.status !== 201 && put.status !== 204) throw await registryErrorFrom(put, `error uploading ${what}`);
    put.body.resume();
  }

  /**
   * Uploads blob `digest` from `chunks` in an upload session: each chunk of at most
   * `chunkBytes` is PATCHed in order with its Content-Range, then the session is closed by a PUT
   * with `?digest=` (the distribution API's chunked upload), so no more than one chunk is held.
   *
   * @throws RegistryError when a step is refused; Error when `chunks` throws (a digest mismatch
   *   of a verified source stream: the session is then left to expire, nothing is committed).
   */
  async uploadBlobChunks(repo: Repository, digest: string, chunks: AsyncIterable<Buffer>, chunkBytes: number, signal?: AbortSignal): Promise<void> {
    const what = `blob ${digest} to ${repo.name}`;
    let url = await this.#startUpload(repo, what, signal);
    let offset = 0;
    const send = async (body: Buffer): Promise<void> => {
      const res = await this.#call(repo, 'pull,push', 'PATCH', url, {
        headers: { 'content-type': 'application/octet-stream', 'content-range': `${offset}-${offset + body.length - 1}` },
        body,
        signal,
      });
      if (res.status !== 202) throw await registryErrorFrom(res, `error uploading ${what}`);
      res.body.resume();
      offset += body.length;
      const location = res.headers.location;
      if (location !== undefined) url = new URL(location, res.url);
    };
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    for await (const chunk of chunks) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes >= chunkBytes) {
        await send(Buffer.concat(pending, pendingBytes));
        pending = [];
        pendingBytes = 0;
      }
    }
    if (pendingBytes > 0) await send(Buffer.concat(pending, pendingBytes));
    url.searchParams.set('digest', digest);
    const put = await this.#call(repo, 'pull,push', 'PUT', url, { body: Buffer.alloc(0), signal });
    if (put.status !== 201 && put.status !== 204) throw await registryErrorFrom(put, `error uploading ${what}`);
    put.body.resume();
  }

  /**
   * PUTs a manifest under `reference` (tag or digest) and returns its digest. When the
   * registry reports a different digest than the bytes have, that is an error.
   */
  async putManifest(repo: Repository, reference: string, mediaType: string, bytes: Buffer, signal?: AbortSignal): Promise<string> {
    const url = this.#url(repo, `manifests/${reference}`);
    const res = await this.#call(repo, 'pull,push', 'PUT', url, { headers: { 'content-type': mediaType }, body: bytes, signal });
    if (res.status !== 201 && res.status !== 200 && res.status !== 204) {
      throw await registryErrorFrom(res, `error writing manifest ${reference} to ${repo.name}`);
    }
    res.body.resume();
    const digest = sha256Digest(bytes);
    const reported = res.headers['docker-content-digest'];
    if (typeof reported === 'string' && reported !== '' && reported !== digest) {
      throw new Error(`${describeRequest('PUT', url)}: registry stored digest ${reported}, expected ${digest}`);
    }
    return digest;
  }
}

/** Passes `source` through; a timeout while reading it is named as reading `what`. */
async function* namingTimeouts(source: AsyncIterable<Buffer>, what: string): AsyncGenerator<Buffer> {
  try {
    yield* source;
  } catch (err) {
    rethrowNamingTimeout(err, what);
  }
}
