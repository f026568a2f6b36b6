/**
 * Who asks the API server for what, from kube-apiserver's audit log. apiserver_request_total
 * on /metrics has no user or user-agent label, and in the bench every component uses the same
 * admin kubeconfig, so requests are told apart by the audit events' `userAgent` and
 * `user.username`. The policy records one event per request, when it is received (metadata
 * only, no bodies): a long-running watch counts once, when it is opened.
 */
import { open, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The fields of an audit event (audit.k8s.io/v1 Event) the bench reads. */
export interface AuditEvent {
  requestReceivedTimestamp: string;
  verb: string;
  requestURI: string;
  userAgent?: string;
  user?: { username?: string };
  objectRef?: { resource?: string; subresource?: string; namespace?: string };
}

/** An audit log the API server writes. */
export interface AuditLog {
  /** kube-apiserver flags that turn it on. */
  args: string[];
  /** Current end of the log: where a later `readSince` starts. */
  offset(): Promise<number>;
  /** Events written after `offset` (whole lines only). */
  readSince(offset: number): Promise<AuditEvent[]>;
}

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [ResponseStarted, ResponseComplete, Panic]
rules:
  - level: Metadata
`;

/** Writes the policy under `dir` and returns the log; the file appears once the API server runs. */
export async function createAuditLog(dir: string): Promise<AuditLog> {
  const policy = join(dir, 'audit-policy.yaml');
  const path = join(dir, 'audit.log');
  await writeFile(policy, POLICY);
  return {
    args: [`--audit-policy-file=${policy}`, `--audit-log-path=${path}`, '--audit-log-format=json', '--audit-log-maxsize=0'],
    offset: async () => (await stat(path).catch(() => ({ size: 0 }))).size,
    readSince: async (offset) => {
      const file = await open(path);
      try {
        const { size } = await file.stat();
        const buf = Buffer.alloc(Math.max(0, size - offset));
        await file.read(buf, 0, buf.length, offset);
        const text = buf.toString('utf8');
        return text
          .slice(0, text.lastIndexOf('\n') + 1)
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as AuditEvent);
      } finally {
        await file.close();
      }
    },
  };
}

/**
 * True for operator-controller's requests: its own identity announces itself as
 * `operator-controller` (cmd/shared/component.ts), and only operator-controller acts as the
 * extensions' ServiceAccounts (the bench creates no other ServiceAccount users).
 */
export function byOperatorController(e: AuditEvent): boolean {
  return (e.userAgent ?? '').startsWith('operator-controller') || (e.user?.username ?? '').startsWith('system:serviceaccount:');
}

/** `verb resource[/subresource]` counts, most frequent first, as `"get leases 30, watch secrets 2"`. */
export function describeRequests(events: readonly AuditEvent[]): string {
  const counts = new Map<string, number>();
  for (const e of events) {
    const r = e.objectRef;
    const what = `${e.verb} ${r?.resource ?? e.requestURI}${r?.subresource === undefined ? '' : `/${r.subresource}`}`;
    counts.set(what, (counts.get(what) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
}
