/**
 * What a local node changes on the machine and must give back (decision 0101): iptables chains,
 * the files containerd 1.6 and libcni keep outside the node's directory, and ip_forward. Read
 * once the machine-wide node lock is held (NodeOptions.onLocked), so that another node of the
 * machine, started before or waiting for the lock, is never part of what is compared.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Chain names per iptables family and table, sorted. */
export async function iptablesChains(): Promise<string[]> {
  const out: string[] = [];
  for (const cmd of ['iptables', 'ip6tables']) {
    for (const table of ['filter', 'nat', 'mangle']) {
      const { stdout } = await exec(cmd, ['-w', '-t', table, '-S'], { env: { PATH } });
      for (const line of stdout.split('\n')) if (line.startsWith('-N ')) out.push(`${cmd}/${table}/${line.slice(3)}`);
    }
  }
  return out.sort();
}

/** Files containerd 1.6 and libcni keep outside the node's directory (shim sockets, results). */
export function filesOutside(): string[] {
  return ['/run/containerd/s', '/var/lib/cni/results'].flatMap((d) => (existsSync(d) ? readdirSync(d).map((f) => `${d}/${f}`) : []));
}

/** The machine's state a node must give back. */
export interface MachineState {
  chains: string[];
  files: string[];
  ipForward: string;
}

/** Reads the machine's state now. */
export async function machineState(): Promise<MachineState> {
  return { chains: await iptablesChains(), files: filesOutside(), ipForward: readFileSync('/proc/sys/net/ipv4/ip_forward', 'utf8').trim() };
}
