/**
 * One single install's (or uninstall's) requests as a timeline, from kube-apiserver's audit log
 * (`OLMV1_BENCH_RUNTIMES_TRACE`): when each request was received, in ms from the start (the
 * create, the DELETE),
 * the gap since the one before, its verb, resource and who sent it. Gaps show where an install's
 * time goes that no request count does (a wait inside kube-apiserver, a pull, a queue).
 */
import type { AuditEvent } from './audit-log.ts';

/** The lines of `events` received from `startMs` (epoch ms) until `untilMs` after it. */
export function requestTimeline(events: readonly AuditEvent[], startMs: number, untilMs: number): string[] {
  const lines: string[] = [];
  let previous: number | undefined;
  for (const e of events) {
    const t = Date.parse(e.requestReceivedTimestamp) + microseconds(e.requestReceivedTimestamp) - startMs;
    if (t < 0) continue;
    if (t > untilMs) break;
    const o = e.objectRef ?? {};
    const resource = `${o.resource ?? ''}${o.subresource === undefined ? '' : `/${o.subresource}`}`;
    if (resource === 'leases') continue;
    const gap = previous === undefined ? '' : `+${Math.round(t - previous)}`;
    const who = `${(e.userAgent ?? '').split(' ')[0] ?? ''} ${e.user?.username ?? ''}`;
    lines.push(`${t.toFixed(1).padStart(8)} ${gap.padStart(6)} ${e.verb.padEnd(7)} ${resource.padEnd(36)} ${who}`);
    previous = t;
  }
  return lines;
}

/** The sub-millisecond part of an RFC 3339 timestamp with microseconds (Date.parse keeps ms). */
function microseconds(ts: string): number {
  const frac = /\.(\d+)Z$/.exec(ts)?.[1] ?? '';
  return frac.length > 3 ? Number(`0.${frac.slice(3)}`) : 0;
}
