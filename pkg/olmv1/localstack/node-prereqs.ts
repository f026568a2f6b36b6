/** What a local node needs from the machine, checked first: one message names every gap and its fix. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isExecutable } from './exec.ts';

/** PATH the node's processes get (containerd finds its shim and runc there, kube-proxy iptables). */
export const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Where Debian's containernetworking-plugins puts the CNI plugins. */
export const CNI_BIN_DIR = '/usr/lib/cni';

/** Debian packages of the node's prerequisites (`.ci/run` installs the same). */
type NodePackage = 'containerd' | 'runc' | 'containernetworking-plugins' | 'iptables' | 'iproute2';

/** Commands the node runs, with the Debian package that brings each. */
const COMMANDS: ReadonlyArray<readonly [string, NodePackage]> = [
  ['containerd', 'containerd'],
  ['containerd-shim-runc-v2', 'containerd'],
  ['ctr', 'containerd'],
  ['runc', 'runc'],
  ['iptables', 'iptables'],
  ['iptables-save', 'iptables'],
  ['iptables-restore', 'iptables'],
  ['ip', 'iproute2'],
];

const CNI_PLUGINS = ['bridge', 'host-local', 'portmap', 'loopback'];

/** Absolute path of `command` on SYSTEM_PATH, or undefined. */
function findSystemCommand(command: string): string | undefined {
  for (const dir of SYSTEM_PATH.split(':')) {
    const path = join(dir, command);
    if (isExecutable(path)) return path;
  }
  return undefined;
}

/** What the checks look at; the defaults read this machine (tests pass their own). */
interface MachineProbe {
  uid: number;
  findCommand: (command: string) => string | undefined;
  exists: (path: string) => boolean;
}

/** Every missing prerequisite of a local node, as lines for a message (empty: all there). */
export function missingNodePrerequisites(
  probe: MachineProbe = { uid: process.getuid?.() ?? -1, findCommand: findSystemCommand, exists: existsSync },
): string[] {
  const problems: string[] = [];
  if (probe.uid !== 0) problems.push('it must run as root (containerd, runc, bridges, mounts and iptables need it)');
  const packages = new Set<string>();
  const missing: string[] = [];
  for (const [command, pkg] of COMMANDS) {
    if (probe.findCommand(command) === undefined) {
      missing.push(command);
      packages.add(pkg);
    }
  }
  for (const plugin of CNI_PLUGINS) {
    if (!probe.exists(join(CNI_BIN_DIR, plugin))) {
      missing.push(`${CNI_BIN_DIR}/${plugin}`);
      packages.add('containernetworking-plugins');
    }
  }
  if (missing.length > 0) {
    problems.push(`missing ${missing.join(', ')}: apt-get update && apt-get install -y ${[...packages].sort().join(' ')}`);
  }
  if (!probe.exists('/sys/fs/cgroup/memory') && !probe.exists('/sys/fs/cgroup/cgroup.controllers')) {
    problems.push('no cgroup hierarchy with the memory controller under /sys/fs/cgroup');
  }
  if (!probe.exists('/proc/sys/net/bridge/bridge-nf-call-iptables')) {
    problems.push('bridge netfilter is off (Service traffic between Pods on one bridge needs it): modprobe br_netfilter');
  }
  return problems;
}

/** Throws one Error listing every missing prerequisite (see missingNodePrerequisites). */
export function assertNodePrerequisites(): void {
  const problems = missingNodePrerequisites();
  if (problems.length > 0) throw new Error(`a local node cannot start on this machine:\n  - ${problems.join('\n  - ')}`);
}
