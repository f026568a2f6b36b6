/**
 * A steady stream of ClusterExtension changes for fault tests: a writer that, a few times a
 * second, creates an extension, moves one to another version or deletes one, chosen by a seeded
 * generator (the same seed, the same sequence), and remembers what each name's last write asks.
 * Names are never reused after a delete, so the last write of each name is its final intent.
 */
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import type { KubeClient, KubeObject } from '../../pkg/shared/kube/index.ts';

/** What the stream's last write asks of one name: a version, or gone. */
export type Intent = { version: string } | { deleted: true };

export interface ChangeStreamOptions {
  client: KubeClient;
  /** Every name the stream may create; each name's package is `packageOf(name)`. */
  names: readonly string[];
  versions: readonly string[];
  /** The ClusterExtension manifest of `name` asking for `version`. */
  manifest(name: string, version: string): KubeObject;
  /** Milliseconds between two writes. */
  intervalMs: number;
  seed: number;
  /** Never delete below this many live extensions. */
  minLive: number;
}

export interface ChangeStream {
  /** Changes made so far; throws once a write was refused (the stream has stopped). */
  readonly count: number;
  /** Stops after the write in flight; resolves with every name's intent and the writes made to each name. */
  stop(): Promise<{ intents: Map<string, Intent>; writes: Map<string, number>; count: number; kinds: Record<string, number> }>;
}

/** A xorshift generator in [0, 1). */
function generator(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}

/**
 * Starts writing at once. A write the API server refuses stops the stream: stop() rejects with
 * it, so a test never compares the cluster with an intent that was not written.
 */
export function startChangeStream(o: ChangeStreamOptions): ChangeStream {
  const random = generator(o.seed);
  const pick = <T>(from: readonly T[]): T => from[Math.floor(random() * from.length)] as T;
  const intents = new Map<string, Intent>();
  const writes = new Map<string, number>();
  const kinds: Record<string, number> = { create: 0, change: 0, delete: 0 };
  let count = 0;
  let stopping = false;
  let failure: unknown;
  const ref = (name: string): { apiVersion: string; kind: string; name: string } => ({
    apiVersion: CLUSTER_EXTENSION.apiVersion,
    kind: CLUSTER_EXTENSION.kind,
    name,
  });

  const step = async (): Promise<void> => {
    const live = [...intents].filter(([, i]) => 'version' in i).map(([n]) => n);
    const fresh = o.names.filter((n) => !intents.has(n));
    const roll = random();
    let name: string;
    if (fresh.length > 0 && (roll < 0.3 || live.length === 0)) {
      name = fresh[0] ?? '';
      const version = pick(o.versions);
      await o.client.apply(o.manifest(name, version), { fieldManager: 'e2e-change-stream', force: true });
      intents.set(name, { version });
      kinds['create'] = (kinds['create'] ?? 0) + 1;
    } else if (roll > 0.85 && live.length > o.minLive) {
      name = pick(live);
      await o.client.delete(ref(name));
      intents.set(name, { deleted: true });
      kinds['delete'] = (kinds['delete'] ?? 0) + 1;
    } else {
      name = pick(live);
      const now = intents.get(name);
      const version = pick(o.versions.filter((v) => now === undefined || !('version' in now) || v !== now.version));
      await o.client.apply(o.manifest(name, version), { fieldManager: 'e2e-change-stream', force: true });
      intents.set(name, { version });
      kinds['change'] = (kinds['change'] ?? 0) + 1;
    }
    writes.set(name, (writes.get(name) ?? 0) + 1);
    count++;
  };

  const done = (async (): Promise<void> => {
    let next = Date.now();
    while (!stopping) {
      await step().catch((err: unknown) => {
        failure = err;
        stopping = true;
      });
      // Paced on a schedule, not on the writes' latency: a slow write does not slow the stream.
      next += o.intervalMs;
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
  })();

  return {
    get count() {
      if (failure !== undefined) throw new Error(`the change stream stopped on a refused write after ${count} changes`, { cause: failure });
      return count;
    },
    async stop() {
      stopping = true;
      await done;
      if (failure !== undefined) throw new Error(`the change stream stopped on a refused write after ${count} changes`, { cause: failure });
      return { intents, writes, count, kinds };
    },
  };
}
