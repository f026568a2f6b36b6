/**
 * Registry credentials from a pull Secret (`kubernetes.io/dockerconfigjson` or
 * `kubernetes.io/dockercfg`) in catalogd's namespace, kept current by an informer so that
 * rotating the Secret takes effect on the next pull without a restart. A Secret that does not
 * parse is logged and ignored (pulls fall back to anonymous, as with a missing Secret).
 */
import type { Logger } from 'pino';
import { type DockerConfig, dockerConfigFromSecret } from '../../image/index.ts';
import { Informer, type KubeClient, type KubeObject, clientListWatch } from '../../kube/index.ts';

/** A live view of one Secret's registry credentials. */
export class PullSecretCredentials {
  readonly informer: Informer<KubeObject>;
  #current: DockerConfig | undefined;

  constructor(client: KubeClient, ref: { namespace: string; name: string }, log: Logger) {
    this.informer = new Informer({
      name: `pull-secret-${ref.name}`,
      source: clientListWatch(client, { apiVersion: 'v1', kind: 'Secret' }, { namespace: ref.namespace, fieldSelector: `metadata.name=${ref.name}` }),
      log,
    });
    this.informer.addHandler((type, obj) => {
      if (type === 'delete') {
        this.#current = undefined;
        log.warn({ secret: ref }, 'pull secret deleted; pulling anonymously');
        return;
      }
      try {
        this.#current = dockerConfigFromSecret({ name: ref.name, data: obj.data as Record<string, string> | undefined });
        log.info({ secret: ref }, 'loaded pull secret');
      } catch (err) {
        this.#current = undefined;
        log.warn({ secret: ref, err }, 'ignoring unreadable pull secret');
      }
    });
  }

  /** The credentials now (undefined when the Secret is missing or unreadable). */
  get(): DockerConfig | undefined {
    return this.#current;
  }
}
