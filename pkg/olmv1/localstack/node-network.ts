/**
 * The local node's network: a bridge on a private /24 (its first address the host's, where the
 * API server, the kubelet and cluster DNS listen), the CNI configuration that puts Pods on it,
 * and iptables rules that keep all on this machine: Pods route to the Service range only, nothing
 * is forwarded off the bridge, the host address answers only on loopback and the bridge.
 */
import { randomInt } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { runCommand } from './exec.ts';
import { SYSTEM_PATH } from './node-prereqs.ts';

/** Addresses and names of one node's network. */
export interface NodeNetwork {
  /** Short random id; names the bridge, the CNI network and the iptables chains. */
  id: string;
  bridge: string;
  /** `10.244.N.0/24`. */
  podCidr: string;
  /** `10.244.N.1`: the bridge's (the host's) address on it. */
  hostIp: string;
  /** filter-table chains of ours: `OLMV1-<ID>-IN` (from INPUT), `OLMV1-<ID>-FWD` (from FORWARD). */
  inputChain: string;
  forwardChain: string;
}

const ENV = { PATH: SYSTEM_PATH };

async function run(command: string, args: readonly string[]): Promise<string> {
  return (await runCommand(command, args, { env: ENV })).stdout;
}

function ipv4ToInt(ip: string): number | undefined {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + p, 0);
}

/** Third octets N of 10.244.N.0/24 overlapping an address or prefix (but `/0`) in `ip` output. */
function usedOctets(text: string): Set<number> {
  const used = new Set<number>();
  for (const m of text.matchAll(/\b(\d+\.\d+\.\d+\.\d+)(?:\/(\d+))?/g)) {
    const base = ipv4ToInt(m[1] ?? '');
    const length = m[2] === undefined ? 32 : Number(m[2]);
    if (base === undefined || length === 0 || length > 32) continue;
    const bits = Math.min(length, 24);
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    for (let n = 0; n < 256; n++) {
      const candidate = (10 * 2 ** 24 + 244 * 2 ** 16 + n * 2 ** 8) >>> 0;
      if ((candidate & mask) >>> 0 === (base & mask) >>> 0) used.add(n);
    }
  }
  return used;
}

/** Picks a free /24 in 10.244.0.0/16 and names (pure but the random choice); throws when none is free. */
export function planNetwork(addressesAndRoutes: string, random: (max: number) => number = randomInt): NodeNetwork {
  const used = usedOctets(addressesAndRoutes);
  const free = [...Array(256).keys()].filter((n) => n !== 0 && n !== 255 && !used.has(n));
  if (free.length === 0) throw new Error('no free /24 in 10.244.0.0/16 for the node bridge (addresses or routes of this machine cover it)');
  const octet = free[random(free.length)] ?? 0;
  const id = random(0xffffff).toString(16).padStart(6, '0');
  return {
    id,
    bridge: `olmv1-${id}`,
    podCidr: `10.244.${octet}.0/24`,
    hostIp: `10.244.${octet}.1`,
    inputChain: `OLMV1-${id.toUpperCase()}-IN`,
    forwardChain: `OLMV1-${id.toUpperCase()}-FWD`,
  };
}

/** The CNI network list (bridge + host-local + portmap) of `net`, as containerd reads it. */
export function renderCniConflist(net: NodeNetwork, serviceCidr: string, ipamDataDir: string): string {
  const conf = {
    cniVersion: '1.0.0',
    name: `olmv1-${net.id}`,
    plugins: [
      {
        type: 'bridge',
        bridge: net.bridge,
        isGateway: true,
        // No masquerade and no default route: Pods reach the bridge, each other and Services only.
        ipMasq: false,
        hairpinMode: true,
        ipam: {
          type: 'host-local',
          ranges: [[{ subnet: net.podCidr, gateway: net.hostIp }]],
          routes: [{ dst: serviceCidr }],
          dataDir: ipamDataDir,
        },
      },
      { type: 'portmap', capabilities: { portMappings: true } },
    ],
  };
  return JSON.stringify(conf, null, 2) + '\n';
}

