/**
 * `olmv1 local-stack`: will run a control plane, catalogd and operator-controller on this
 * machine (`npm start`). Until operator-controller exists it explains what to use instead.
 */
import { type CommandIO, EXIT } from './io.ts';

const MESSAGE = `olmv1 local-stack is not available yet: it will run a control plane, catalogd and
operator-controller on this machine once operator-controller exists.

Meanwhile:
  node test/envtest/main.ts up                      a kube-apiserver, etcd and two registries
  npm run olmv1 -- catalog serve NAME=DIR           the catalog HTTP API over local directories
  node cmd/catalogd/main.ts --kubeconfig FILE ...   catalogd against any cluster
`;

/** Prints the message above and succeeds: nothing failed, the stack is just not there yet. */
export async function runLocalStack(_args: string[], io: CommandIO): Promise<number> {
  io.stdout.write(MESSAGE);
  return EXIT.ok;
}
