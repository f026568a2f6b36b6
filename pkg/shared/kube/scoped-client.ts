/**
 * Clients that act as a ServiceAccount (decision 0003): same server and CA as the controller,
 * none of its credentials, and `Authorization: Bearer <TokenRequest token>` on every request.
 * A 401 evicts the token and the request is retried once with a fresh one.
 */
import { createKubeClient, type KubeClient } from './client.ts';
import { anonymousChannels, bearerConnection, type Connection, type ConnectionOptions } from './connection.ts';
import type { ResourceMapper } from './resource-mapper.ts';
import type { TokenGetter } from './token-getter.ts';
import { createTransport, type TransportOptions } from './transport.ts';
import type { ChannelStats } from './watch-channel.ts';

/** Builds clients scoped to one ServiceAccount. */
export interface ScopedClientFactory {
  /** The client acting as the ServiceAccount, cached; a missing one fails its first request. */
  forServiceAccount(namespace: string, serviceAccount: string): KubeClient;
  /** Forgets the cached client and token of a ServiceAccount (e.g. its extension was deleted). */
  forget(namespace: string, serviceAccount: string): void;
  /** Usage of the shared watch channel (sessions and open watch streams of all scoped clients). */
  watchStats(): ChannelStats;
  /** Closes the shared agent and watch channel; clients must not be used afterwards. */
  close(): void;
}

/** Construction options of the factory. */
interface ScopedClientFactoryOptions {
  /** The controller's connection: only its server URL, CA and proxy are reused. */
  base: Pick<Connection, 'server' | 'serverTls' | 'proxy'>;
  /** Discovery is identity-independent; share the controller's mapper. */
  mapper: ResourceMapper;
  tokens: TokenGetter;
  transport?: TransportOptions;
  connection?: ConnectionOptions;
}

/** Creates the factory; its clients share one request agent and watch channel (decision 0065). */
export function createScopedClientFactory(options: ScopedClientFactoryOptions): ScopedClientFactory {
  const channels = anonymousChannels(options.base, options.connection);
  const clients = new Map<string, KubeClient>();
  return {
    forServiceAccount(namespace, serviceAccount) {
      if (namespace === '' || serviceAccount === '') throw new Error('a scoped client needs a namespace and a service account name');
      const key = `${namespace}/${serviceAccount}`;
      const existing = clients.get(key);
      if (existing !== undefined) return existing;
      const conn = bearerConnection(
        options.base,
        channels,
        `serviceaccount ${namespace}/${serviceAccount}`,
        async () => ({ Authorization: `Bearer ${await options.tokens.get(namespace, serviceAccount)}` }),
        () => options.tokens.evict(namespace, serviceAccount),
      );
      const client = createKubeClient(createTransport(conn, options.transport), options.mapper);
      clients.set(key, client);
      return client;
    },
    forget(namespace, serviceAccount) {
      clients.delete(`${namespace}/${serviceAccount}`);
      options.tokens.evict(namespace, serviceAccount);
    },
    watchStats: () => channels.watches.stats(),
    close() {
      clients.clear();
      channels.close();
    },
  };
}
