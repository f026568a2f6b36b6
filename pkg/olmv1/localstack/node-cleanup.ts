/**
 * The node's cleanup as one shell script, run on stop() and by the reaper: containers deleted
 * through runc and their shims killed (they outlive containerd), mounts under the node's
 * directory unmounted, the bridge and its veths deleted, the node's iptables chains and the
 * rules jumping to them removed, libcni's cached results removed, the sysctls put back. Every
 * step tolerates what is already gone, so it can run twice.
 */
import type { ChainSnapshot, NodeNetwork, SysctlChange } from './node-network.ts';
import { IPTABLES_SCOPES } from './node-network.ts';
import { SYSTEM_PATH } from './node-prereqs.ts';

/** Inputs of renderCleanupScript. */
export interface CleanupPlan {
  /** The node's directory: every mount below it is removed. */
  nodeDir: string;
  /** runc's root (containerd's runc option `Root`; one subdirectory per namespace). */
  runcRoot: string;
  /** containerd's root directory (the CRI plugin's sandboxes under io.containerd.grpc.v1.cri). */
  containerdRoot: string;
  /** containerd's state directory (shim pids under io.containerd.runtime.v2.task). */
  containerdState: string;
  /** containerd's socket: its shims carry `-address <socket>` on their command lines. */
  containerdSocket: string;
  network: NodeNetwork;
  /** Chains that existed before the node started: never removed. */
  chainsBefore: ChainSnapshot;
  sysctls: readonly SysctlChange[];
}

/** Single-quotes `s` for sh. */
function q(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** A chain-name pattern (extended regex) of the chains the node's components create. */
export function ownedChainPattern(net: NodeNetwork): string {
  return `^(KUBE-|CNI-|OLMV1-${net.id.toUpperCase()}-)`;
}

/** Renders the script (pure). See the module comment for what it does. */
export function renderCleanupScript(plan: CleanupPlan): string {
  const { network: net } = plan;
  const lines = [
    '#!/bin/sh',
    `# Cleanup of the olmv1 local node ${net.id} (generated; safe to run more than once).`,
    `PATH=${SYSTEM_PATH}`,
    'export PATH',
    "# 1. What containerd 1.6 keeps outside our directories: its shims' sockets (named by the",
    '# sha256 of "<socket>/<namespace>/<id>") and libcni\'s cached results of our sandboxes.',
    `for d in ${q(plan.containerdState)}/io.containerd.runtime.v2.task/*/*; do`,
    '  [ -d "$d" ] || continue',
    '  id=${d##*/}; ns=${d%/*}; ns=${ns##*/}',
    `  rm -f "/run/containerd/s/$(printf '%s' ${q(plan.containerdSocket)}"/$ns/$id" | sha256sum | cut -d' ' -f1)"`,
    'done',
    `for d in ${q(plan.containerdRoot)}/io.containerd.grpc.v1.cri/sandboxes/*; do`,
    '  [ -d "$d" ] || continue',
    '  id=${d##*/}',
    `  rm -f "/var/lib/cni/results/cni-loopback-$id-lo" /var/lib/cni/results/${q(`olmv1-${net.id}`)}-"$id"-*`,
    'done',
    '# Their directories too, once empty (nothing else on this machine made them then).',
    'rmdir /run/containerd/s /run/containerd /var/lib/cni/results /var/lib/cni 2>/dev/null',
    '# 2. Containers, then the shims that supervised them.',
    'pids=""',
    `for ns in ${q(plan.runcRoot)}/*; do`,
    '  [ -d "$ns" ] || continue',
    '  for id in $(runc --root "$ns" list -q 2>/dev/null); do',
    `    pids="$pids $(runc --root "$ns" state "$id" 2>/dev/null | sed -n 's/^ *"pid": *\\([0-9]*\\).*/\\1/p')"`,
    '    runc --root "$ns" delete -f "$id" >/dev/null 2>&1',
    '  done',
    'done',
    '# Shims name our socket on their command line: only ours match.',
    'for p in /proc/[0-9]*; do',
    `  if tr '\\0' ' ' < "$p/cmdline" 2>/dev/null | grep -qF -- ${q(`-address ${plan.containerdSocket}`)}; then kill -9 "\${p#/proc/}" 2>/dev/null; pids="$pids \${p#/proc/}"; fi`,
    'done',
    '# Until they are gone (and reaped), at most 10 s.',
    'i=0',
    'while [ $i -lt 100 ]; do',
    '  alive=""',
    '  for p in $pids; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done',
    '  [ -z "$alive" ] && break',
    '  sleep 0.1',
    '  i=$((i + 1))',
    'done',
    '# 3. Mounts under the node directory, deepest first, until none is left.',
    'for pass in 1 2 3 4 5; do',
    `  mounts=$(awk -v p=${q(plan.nodeDir)} '$5 == p || index($5, p "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r)`,
    '  [ -z "$mounts" ] && break',
    '  for m in $mounts; do umount -l "$m" 2>/dev/null; done',
    'done',
    '# 4. The bridge and anything still attached to it.',
    `for l in $(ip -o link show master ${q(net.bridge)} 2>/dev/null | awk -F': ' '{ print $2 }' | cut -d@ -f1); do ip link del "$l" 2>/dev/null; done`,
    `ip link del ${q(net.bridge)} 2>/dev/null`,
    `rm -f /var/lib/cni/results/${q(`olmv1-${net.id}`)}-* 2>/dev/null`,
    '# 5. iptables: rules jumping to our chains, then the chains themselves.',
  ];
  for (const { command, table } of IPTABLES_SCOPES) {
    const before = plan.chainsBefore[`${command}/${table}`] ?? [];
    const keep = before.length === 0 ? '^$' : `^(${before.map((c) => c.replace(/[^A-Za-z0-9_-]/g, '.')).join('|')})$`;
    lines.push(
      `chains=$(${command} -w -t ${table} -S 2>/dev/null | awk '$1 == "-N" { print $2 }' | grep -E ${q(ownedChainPattern(net))} | grep -vE ${q(keep)})`,
      'if [ -n "$chains" ]; then',
      '  alt=$(echo $chains | tr " " "|")',
      `  ${command} -w -t ${table} -S | grep -E -- "^-A .* -j ($alt)( |\\$)" | sed 's/^-A /-D /' | while read -r rule; do eval "${command} -w -t ${table} $rule" 2>/dev/null; done`,
      `  for c in $chains; do ${command} -w -t ${table} -F "$c" 2>/dev/null; done`,
      `  for c in $chains; do ${command} -w -t ${table} -X "$c" 2>/dev/null; done`,
      'fi',
    );
  }
  lines.push('# 6. Kernel settings, unless another olmv1 node still runs.');
  if (plan.sysctls.length > 0) {
    lines.push("if ! ip -o link show type bridge 2>/dev/null | grep -q ': olmv1-'; then");
    for (const s of plan.sysctls) lines.push(`  echo ${q(s.before)} > ${q(s.path)}`);
    lines.push('fi');
  }
  lines.push('exit 0', '');
  return lines.join('\n');
}
