/**
 * Requests per extension by verb and resource, ours and upstream's operator-controller, from
 * kube-apiserver's audit log (audit-log.ts). Every component of the bench talks to the API
 * server with the same admin kubeconfig, so requests are attributed by who they are made as and
 * the user agent they carry:
 *
 * - as an extension's ServiceAccount (`system:serviceaccount:...`, but kube-system's, which
 *   kube-controller-manager's controllers act as): only the controller under test acts as the
 *   extensions' ServiceAccounts (the bench creates no other ServiceAccount users, and the two
 *   controllers never run at the same time);
 * - ours as the admin: user agent `operator-controller` (cmd/shared/component.ts);
 * - upstream's as the admin: its manager's clients announce `operator-controller/<version>`
 *   (client-go's default agent, named after the binary), while clients built from a bare
 *   rest.Config (its Helm storage, the ServiceAccount clients' token requests) carry Go's
 *   default `Go-http-client/<version>`; nothing else of the bench is written in Go except
 *   kubectl (`kubectl/...`) and kube-apiserver's own loopback client (`kube-apiserver/...`), so
 *   `Go-http-client` is upstream's while it runs.
 *
 * Leader election Lease requests come at a fixed rate whatever the extensions do: they are
 * counted apart, and not in the per-extension figures nor in the quiet check.
 */
import { sleep } from './http-load.ts';
import { asExtensionServiceAccount, type AuditEvent, type AuditLog } from './audit-log.ts';

/** Who made a request, for one controller. */
export type Attribution = (e: AuditEvent) => boolean;

/** Our operator-controller's requests (its own user agent, or an extension's ServiceAccount). */
export const ours: Attribution = (e) => (e.userAgent ?? '').startsWith('operator-controller') || asExtensionServiceAccount(e);

/** Upstream's operator-controller's requests, while it is the only controller running (see above). */
export const upstreams: Attribution = (e) => {
  const agent = e.userAgent ?? '';
  return agent.startsWith('operator-controller') || agent.startsWith('Go-http-client') || asExtensionServiceAccount(e);
};

/** Requests whose number grows with time, not with the extensions (leader election). */
export const isLease = (e: AuditEvent): boolean => e.objectRef?.resource === 'leases';

/**
 * `verb resource[/subresource]` of an event; requests for no resource by their path (discovery),
 * the OpenAPI documents (whose query is a content hash) as one.
 */
export function requestKind(e: AuditEvent): string {
  const r = e.objectRef;
  if (r?.resource !== undefined) return `${e.verb} ${r.resource}${r.subresource === undefined ? '' : `/${r.subresource}`}`;
  const path = e.requestURI.split('?')[0] ?? '';
  return `${e.verb} ${path.startsWith('/openapi/') ? '/openapi/...' : path}`;
}

/** Counts by {@link requestKind}. */
export function countByKind(events: readonly AuditEvent[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of events) counts.set(requestKind(e), (counts.get(requestKind(e)) ?? 0) + 1);
  return counts;
}

/** One phase (an install or an upgrade of N extensions) of one controller. */
export interface PhaseRequests {
  /** The controller's requests in the phase, leases excluded. */
  events: AuditEvent[];
  /** Its Lease requests in the same window. */
  leases: number;
  /** Requests in the window by nobody attributed, by user agent (a check that nothing was missed). */
  others: Record<string, number>;
  /** Window start (audit timestamp) to the last counted request, ms. */
  activeMs: number;
}

/**
 * Reads the audit log from `offset` until the controller (`who`) has made no request but
 * Lease ones for `quietMs`, and returns its requests since `startMs` (epoch ms).
 */
export async function untilQuiet(
  audit: AuditLog,
  offset: number,
  who: Attribution,
  opts: { startMs: number; quietMs: number; timeoutMs: number },
): Promise<PhaseRequests> {
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    await sleep(500);
    const all = (await audit.readSince(offset)).filter((e) => Date.parse(e.requestReceivedTimestamp) >= opts.startMs);
    const mine = all.filter(who);
    const events = mine.filter((e) => !isLease(e));
    const last = Math.max(opts.startMs, ...events.map((e) => Date.parse(e.requestReceivedTimestamp)));
    if (Date.now() - last >= opts.quietMs || Date.now() > deadline) {
      const others: Record<string, number> = {};
      for (const e of all) if (!who(e)) others[e.userAgent ?? '?'] = (others[e.userAgent ?? '?'] ?? 0) + 1;
      return { events, leases: mine.length - events.length, others, activeMs: last - opts.startMs };
    }
  }
}

/** Rows of a per-extension table: one per request kind, most frequent first, then the total. */
export function perExtensionRows(phases: Record<string, PhaseRequests>, n: number): string[][] {
  const counts = Object.fromEntries(Object.entries(phases).map(([k, p]) => [k, countByKind(p.events)]));
  const kinds = [...new Set(Object.values(counts).flatMap((c) => [...c.keys()]))];
  const total = (kind: string): number => Object.values(counts).reduce((t, c) => t + (c.get(kind) ?? 0), 0);
  kinds.sort((a, b) => total(b) - total(a) || a.localeCompare(b));
  const cell = (x: number): string => String(Math.round((x / n) * 100) / 100);
  return [
    ...kinds.map((kind) => [kind, ...Object.values(counts).map((c) => cell(c.get(kind) ?? 0))]),
    ['total', ...Object.values(phases).map((p) => cell(p.events.length))],
  ];
}

/** A markdown table of {@link perExtensionRows} under `title` with one column per phase. */
export function markdownTable(title: string, phases: Record<string, PhaseRequests>, n: number): string[] {
  const rows = perExtensionRows(phases, n);
  return [
    `${title} (requests per extension, ${n} extensions; Lease requests apart)`,
    '',
    `| verb resource | ${Object.keys(phases).join(' | ')} |`,
    `|---|${Object.keys(phases)
      .map(() => '---')
      .join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
}
