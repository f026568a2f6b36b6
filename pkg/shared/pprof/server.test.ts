import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { PprofServer } from './index.ts';

const servers: PprofServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
});

async function started(maxSeconds?: number): Promise<string> {
  const server = new PprofServer({ host: '127.0.0.1', port: 0, log: pino({ level: 'silent' }), ...(maxSeconds === undefined ? {} : { maxSeconds }) });
  servers.push(server);
  await server.start();
  return `http://127.0.0.1:${server.port}/debug/pprof`;
}

/** Burns CPU in a named function so that the profile has something of ours to show. */
function busyWork(until: number): number {
  let x = 0;
  while (Date.now() < until) x += Math.sqrt(x + 1);
  return x;
}

describe('the pprof endpoint', () => {
  it('answers a 1 s CPU profile, as .cpuprofile JSON with nodes, samples and our function', async () => {
    const base = await started();
    let answered = false;
    const pending = fetch(`${base}/profile?seconds=1`).finally(() => (answered = true));
    // Work on the event loop, in slices, until the profile comes back.
    while (!answered) {
      busyWork(Date.now() + 20);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="profile.cpuprofile"');
    const profile = (await res.json()) as {
      nodes: { callFrame: { functionName: string; url: string } }[];
      samples: number[];
      startTime: number;
      endTime: number;
    };
    expect(profile.nodes.length).toBeGreaterThan(1);
    expect(profile.samples.length).toBeGreaterThan(0);
    expect(profile.endTime - profile.startTime).toBeGreaterThanOrEqual(900_000); // microseconds
    // Ours: busyWork, or the test's function when the optimizing compiler inlined busyWork into it.
    expect(profile.nodes.some((n) => n.callFrame.url.includes('pprof/server.test.ts'))).toBe(true);
  });

  it('serves a sampling heap profile (.heapprofile JSON) and an index naming both', async () => {
    const base = await started();
    const keep = Array.from({ length: 2000 }, (_, i) => ({ i, data: 'x'.repeat(200) + String(i) }));
    const res = await fetch(`${base}/heap`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="heap.heapprofile"');
    const profile = (await res.json()) as { head: { children: unknown[] }; samples: unknown[] };
    expect(profile.head.children.length).toBeGreaterThan(0);
    expect(profile.samples.length).toBeGreaterThan(0);
    expect(keep.length).toBe(2000);
    const index = await fetch(`${base}/`);
    expect(index.status).toBe(200);
    const html = await index.text();
    expect(html).toContain('href="profile?seconds=30"');
    expect(html).toContain('href="heap"');
    expect(html).toContain("not Go's pprof protobuf");
  });

  it('bounds the duration, refuses a second CPU profile while one runs, and 404s unknown profiles', async () => {
    const base = await started(2);
    const long = await fetch(`${base}/profile?seconds=3`);
    expect([long.status, await long.text()]).toEqual([400, 'profile duration exceeds the limit of 2 seconds\n']);
    const first = fetch(`${base}/profile?seconds=1`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = await fetch(`${base}/profile?seconds=1`);
    expect([second.status, await second.text()]).toEqual([500, 'Could not enable CPU profiling: cpu profiling already in use\n']);
    expect((await first).status).toBe(200);
    expect((await fetch(`${base}/goroutine`)).status).toBe(404);
    expect((await fetch(`${base}/heap`, { method: 'POST' })).status).toBe(405);
  });

  it('ends a CPU profile in flight when it stops', async () => {
    const base = await started();
    const server = servers[0];
    const began = Date.now();
    const pending = fetch(`${base}/profile?seconds=60`).then(
      (r) => r.status,
      () => 'closed',
    );
    await expect.poll(() => Date.now() - began).toBeGreaterThan(100);
    await server?.stop();
    servers.length = 0;
    await pending;
    expect(Date.now() - began).toBeLessThan(10_000);
  });
});
