/**
 * The catalog server under test: the real `olmv1 catalog serve NAME=DIR ...` command in a
 * child process (LocalDirStore with worker ingest + buildCatalogServer, exactly the composition
 * the command ships), listening on a kernel-chosen loopback port.
 */
import { CATALOGD_ENVIRONMENT, CATALOGD_NODE_FLAGS } from '../../cmd/shared/node-flags.ts';
import { type BenchChild, spawnChild } from './child.ts';
import type { Runtime } from './runtime.ts';

/** A running `olmv1 catalog serve`. */
export interface CatalogServer {
  readonly pid: number;
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** `<origin>/catalogs/<name>`: what a ClusterCatalog's `status.urls.base` would hold. */
  baseURL(name: string): string;
  stop(): Promise<void>;
}

/**
 * Starts the server over `catalogs` (name -> FBC directory) and waits until it serves them all.
 * `command` replaces `olmv1 catalog serve` by another script taking the same arguments and
 * printing the same `serving` lines (bench/children/bare-metas-server.ts).
 */
export async function startCatalogServe(
  runtime: Runtime,
  catalogs: Record<string, string>,
  command: string[] = [runtime.entry('cmd/olmv1/main.ts'), 'catalog', 'serve'],
): Promise<CatalogServer> {
  const args = Object.entries(catalogs).map(([name, dir]) => `${name}=${dir}`);
  // catalogd's Node flags and allocator settings, so latency is measured as catalogd serves
  // (OLMV1_BENCH_SERVER_FLAGS overrides the flags for experiments, and GLIBC_TUNABLES set for
  // the bench replaces catalogd's).
  const flags = process.env.OLMV1_BENCH_SERVER_FLAGS?.split(' ').filter(Boolean) ?? [...CATALOGD_NODE_FLAGS];
  const env = process.env.GLIBC_TUNABLES === undefined ? CATALOGD_ENVIRONMENT : {};
  const child: BenchChild = spawnChild([...flags, ...command, ...args, '--listen', '127.0.0.1:0'], { env });
  try {
    const last = Object.keys(catalogs).at(-1) ?? '';
    const m = await child.waitForStderr(new RegExp(`serving (http://[^\\s/]+)/catalogs/${last}/`), 180_000);
    const origin = m[1] ?? '';
    return { pid: child.pid, origin, baseURL: (name) => `${origin}/catalogs/${name}`, stop: () => child.stop() };
  } catch (err) {
    await child.stop();
    throw err;
  }
}
