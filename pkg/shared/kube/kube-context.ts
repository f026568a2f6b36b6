/**
 * The whole client stack of one identity: connection, transport, resource mapper and client
 * (apart from connection.ts so that it and the transport do not import each other).
 */
import { createKubeClient, type KubeClient } from './client.ts';
import { type Connection, type ConnectionOptions, connectionFromKubeConfig } from './connection.ts';
import { type KubeConfigSource, loadKubeConfig, type ResolvedKubeConfig } from './kubeconfig.ts';
import { createResourceMapper, type ResourceMapper } from './resource-mapper.ts';
import { createTransport, type Transport, type TransportOptions } from './transport.ts';

/** Everything that talks to the API server as the controller itself. */
export interface KubeContext {
  connection: Connection;
  transport: Transport;
  mapper: ResourceMapper;
  client: KubeClient;
  /** Closes the connection's sockets. */
  close(): void;
}

/**
 * Loads credentials from `source` (or takes them as `loadKubeConfig` resolved them) and builds
 * connection, transport, mapper and client.
 */
export async function connect(
  source: KubeConfigSource | ResolvedKubeConfig,
  options: TransportOptions & ConnectionOptions = {},
): Promise<KubeContext> {
  const connection = await connectionFromKubeConfig('kind' in source ? loadKubeConfig(source) : source, options);
  const transport = createTransport(connection, options);
  const mapper = createResourceMapper(transport);
  const client = createKubeClient(transport, mapper);
  return { connection, transport, mapper, client, close: () => connection.close() };
}
