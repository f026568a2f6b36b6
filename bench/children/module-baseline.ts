/**
 * Benchmark child: RSS of a process that has loaded catalogd's whole composition root
 * (cmd/catalogd/run.ts, the control.ts it loads once it serves, and everything they import,
 * the Kubernetes client included) and does nothing else. It is the floor under catalogd's steady RSS that no catalog content causes.
 * Also reports the same process before the import (node itself plus the IPC channel).
 */
import { runChild, toParent } from '../lib/child.ts';
// Not from ../lib/http-load.ts: an ES import of node:http loads undici (pkg/shared/nodehttp), ~14 MB of RSS.
import { setTimeout as sleep } from 'node:timers/promises';
import { procMemory } from '../lib/proc.ts';

async function settled(): Promise<ReturnType<typeof procMemory>> {
  for (let i = 0; i < 3; i++) {
    globalThis.gc?.();
    await sleep(50);
  }
  await sleep(500);
  return procMemory('self');
}

runChild(async () => {
  const empty = await settled();
  await Promise.all([import('../../cmd/catalogd/run.ts'), import('../../cmd/catalogd/control.ts')]);
  const loaded = await settled();
  toParent({ type: 'result', empty, loaded, heap: process.memoryUsage() });
});
