/**
 * A kernel memory limit for one benchmark child, as its Deployment's `resources.limits.memory`
 * gives it in a cluster: a memory cgroup of that size that the child is started in. Both what
 * the limit does to the process are then real: Node sizes V8's heap from the limit it finds at
 * start (a 512 MiB limit gives a heap limit of ~259 MB instead of ~4 GB on this machine), and
 * the kernel kills the process when its memory cannot be kept under it (counted here as OOM
 * kills, as the kubelet reports OOMKilled).
 *
 * cgroup v1 (a `memory` hierarchy) and v2 (a unified hierarchy with the memory controller) are
 * both handled. Where no cgroup can be created (not root, no memory controller, delegation
 * refused), {@link createMemoryLimit} returns undefined and the caller says so in its report.
 */
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A memory cgroup a child can be started in (see {@link MemoryLimit.wrap}). */
export interface MemoryLimit {
  readonly bytes: number;
  /** `cgroup v1 /sys/fs/cgroup/memory/...` or `cgroup v2 ...`: where the limit lives. */
  readonly where: string;
  /** A command (`[program, ...args]`) that joins the cgroup, then execs `command` (same PID). */
  wrap(command: readonly string[]): string[];
  /** How many processes of the cgroup the kernel's OOM killer killed so far. */
  oomKills(): Promise<number>;
  /** The cgroup's peak usage (page cache included, as a container's), bytes; undefined where not kept. */
  peakBytes(): Promise<number | undefined>;
  /** Removes the cgroup (its processes must have exited). */
  remove(): Promise<void>;
}

const V1_ROOT = '/sys/fs/cgroup/memory';
const V2_ROOTS = ['/sys/fs/cgroup', '/sys/fs/cgroup/unified'];

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The value of `key` in a flat-keyed file (`key value` lines), or undefined. */
function keyed(text: string | undefined, key: string): number | undefined {
  const m = text?.match(new RegExp(`^${key} (\\d+)$`, 'm'));
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/** The files of one cgroup version's memory controller. */
interface Layout {
  version: string;
  limit: string;
  /** Swap limit, where the kernel accounts swap (0 in v2, the same figure as memory+swap in v1). */
  swap: { file: string; value: (bytes: number) => string };
  /** Flat-keyed file with the `oom_kill` count. */
  events: string;
  /** Peak usage in bytes. */
  peak: string;
}

const V2: Layout = {
  version: 'v2',
  limit: 'memory.max',
  swap: { file: 'memory.swap.max', value: () => '0' },
  events: 'memory.events',
  peak: 'memory.peak',
};
const V1: Layout = {
  version: 'v1',
  limit: 'memory.limit_in_bytes',
  swap: { file: 'memory.memsw.limit_in_bytes', value: String },
  events: 'memory.oom_control',
  peak: 'memory.max_usage_in_bytes',
};

/** The hierarchies to try, in order: unified ones with the memory controller, then v1's. */
async function roots(): Promise<{ root: string; layout: Layout }[]> {
  const found: { root: string; layout: Layout }[] = [];
  for (const root of V2_ROOTS) {
    const controllers = await readText(join(root, 'cgroup.controllers'));
    if (controllers?.split(/\s+/).includes('memory') === true) found.push({ root, layout: V2 });
  }
  return [...found, { root: V1_ROOT, layout: V1 }];
}

/**
 * Creates a memory cgroup named `name` limited to `bytes`, or returns undefined where this
 * machine does not allow it. Swap is limited too where the kernel accounts it, so the limit is
 * not escaped by swapping (a kubelet runs without swap by default).
 */
export async function createMemoryLimit(name: string, bytes: number): Promise<MemoryLimit | undefined> {
  const unique = `${name}-${process.pid}-${Date.now()}`;
  for (const { root, layout } of await roots()) {
    const dir = join(root, unique);
    try {
      await mkdir(dir);
      await writeFile(join(dir, layout.limit), String(bytes));
      await writeFile(join(dir, layout.swap.file), layout.swap.value(bytes)).catch(() => undefined);
      return limitAt(dir, bytes, layout);
    } catch {
      await rmdir(dir).catch(() => undefined);
    }
  }
  return undefined;
}

function limitAt(dir: string, bytes: number, layout: Layout): MemoryLimit {
  const procs = join(dir, 'cgroup.procs');
  return {
    bytes,
    where: `cgroup ${layout.version} ${dir}`,
    // `sh` writes its own PID ($$) into the cgroup, then becomes the command: the child's PID
    // is the command's, and everything it starts is in the cgroup from its first instruction.
    wrap: (command) => ['/bin/sh', '-c', 'echo $$ > "$0" && exec "$@"', procs, ...command],
    oomKills: async () => keyed(await readText(join(dir, layout.events)), 'oom_kill') ?? 0,
    peakBytes: async () => {
      const text = await readText(join(dir, layout.peak));
      return text === undefined ? undefined : Number(text.trim());
    },
    remove: async () => {
      // The kernel refuses while a process remains; the caller stops its children first.
      await rmdir(dir).catch(() => undefined);
    },
  };
}
