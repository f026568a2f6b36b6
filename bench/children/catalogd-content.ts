/**
 * Benchmark child: catalogd's content side as cmd/catalogd/run.ts composes it (LocalDirStore
 * with the process ingest, buildCatalogServer with a prom-client Registry carrying the
 * default metrics, a pino logger), without the control-plane parts (kube client, informers,
 * reconcilers, leader election), which the steady-RSS figure does not cover.
 *
 * Usage: node --expose-gc catalogd-content.ts ROOT [NAME=DIR ...]
 * With NAME=DIR arguments each directory is ingested as a new version (as after a pull); with
 * none the store serves what ROOT already holds (a restart). Then it listens on a loopback port
 * and answers the parent's `memory` messages with process.memoryUsage() (after `gc` rounds and
 * a settle time when asked).
 */
import { createHash } from 'node:crypto';
import pino from 'pino';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { buildCatalogServer } from '../../pkg/catalogd/server/index.ts';
import { LocalDirStore, createProcessIngest } from '../../pkg/catalogd/storage/index.ts';
import { type ChildMessage, runChild, toParent } from '../lib/child.ts';
// Not from ../lib/http-load.ts: an ES import of node:http loads undici (pkg/shared/nodehttp), ~14 MB of RSS.
import { setTimeout as sleep } from 'node:timers/promises';
import { procMemory } from '../lib/proc.ts';

interface MemoryRequest extends ChildMessage {
  gc: boolean;
  settleMs: number;
}

runChild(async () => {
  const [root, ...catalogs] = process.argv.slice(2);
  if (root === undefined) throw new Error('usage: ROOT [NAME=DIR ...]');
  const logger = pino({ level: 'info' }, pino.destination('/dev/null'));
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const store = new LocalDirStore({ root, ingest: createProcessIngest(), logger });
  await store.open();
  for (const arg of catalogs) {
    const [name = '', dir = ''] = arg.split('=');
    const digest = `sha256:${createHash('sha256').update(dir).digest('hex')}`;
    await store.store(name, { digest, ref: `bench.test/${name}@${digest}`, unpackedAt: new Date().toISOString() }, { fbcDir: dir });
  }
  const server = buildCatalogServer({ content: store, logger, registry });
  const origin = await server.listen({ host: '127.0.0.1', port: 0 });
  toParent({ type: 'ready', origin, catalogs: store.catalogs(), memory: process.memoryUsage() });

  const stop = new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
  const onMessage = (msg: MemoryRequest): void => {
    if (msg.type !== 'memory') return;
    void (async () => {
      if (msg.gc) {
        for (let i = 0; i < 3; i++) {
          globalThis.gc?.();
          await sleep(50);
        }
      }
      await sleep(msg.settleMs);
      toParent({ type: 'memory', memory: process.memoryUsage(), proc: procMemory('self'), gcExposed: typeof globalThis.gc === 'function' });
    })();
  };
  process.on('message', onMessage);
  await stop;
  process.off('message', onMessage);
  await server.close();
  await store.close();
});
