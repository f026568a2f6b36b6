/**
 * Registry credentials of a component, built as upstream's pull-secret controller builds its
 * auth file and kept current by informers (a change applies to the next pull): the
 * `--global-pull-secret` Secret, then each `imagePullSecrets` entry of the component's own
 * ServiceAccount, a later Secret's entry replacing an earlier one's for the same registry. A
 * Secret is read from `.dockerconfigjson`, else `.dockercfg`; a missing or unparsable one
 * (logged) adds nothing. Without any, pulls are anonymous.
 *
 * The ServiceAccount comes from a SelfSubjectReview rather than the pod's mounted token, so a
 * ServiceAccount token outside a pod works too; any other identity has no imagePullSecrets.
 */
import type { Logger } from 'pino';
import { type DockerConfig, dockerConfigFromSecret, mergeDockerConfigs } from '../image/index.ts';
import { Informer, type KubeClient, type KubeObject, clientListWatch, untilAborted } from '../kube/index.ts';

/** A namespaced name. */
interface ObjectKey {
  namespace: string;
  name: string;
}

/** Where credentials come from. */
interface PullSecretSources {
  /** `--global-pull-secret`. */
  global?: ObjectKey | undefined;
  /** The ServiceAccount whose imagePullSecrets count: `self` is the component's own identity; absent: none. */
  serviceAccount?: 'self' | ObjectKey | undefined;
}

/** A live view of the merged credentials; {@link run} keeps it current. */
export class PullSecretCredentials {
  readonly #client: KubeClient;
  readonly #sources: PullSecretSources;
  readonly #log: Logger;
  /** Credentials by Secret (`namespace/name`); undefined: missing or unusable. */
  readonly #secrets = new Map<string, { config: DockerConfig | undefined; stop: AbortController }>();
  #accountSecrets: ObjectKey[] = [];
  #merged: DockerConfig | undefined;

  constructor(client: KubeClient, sources: PullSecretSources, log: Logger) {
    this.#client = client;
    this.#sources = sources;
    this.#log = log.child({ controller: 'pull-secret' });
  }

  /** The credentials now (undefined when no Secret contributes any). */
  get(): DockerConfig | undefined {
    return this.#merged;
  }

  /** Watches the Secrets and the ServiceAccount until `signal` aborts. Never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    const global = this.#sources.global;
    if (global !== undefined) this.#watchSecret(global, signal);
    const account = this.#sources.serviceAccount === 'self' ? await this.#whoAmI(signal) : this.#sources.serviceAccount;
    if (account !== undefined && !signal.aborted) await this.#watchServiceAccount(account, signal);
    await untilAborted(signal);
  }

  async #whoAmI(signal: AbortSignal): Promise<ObjectKey | undefined> {
    try {
      const review = await this.#client.create<KubeObject & { status?: { userInfo?: { username?: string } } }>(
        { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {} },
        { signal },
      );
      const m = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(review.status?.userInfo?.username ?? '');
      if (m === null) {
        this.#log.info({ user: review.status?.userInfo?.username }, 'not running as a ServiceAccount; no imagePullSecrets to use');
        return undefined;
      }
      return { namespace: m[1] ?? '', name: m[2] ?? '' };
    } catch (err) {
      if (!signal.aborted) this.#log.warn({ err }, 'could not tell which ServiceAccount this is; its imagePullSecrets are not used');
      return undefined;
    }
  }

  async #watchServiceAccount(account: ObjectKey, signal: AbortSignal): Promise<void> {
    const informer = this.#informer('pull-secret-serviceaccount', 'ServiceAccount', account);
    informer.addHandler((type, obj) => {
      const refs = type === 'delete' ? [] : ((obj as { imagePullSecrets?: Array<{ name?: string }> }).imagePullSecrets ?? []);
      const wanted = refs.map((r) => r.name ?? '').filter((n) => n !== '');
      this.#accountSecrets = [...new Set(wanted)].map((name) => ({ namespace: account.namespace, name }));
      const keep = new Set([...this.#accountSecrets, ...(this.#sources.global === undefined ? [] : [this.#sources.global])].map(keyOf));
      for (const [key, secret] of this.#secrets) {
        if (keep.has(key)) continue;
        secret.stop.abort();
        this.#secrets.delete(key);
      }
      for (const ref of this.#accountSecrets) this.#watchSecret(ref, signal);
      this.#log.info({ serviceAccount: account, imagePullSecrets: wanted }, 'using the imagePullSecrets of the ServiceAccount');
      this.#merge();
    });
    void informer.run(signal);
  }

  #watchSecret(ref: ObjectKey, signal: AbortSignal): void {
    const key = keyOf(ref);
    if (this.#secrets.has(key)) return;
    const stop = new AbortController();
    this.#secrets.set(key, { config: undefined, stop });
    const informer = this.#informer(`pull-secret-${ref.name}`, 'Secret', ref);
    informer.addHandler((type, obj) => {
      const entry = this.#secrets.get(key);
      if (entry === undefined || entry.stop !== stop) return;
      entry.config = type === 'delete' ? undefined : this.#read(ref, obj);
      if (type === 'delete') this.#log.warn({ secret: ref }, 'pull secret deleted');
      this.#merge();
    });
    void informer.run(AbortSignal.any([signal, stop.signal]));
  }

  // An informer of the one core object `ref` of `kind`.
  #informer(name: string, kind: string, ref: ObjectKey): Informer {
    const scope = { namespace: ref.namespace, fieldSelector: `metadata.name=${ref.name}` };
    return new Informer({ name, source: clientListWatch(this.#client, { apiVersion: 'v1', kind }, scope), log: this.#log });
  }

  #read(ref: ObjectKey, obj: Readonly<KubeObject>): DockerConfig | undefined {
    try {
      const config = dockerConfigFromSecret({ name: ref.name, data: obj.data as Record<string, string> | undefined });
      this.#log.info({ secret: ref }, config === undefined ? 'pull secret has no .dockerconfigjson or .dockercfg' : 'loaded pull secret');
      return config;
    } catch (err) {
      this.#log.warn({ secret: ref, err }, 'ignoring unreadable pull secret');
      return undefined;
    }
  }

  #merge(): void {
    const order = [...(this.#sources.global === undefined ? [] : [this.#sources.global]), ...this.#accountSecrets];
    const configs = order.map((ref) => this.#secrets.get(keyOf(ref))?.config).filter((c): c is DockerConfig => c !== undefined);
    this.#merged = configs.length === 0 ? undefined : mergeDockerConfigs(configs);
  }
}

function keyOf(ref: ObjectKey): string {
  return `${ref.namespace}/${ref.name}`;
}
