/** The Secret calls of the release store (store.ts), in the system namespace. */
import { wrapError } from '../../shared/errors/index.ts';
import { isAlreadyExists, isNotFound, type KubeClient, type KubeObject, type OwnerReference } from '../../shared/kube/index.ts';
import { Label, RECORD_OWNER, chunkSecretName, selector } from './naming.ts';
import { SECRET, chunkPiece, describeSecret, parseIndexSecret, type IndexRecord } from './secrets.ts';

/** The Secret calls of the store, with API errors wrapped to name the Secret and the step. */
export class RecordClient {
  readonly #client: KubeClient;
  readonly #namespace: string;

  constructor(client: KubeClient, namespace: string) {
    this.#client = client;
    this.#namespace = namespace;
  }

  #ref(name: string) {
    return { ...SECRET, namespace: this.#namespace, name };
  }

  /** `call`'s result; its failure wrapped as `<what>: <cause>`. */
  async #wrapped<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (e) {
      throw wrapError(what, e);
    }
  }

  /** Record Secrets (owner=operator-controller) matching `labels`. */
  async list(labels: Record<string, string>, signal?: AbortSignal): Promise<KubeObject[]> {
    const labelSelector = selector({ [Label.owner]: RECORD_OWNER, ...labels });
    const options = { namespace: this.#namespace, labelSelector, limit: 50, ...(signal === undefined ? {} : { signal }) };
    const what = `listing release records in namespace ${JSON.stringify(this.#namespace)} (${labelSelector})`;
    return (await this.#wrapped(what, () => this.#client.listAll(SECRET, options))).items;
  }

  /** The Secret, or undefined when it does not exist. */
  async get(name: string, signal?: AbortSignal): Promise<KubeObject | undefined> {
    try {
      return await this.#client.get(this.#ref(name), signal === undefined ? {} : { signal });
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw wrapError(`reading release record ${describeSecret(this.#namespace, name)}`, e);
    }
  }

  create(secret: KubeObject, signal?: AbortSignal): Promise<KubeObject> {
    const what = `writing release record ${describeSecret(this.#namespace, secret.metadata.name ?? '')}`;
    return this.#wrapped(what, () => this.#client.create(secret, signal === undefined ? {} : { signal }));
  }

  /** Replaces a Secret (its resourceVersion a precondition); resolves with the stored Secret. */
  update(secret: KubeObject, signal?: AbortSignal): Promise<KubeObject> {
    const what = `updating release record ${describeSecret(this.#namespace, secret.metadata.name ?? '')}`;
    return this.#wrapped(what, () => this.#client.update(secret, signal === undefined ? {} : { signal }));
  }

  /** Creates a chunk Secret; one that exists already is accepted only with the same bytes. */
  async createChunk(key: string, chunk: KubeObject, signal?: AbortSignal): Promise<void> {
    const name = chunk.metadata.name ?? '';
    try {
      await this.#client.create(chunk, signal === undefined ? {} : { signal });
      return;
    } catch (e) {
      if (!isAlreadyExists(e)) throw wrapError(`writing release chunk ${describeSecret(this.#namespace, name)}`, e);
    }
    const existing = await this.get(name, signal);
    const want = (chunk['data'] as Record<string, string>)['chunk'];
    if (existing === undefined || chunkPiece(existing, this.#namespace, key).toString('base64') !== want) {
      throw new Error(`release chunk ${describeSecret(this.#namespace, name)} exists with other content`);
    }
  }

  /** Makes `owner` the only owner of a chunk Secret. */
  async setOwner(name: string, owner: OwnerReference, signal?: AbortSignal): Promise<void> {
    await this.#wrapped(`setting the owner of release chunk ${describeSecret(this.#namespace, name)}`, () =>
      this.#client.patch(this.#ref(name), { metadata: { ownerReferences: [owner] } }, 'merge', signal === undefined ? {} : { signal }),
    );
  }

  /** Deletes a Secret; one already gone is fine. */
  async delete(name: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.#client.delete(this.#ref(name), signal === undefined ? {} : { signal });
    } catch (e) {
      if (!isNotFound(e)) throw wrapError(`deleting release record ${describeSecret(this.#namespace, name)}`, e);
    }
  }

  /** The piece held by chunk `name` of the revision stored under `key`; throws naming both when missing or corrupt. */
  async readChunk(key: string, name: string, signal?: AbortSignal): Promise<Buffer> {
    const where = describeSecret(this.#namespace, key);
    let obj: KubeObject;
    try {
      obj = await this.#client.get(this.#ref(name), signal === undefined ? {} : { signal });
    } catch (e) {
      if (isNotFound(e))
        throw new Error(`release record ${where} is corrupt: its chunk ${describeSecret(this.#namespace, name)} does not exist`, { cause: e });
      throw wrapError(`reading release chunk ${describeSecret(this.#namespace, name)} of ${where}`, e);
    }
    const piece = chunkPiece(obj, this.#namespace, key);
    const expected = chunkSecretName(key, piece);
    if (expected !== name) {
      throw new Error(`release record ${where} is corrupt: the content of chunk ${describeSecret(this.#namespace, name)} does not match its name`, {
        cause: new Error(`its bytes hash to the name ${expected}`),
      });
    }
    return piece;
  }

  /**
   * The joined compressed pieces of the revision `listed` indexes. A chunk gone since the index
   * was listed (a concurrent status rewrite) is read again from the index as it is now, up to
   * twice; only a chunk missing from an unchanged index is a corrupt record.
   */
  async readPayload(listed: IndexRecord, signal?: AbortSignal): Promise<Buffer> {
    let index = listed;
    for (let attempt = 1; ; attempt++) {
      try {
        const extra = await Promise.all(index.extraChunks.map((name) => this.readChunk(index.key, name, signal)));
        return Buffer.concat([index.firstPiece, ...extra]);
      } catch (err) {
        const gone = err instanceof Error && isNotFound(err.cause);
        const now = gone && attempt < 3 ? await this.get(index.key, signal) : undefined;
        if (now === undefined || now.metadata.resourceVersion === index.resourceVersion) throw err;
        index = parseIndexSecret(now, this.#namespace);
      }
    }
  }
}
