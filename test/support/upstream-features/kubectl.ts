/**
 * How upstream's steps reach the cluster: the kubectl binary with KUBECONFIG set, its output
 * read as text; and their wait, a check polled every tick until a timeout (upstream's
 * require.Eventually with 5 minutes and 1 second).
 */
import { spawn } from 'node:child_process';
import { waitUntil } from '../../../pkg/olmv1/localstack/index.ts';

/** What one kubectl invocation printed, and whether it exited 0. */
export interface KubectlResult {
  ok: boolean;
  stdout: string;
  stderr: string;
}

/** Runs kubectl with these arguments, `input` on its stdin. Never rejects on a non-zero exit. */
export type Kubectl = (args: readonly string[], input?: string) => Promise<KubectlResult>;

/** A Kubectl running `path` with KUBECONFIG=`kubeconfig` over `env`. */
export function kubectlAt(path: string, kubeconfig: string, env: NodeJS.ProcessEnv): Kubectl {
  return (args, input) =>
    new Promise((resolve) => {
      const child = spawn(path, args, { env: { ...env, KUBECONFIG: kubeconfig }, stdio: ['pipe', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (b: Buffer) => out.push(b));
      child.stderr.on('data', (b: Buffer) => err.push(b));
      child.on('error', (e) => resolve({ ok: false, stdout: '', stderr: `cannot run ${path}: ${e.message}` }));
      child.on('close', (code) => resolve({ ok: code === 0, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }));
      child.stdin.on('error', () => undefined);
      child.stdin.end(input ?? '');
    });
}

/** Upstream's per-step wait: timeout and tick. */
export interface WaitPolicy {
  timeoutMs: number;
  tickMs: number;
}

/** upstream's defaults (steps.go: defaultTimeout 5 minutes, tick 1 second). */
export const UPSTREAM_WAIT: WaitPolicy = { timeoutMs: 5 * 60_000, tickMs: 1_000 };

/**
 * Polls `check` until it returns true. It may record what it last saw through `note`; on
 * timeout the error names `what` and that last observation.
 */
export async function eventually(policy: WaitPolicy, what: string, check: (note: (seen: string) => void) => Promise<boolean>): Promise<void> {
  let seen = 'nothing observed';
  const note = (s: string): void => {
    seen = s;
  };
  try {
    await waitUntil(what, () => check(note), { timeoutMs: policy.timeoutMs, intervalMs: policy.tickMs });
  } catch (err) {
    throw new Error(`${what}: not so after ${policy.timeoutMs} ms; last seen: ${seen}`, { cause: err });
  }
}

const GO_DURATION_UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** A Go duration ("90s", "1m30s", "2h") in milliseconds; undefined when it is not one. */
export function parseGoDuration(text: string): number | undefined {
  if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(text)) return undefined;
  let ms = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) ms += Number(m[1]) * (GO_DURATION_UNITS[m[2] ?? ''] ?? 0);
  return ms;
}

/** Upstream's wait with its E2E_STEP_TIMEOUT override (a Go duration; ignored when malformed). */
export function waitPolicyFrom(env: NodeJS.ProcessEnv): WaitPolicy {
  const timeoutMs = parseGoDuration(env['E2E_STEP_TIMEOUT'] ?? '');
  return timeoutMs === undefined ? UPSTREAM_WAIT : { ...UPSTREAM_WAIT, timeoutMs };
}
