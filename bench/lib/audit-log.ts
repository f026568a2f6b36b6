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
  /** Events written after `offset` (whole lines only) for which `keep` holds (default: all). */
  readSince(offset: number, keep?: (e: AuditEvent) => boolean): Promise<AuditEvent[]>;
}

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [ResponseStarted, ResponseComplete, Panic]
rules:
  - level: Metadata
`;

const CHUNK_BYTES = 16 << 20;

/** The fields the bench reads, so that many kept events take little memory. */
function trimmed(e: AuditEvent): AuditEvent {
  const r = e.objectRef;
  return {
    requestReceivedTimestamp: e.requestReceivedTimestamp,
    verb: e.verb,
    requestURI: r?.resource === undefined ? e.requestURI : '',
    ...(e.userAgent === undefined ? {} : { userAgent: e.userAgent }),
    ...(e.user?.username === undefined ? {} : { user: { username: e.user.username } }),
    ...(r === undefined
      ? {}
      : {
          objectRef: {
            ...(r.resource === undefined ? {} : { resource: r.resource }),
            ...(r.subresource === undefined ? {} : { subresource: r.subresource }),
            ...(r.namespace === undefined ? {} : { namespace: r.namespace }),
          },
        }),
  };
}

/** Writes the policy under `dir` and returns the log; the file appears once the API server runs. */
export async function createAuditLog(dir: string): Promise<AuditLog> {
  const policy = join(dir, 'audit-policy.yaml');
  const path = join(dir, 'audit.log');
  await writeFile(policy, POLICY);
  return {
    args: [`--audit-policy-file=${policy}`, `--audit-log-path=${path}`, '--audit-log-format=json', '--audit-log-maxsize=0'],
    offset: async () => (await stat(path).catch(() => ({ size: 0 }))).size,
    readSince: async (offset, keep = () => true) => {
      const file = await open(path);
      try {
        const { size } = await file.stat();
        const out: AuditEvent[] = [];
        // In chunks, keeping the wanted events' fields only: at 10,000 extensions a phase's
        // events take more bytes than a string may hold.
        const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, Math.max(1, size - offset)));
        let rest = '';
        for (let at = offset; at < size;) {
          const { bytesRead } = await file.read(chunk, 0, Math.min(chunk.length, size - at), at);
          if (bytesRead === 0) break;
          at += bytesRead;
          const text = rest + chunk.toString('utf8', 0, bytesRead);
          const end = text.lastIndexOf('\n');
          rest = text.slice(end + 1);
          for (const line of text.slice(0, end + 1).split('\n')) {
            if (line === '') continue;
            const e = trimmed(JSON.parse(line) as AuditEvent);
            if (keep(e)) out.push(e);
          }
        }
        return out;
      } finally {
        await file.close();
      }
    },
  };
}

/**
 * True for requests made as a ServiceAccount outside kube-system: in the benches only the
 * operator-controller under test acts as one (the extensions' installers; upstream's its own
 * too), while kube-controller-manager's controllers act as their own kube-system ServiceAccounts.
 */
export function asExtensionServiceAccount(e: AuditEvent): boolean {
  const user = e.user?.username ?? '';
  return user.startsWith('system:serviceaccount:') && !user.startsWith('system:serviceaccount:kube-system:');
}

/**
 * True for operator-controller's requests: its own identity announces itself as
 * `operator-controller` (cmd/shared/component.ts), and only operator-controller acts as the
 * extensions' ServiceAccounts (`asExtensionServiceAccount`).
 */
export function byOperatorController(e: AuditEvent): boolean {
  return (e.userAgent ?? '').startsWith('operator-controller') || asExtensionServiceAccount(e);
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
