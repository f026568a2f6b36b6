// The hostile benchmark's memory limit, on this machine's own cgroups: a child started through
// `wrap` runs in the cgroup, keeps its PID across the exec, and Node sizes its heap from the
// limit. Skipped where the machine gives no memory cgroup (not root, no controller).
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryLimit, type MemoryLimit } from './memory-limit.ts';

const LIMIT = 256 * 1024 * 1024;
const limit: MemoryLimit | undefined = await createMemoryLimit('olmv1-test', LIMIT);

afterAll(async () => {
  await limit?.remove();
});

/** Runs `script` with node through the limit's wrapper; its stdout and PID. */
function runWrapped(l: MemoryLimit, script: string): Promise<{ out: string; pid: number | undefined }> {
  const [program = '', ...args] = l.wrap([process.execPath, '-e', script]);
  const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve({ out, pid: child.pid }) : reject(new Error(`exit ${code}: ${out}`))));
  });
}

describe.skipIf(limit === undefined)('a memory cgroup for a benchmark child', () => {
  it("holds the exec'd node process, whose heap limit Node derives from the cgroup", async () => {
    const l = limit as MemoryLimit;
    const { out, pid } = await runWrapped(
      l,
      "const v8 = require('node:v8'); console.log(JSON.stringify({ pid: process.pid, heap: v8.getHeapStatistics().heap_size_limit, constrained: process.constrainedMemory() }))",
    );
    const seen = JSON.parse(out) as { pid: number; heap: number; constrained: number };
    expect(seen.pid).toBe(pid);
    expect(seen.constrained).toBe(LIMIT);
    // V8's floor for the old generation (256 MB) plus the young one: far below the ~4 GB an
    // unlimited process gets on this machine.
    expect(seen.heap).toBeLessThan(LIMIT * 1.25);
    expect(await l.oomKills()).toBe(0);
    expect(await l.peakBytes()).toBeGreaterThan(0);
  });

  it('counts a process the kernel kills for exceeding it', async () => {
    const l = limit as MemoryLimit;
    // Outside V8's heap (which would abort first): Buffers touched page by page.
    const hog = 'const keep = []; for (;;) keep.push(Buffer.alloc(16 * 1024 * 1024, 1));';
    await expect(runWrapped(l, hog)).rejects.toThrow(/exit null/);
    expect(await l.oomKills()).toBeGreaterThan(0);
  });
});
