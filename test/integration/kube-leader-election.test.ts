// Leader election between separate Node processes on the shared kube-apiserver: a killed
// leader is replaced once its lease has expired, a gracefully stopped one hands over at once by
// releasing the Lease, a frozen leader steps down when it resumes, and leadership intervals
// never overlap. Times are judged from the Lease's own records (renewTime, acquireTime).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { connect, type KubeContext } from '../../pkg/shared/kube/index.ts';
import { waitUntil } from '../support/bundle-flow.ts';

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
  /** The holder a `leader` event names. */
  leader?: string;
}

interface Candidate {
  id: string;
  proc: ChildProcess;
  events: Event[];
  waitFor(event: string, timeoutMs: number, match?: (e: Event) => boolean): Promise<Event>;
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
  createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    events.push(JSON.parse(line) as Event);
  });
  const c: Candidate = {
    id,
    proc,
    events,
    async waitFor(event, timeoutMs, match = () => true) {
      return vi.waitFor(
        () => {
          const found = events.find((e) => e.event === event && match(e));
          if (found === undefined) throw new Error(`${id}: no "${event}" within ${timeoutMs} ms (saw ${events.map((e) => e.event).join(', ')})`);
          return found;
        },
        { timeout: timeoutMs, interval: 20 },
      );
    },
  };
  children.push(c);
  return c;
}

interface LeaseRecord {
  holder: string | undefined;
  /** acquireTime and renewTime in ms since the epoch. */
  acquired: number;
  renewed: number;
}

/** MicroTime (`2026-01-02T03:04:05.678901Z`) in ms since the epoch. */
const millis = (micro: string | undefined): number => Date.parse((micro ?? '').replace(/(\.\d{3})\d*Z$/, '$1Z'));

async function lease(): Promise<LeaseRecord> {
  const obj = await kube.client.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: NS, name: LEASE });
  const spec = obj.spec as { holderIdentity?: string; acquireTime?: string; renewTime?: string };
  return { holder: spec.holderIdentity, acquired: millis(spec.acquireTime), renewed: millis(spec.renewTime) };
}

async function holder(): Promise<string | undefined> {
  return (await lease()).holder;
}

/** The events of `c` besides the `leader` sightings. */
const transitions = (c: Candidate): string[] => c.events.filter((e) => e.event !== 'leader').map((e) => e.event);

describe('leader election between processes', () => {
  it('fails over after a crash, hands over at once on graceful stop, never with two leaders', async () => {
    const a = candidate('a');
    await a.waitFor('started', 30_000);
    expect(await holder()).toBe('a');

    const b = candidate('b');
    await b.waitFor('campaigning', 30_000);
    // b keeps waiting while a renews: a renews past the moment b would have taken over a lease
    // left alone (its first sight of a, plus the lease duration and a poll).
    const bSawA = await b.waitFor('leader', 30_000, (e) => e.leader === 'a');
    await waitUntil(
      'a to renew past the moment b would have taken the lease over',
      async () => {
        const l = await lease();
        expect(l.holder).toBe('a');
        return l.renewed >= bSawA.at + LEASE_MS + MAX_POLL_MS;
      },
      30_000,
    );
    expect(transitions(b)).toEqual(['campaigning']);

    // Crash: no release, b must wait for the lease to expire: it acquires no sooner than a lease
    // duration after a's last renewal, this one or a later one (less a retry period: b dates
    // what it reads by its clock before the read).
    const lastSeen = await lease();
    a.proc.kill('SIGKILL');
    await b.waitFor('started', LEASE_MS + 3 * MAX_POLL_MS + 5_000);
    const failedOver = await lease();
    expect(failedOver.holder).toBe('b');
    expect(failedOver.acquired - lastSeen.renewed).toBeGreaterThanOrEqual(LEASE_MS - RETRY_MS);

    // Graceful stop: b releases the lease and c, which saw b holding it, takes over at once:
    // before b's lease would have expired.
    const c = candidate('c');
    await c.waitFor('leader', 30_000, (e) => e.leader === 'b');
    const held = await lease();
    b.proc.kill('SIGTERM');
    const bStopped = await b.waitFor('stopped', 10_000);
    await b.waitFor('exited-cancelled', 10_000);
    const cStarted = await c.waitFor('started', 10_000);
    const handedOver = await lease();
    expect(handedOver.holder).toBe('c');
    expect(handedOver.acquired).toBeLessThan(held.renewed + LEASE_MS);
    expect(cStarted.at).toBeGreaterThanOrEqual(bStopped.at); // no overlap

    // A frozen leader (SIGSTOP: GC pause, throttled container) loses the lease to d; once it
    // runs again it notices its renew deadline has passed and steps down without renewing.
    const d = candidate('d');
    await d.waitFor('campaigning', 30_000);
    c.proc.kill('SIGSTOP');
    const dStarted = await d.waitFor('started', LEASE_MS + 3 * MAX_POLL_MS + 5_000);
    const taken = await lease();
    c.proc.kill('SIGCONT');
    await c.waitFor('exited-lost', 10_000);
    expect(dStarted.at).toBeGreaterThan(cStarted.at);
    // c stepped down without writing the Lease: d's acquisition stands.
    expect(await lease()).toMatchObject({ holder: 'd', acquired: taken.acquired });
    d.proc.kill('SIGTERM');
    await d.waitFor('exited-cancelled', 10_000);
  });
});
