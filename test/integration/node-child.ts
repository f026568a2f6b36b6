// A process that starts a control plane with a node, prints one JSON line (the node, the
// control plane's directory, kubeconfig and kubectl, and the machine as it was once the node
// lock was held) and waits to be killed: node.test.ts
// SIGKILLs it to show that the reaper undoes the node. Input: NODE_CHILD (JSON: binaries and
// the registry host the node pulls from over plain HTTP).
import { startControlPlane, type ControlPlaneBinaries } from '../../pkg/olmv1/localstack/index.ts';
import { machineState, type MachineState } from '../support/machine-state.ts';

const input = JSON.parse(process.env['NODE_CHILD'] ?? '{}') as { binaries: ControlPlaneBinaries; registry: string };
let before: MachineState | undefined;
const cp = await startControlPlane({
  binaries: input.binaries,
  node: {
    plainHttpRegistries: [input.registry],
    log: (line) => process.stderr.write(`${line}\n`),
    onLocked: async () => {
      before = await machineState();
    },
  },
});
process.stdout.write(
  `${JSON.stringify({ node: cp.node, dir: cp.info.dir, kubeconfig: cp.info.kubeconfigPath, kubectl: cp.info.kubectl, before })}\n`,
);
setInterval(() => undefined, 60_000);
