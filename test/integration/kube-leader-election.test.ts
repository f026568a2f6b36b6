// Leader election between separate Node processes on the shared kube-apiserver: a killed
// leader is replaced within the lease duration (plus polling), a gracefully stopped one hands
// over at once by releasing the Lease, a frozen leader steps down when it resumes, and
// leadership intervals never overlap.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, type KubeContext } from '../../pkg/shared/kube/index.ts';

const NODE = fileURLToPath(new URL('../../node_modules/.bin/node', import.meta.url));
const CHILD = fileURLToPath(new URL('../support/leader-child.ts', import.meta.url));
const NS = `leader-${randomBytes(3).toString('hex')}`;
const LEASE = 'test-lease';
// Short but valid durations (lease > renew > 1.2 * retry) keep the test quick.
const LEASE_MS = 6_000;
const RENEW_MS = 4_000;
const RETRY_MS = 500;
// A candidate polls every retry * (1 + U[0, 1.2)).
const MAX_POLL_MS = RETRY_MS * 2.2;

interface Event {
  event: string;
  id: string;
  at: number;
}

interface Candidate {
  id: string;
  proc: ChildProcess;
  events: Event[];
  waitFor(event: string, timeoutMs: number): Promise<Event>;
}

let kube: KubeContext;
const children: Candidate[] = [];

beforeAll(async () => {
  kube = await connect({ kind: 'file', path: inject('envtestControlPlane').kubeconfigPath });
  await kube.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
});
afterAll(() => {
  for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
  kube?.close();
});

function candidate(id: string): Candidate {
  const kubeconfig = inject('envtestControlPlane').kubeconfigPath;
  const proc = spawn(NODE, [CHILD, kubeconfig, NS, LEASE, id, String(LEASE_MS), String(RENEW_MS), String(RETRY_MS)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const events: Event[] = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    events.push(JSON.parse(line) as Event);
    for (const w of waiters.splice(0)) w();
  });
  const c: Candidate = {
    id,
    proc,
    events,
    async waitFor(event, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = events.find((e) => e.event === event);
        if (found !== undefined) return found;
        if (Date.now() > deadline) throw new Error(`${id}: no "${event}" within ${timeoutMs} ms (saw ${events.map((e) => e.event).join(', ')})`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 100);
        });
      }
    },
  };
  children.push(c);
  return c;
}

async function holder(): Promise<string | undefined> {
  const lease = await kube.client.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: NS, name: LEASE });
  return (lease.spec as { holderIdentity?: string }).holderIdentity;
}

describe('leader election between processes', () => {
  it('fails over after a crash, hands over at once on graceful stop, never with two leaders', async () => {
    const a = candidate('a');
    await a.waitFor('started', 30_000);
    expect(await holder()).toBe('a');

    const b = candidate('b');
    await b.waitFor('campaigning', 30_000);
    await new Promise((r) => setTimeout(r, LEASE_MS + MAX_POLL_MS)); // b keeps waiting while a renews
    expect(b.events.map((e) => e.event)).toEqual(['campaigning']);

    // Crash: no release, b must wait for the lease to expire.
    const killedAt = Date.now();
    a.proc.kill('SIGKILL');
    const bStarted = await b.waitFor('started', LEASE_MS + 3 * MAX_POLL_MS + 5_000);
    const failover = bStarted.at - killedAt;
    expect(failover).toBeGreaterThan(0);
    expect(failover).toBeLessThanOrEqual(LEASE_MS + 2 * MAX_POLL_MS + 3_000);
    expect(await holder()).toBe('b');

    // Graceful stop: b releases the lease and c takes over within one poll, well before expiry.
    const c = candidate('c');
    await c.waitFor('campaigning', 30_000);
    await new Promise((r) => setTimeout(r, 1_000));
    const termAt = Date.now();
    b.proc.kill('SIGTERM');
    const bStopped = await b.waitFor('stopped', 10_000);
    await b.waitFor('exited-cancelled', 10_000);
    const cStarted = await c.waitFor('started', 10_000);
    expect(cStarted.at - termAt).toBeLessThan(LEASE_MS);
    expect(cStarted.at).toBeGreaterThanOrEqual(bStopped.at); // no overlap
    expect(await holder()).toBe('c');

    // A frozen leader (SIGSTOP: GC pause, throttled container) loses the lease to d; once it
    // runs again it notices its renew deadline has passed and steps down without renewing.
    const d = candidate('d');
    await d.waitFor('campaigning', 30_000);
    c.proc.kill('SIGSTOP');
    const dStarted = await d.waitFor('started', LEASE_MS + 3 * MAX_POLL_MS + 5_000);
    const resumedAt = Date.now();
    c.proc.kill('SIGCONT');
    const cLost = await c.waitFor('exited-lost', 10_000);
    expect(cLost.at - resumedAt).toBeLessThan(2_000);
    expect(dStarted.at).toBeGreaterThan(cStarted.at);
    expect(await holder()).toBe('d');
    d.proc.kill('SIGTERM');
    await d.waitFor('exited-cancelled', 10_000);
  });
});