/** iptables commands (arguments after `iptables -w`) that create our chains and hook them in. */
export function firewallCommands(net: NodeNetwork): string[][] {
  const { bridge, hostIp, inputChain: inp, forwardChain: fwd } = net;
  return [
    ['-N', inp],
    ['-A', inp, '-d', `${hostIp}/32`, '-i', 'lo', '-j', 'RETURN'],
    ['-A', inp, '-d', `${hostIp}/32`, '-i', bridge, '-j', 'RETURN'],
    ['-A', inp, '-d', `${hostIp}/32`, '-j', 'DROP'],
    ['-I', 'INPUT', '1', '-j', inp],
    ['-N', fwd],
    ['-A', fwd, '-i', bridge, '-o', bridge, '-j', 'ACCEPT'],
    ['-A', fwd, '-i', bridge, '-j', 'REJECT'],
    ['-A', fwd, '-o', bridge, '-j', 'REJECT'],
    ['-I', 'FORWARD', '1', '-j', fwd],
  ];
}

/** Kernel settings the node needs, and what they were before (to put back on stop). */
export interface SysctlChange {
  path: string;
  before: string;
  value: string;
}

/** The sysctls a node needs: forwarding (Service DNAT to a Pod) and bridge netfilter. */
const NODE_SYSCTLS: ReadonlyArray<{ path: string; value: string }> = [
  { path: '/proc/sys/net/ipv4/ip_forward', value: '1' },
  { path: '/proc/sys/net/bridge/bridge-nf-call-iptables', value: '1' },
];

/**
 * Creates the bridge and our firewall chains and sets the sysctls, returning those it changed.
 * Throws with the failing command's output (the node's cleanup script removes the rest).
 */
export async function setUpNetwork(net: NodeNetwork): Promise<SysctlChange[]> {
  await run('ip', ['link', 'add', net.bridge, 'type', 'bridge']);
  await run('ip', ['addr', 'add', `${net.hostIp}/24`, 'dev', net.bridge]);
  await run('ip', ['link', 'set', net.bridge, 'up']);
  for (const args of firewallCommands(net)) await run('iptables', ['-w', ...args]);
  const changes: SysctlChange[] = [];
  for (const { path, value } of NODE_SYSCTLS) {
    const before = (await readFile(path, 'utf8')).trim();
    if (before === value) continue;
    await writeFile(path, value);
    changes.push({ path, before, value });
  }
  return changes;
}

/** `ip -4 addr` and `ip -4 route` of this machine, for planNetwork. */
export async function readAddressesAndRoutes(): Promise<string> {
  return (await run('ip', ['-4', '-o', 'addr'])) + (await run('ip', ['-4', 'route', 'show', 'table', 'all']));
}

/** Chain names per family and table, for telling ours from those that were there before. */
export type ChainSnapshot = Record<string, string[]>;

/** The iptables families and tables the node's components write to. */
export const IPTABLES_SCOPES: ReadonlyArray<{ command: 'iptables' | 'ip6tables'; table: string }> = [
  'iptables' as const,
  'ip6tables' as const,
].flatMap((command) => ['filter', 'nat', 'mangle'].map((table) => ({ command, table })));

/** Every chain of every scope now (`iptables -t T -S`); a family that does not work is empty. */
export async function snapshotChains(): Promise<ChainSnapshot> {
  const snapshot: ChainSnapshot = {};
  for (const { command, table } of IPTABLES_SCOPES) {
    const text = await run(command, ['-w', '-t', table, '-S']).catch(() => '');
    snapshot[`${command}/${table}`] = text
      .split('\n')
      .filter((l) => l.startsWith('-N ') || l.startsWith('-P '))
      .map((l) => l.split(' ')[1] ?? '');
  }
  return snapshot;
}
