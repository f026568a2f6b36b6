// A leader-election candidate as its own Node process, for test/integration/kube-leader-election.
// Usage: node leader-child.ts <kubeconfig> <namespace> <lease> <identity> <leaseMs> <renewMs> <retryMs>
// Prints one JSON line per event on stdout: {"event":"started"|"stopped"|"exited","id","at"}
// (`at` = Date.now()), and {"event":"leader","leader":<identity>,...} each time it sees another
// holder of the lease. SIGTERM cancels the election gracefully (the lease is released).
import pino from 'pino';
import { LeaderElector, connect } from '../../pkg/shared/kube/index.ts';

const [kubeconfig, namespace, lease, identity, leaseMs, renewMs, retryMs] = process.argv.slice(2);
if (retryMs === undefined || kubeconfig === undefined || namespace === undefined || lease === undefined || identity === undefined) {
  process.stderr.write('usage: leader-child.ts <kubeconfig> <namespace> <lease> <identity> <leaseMs> <renewMs> <retryMs>\n');
  process.exit(2);
}

function emit(event: string, extra: Record<string, string> = {}): void {
  process.stdout.write(`${JSON.stringify({ event, id: identity, at: Date.now(), ...extra })}\n`);
}

const kube = await connect({ kind: 'file', path: kubeconfig });
const ctl = new AbortController();
process.on('SIGTERM', () => ctl.abort(new Error('SIGTERM')));
const elector = new LeaderElector({
  client: kube.client,
  namespace,
  name: lease,
  identity,
  leaseDurationMs: Number(leaseMs),
  renewDeadlineMs: Number(renewMs),
  retryPeriodMs: Number(retryMs),
  log: pino({ level: 'warn' }, pino.destination(2)),
  onStartedLeading: (signal) => {
    emit('started');
    return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
  },
  onStoppedLeading: () => emit('stopped'),
  onNewLeader: (leader) => emit('leader', { leader }),
});
emit('campaigning');
const outcome = await elector.run(ctl.signal);
emit(`exited-${outcome}`);
kube.close();
process.exit(0);
