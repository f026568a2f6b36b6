/**
 * The node's own containerd (Debian's package) with its own configuration, root, state and
 * socket: the machine's containerd is never touched. What matters here (decision 0101):
 * `restrict_oom_score_adj` (else every sandbox fails in runc), the pause image built here,
 * overlayfs, cgroupfs, Debian's CNI plugins, and registry hosts from a directory of ours.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand } from './exec.ts';
import { CNI_BIN_DIR, SYSTEM_PATH } from './node-prereqs.ts';
import { startServer, type ManagedProcess } from './process.ts';
import type { Reaper } from './reaper.ts';
import { waitUntil } from './wait.ts';

/** Directories and names of one containerd. */
export interface ContainerdLayout {
  root: string;
  state: string;
  /** gRPC socket (kubelet's `containerRuntimeEndpoint`, ctr's `--address`). */
  socket: string;
  /** runc's root (one subdirectory per containerd namespace). */
  runcRoot: string;
  cniConfDir: string;
  /** `hosts.toml` per registry host (`<dir>/<host:port>/hosts.toml`). */
  registryHostsDir: string;
  configPath: string;
}

/** The layout under `dir` (socket paths must stay short: sockets allow ~107 bytes). */
export function containerdLayout(dir: string): ContainerdLayout {
  return {
    root: join(dir, 'root'),
    state: join(dir, 'state'),
    socket: join(dir, 'containerd.sock'),
    runcRoot: join(dir, 'runc'),
    cniConfDir: join(dir, 'cni'),
    registryHostsDir: join(dir, 'hosts'),
    configPath: join(dir, 'config.toml'),
  };
}

function toml(s: string): string {
  return JSON.stringify(s);
}

/** containerd's config.toml (version 2) for `layout` (pure). */
export function renderContainerdConfig(layout: ContainerdLayout, sandboxImage: string): string {
  const cri = '[plugins."io.containerd.grpc.v1.cri"';
  return [
    'version = 2',
    `root = ${toml(layout.root)}`,
    `state = ${toml(layout.state)}`,
    '',
    '[grpc]',
    `  address = ${toml(layout.socket)}`,
    '[ttrpc]',
    `  address = ${toml(`${layout.socket}.ttrpc`)}`,
    '[debug]',
    '  address = ""',
    '[metrics]',
    '  address = ""',
    '',
    '[plugins."io.containerd.internal.v1.opt"]',
    `  path = ${toml(join(layout.root, 'opt'))}`,
    '',
    `${cri}]`,
    `  sandbox_image = ${toml(sandboxImage)}`,
    '  restrict_oom_score_adj = true',
    '  netns_mounts_under_state_dir = true',
    '  stream_server_address = "127.0.0.1"',
    '  stream_server_port = "0"',
    '  enable_selinux = false',
    `${cri}.containerd]`,
    '  snapshotter = "overlayfs"',
    '  default_runtime_name = "runc"',
    `${cri}.containerd.runtimes.runc]`,
    '  runtime_type = "io.containerd.runc.v2"',
    `${cri}.containerd.runtimes.runc.options]`,
    '  SystemdCgroup = false',
    `  Root = ${toml(layout.runcRoot)}`,
    `${cri}.cni]`,
    `  bin_dir = ${toml(CNI_BIN_DIR)}`,
    `  conf_dir = ${toml(layout.cniConfDir)}`,
    '  max_conf_num = 1',
    `${cri}.registry]`,
    `  config_path = ${toml(layout.registryHostsDir)}`,
    '',
  ].join('\n');
}

/**
 * `hosts.toml` of a registry host name (pure): its images are pulled from `mirror` (host:port)
 * over plain HTTP, `server` staying the fallback. The images keep their names.
 */
export function renderRegistryHosts(server: string, mirror: string): string {
  return [`server = ${toml(server)}`, '', `[host.${toml(`http://${mirror}`)}]`, '  capabilities = ["pull", "resolve"]', ''].join('\n');
}

/**
 * Lets the node pull images named under `name` from `mirror` (host:port) over plain HTTP, e.g.
 * a local registry itself (`name` = `mirror`, `server` = `http://<mirror>`) or a local registry
 * mirroring a public one (`server` = `https://quay.io`). Read at every pull: no restart needed.
 */
export async function setRegistryHosts(layout: ContainerdLayout, name: string, server: string, mirror: string): Promise<void> {
  const dir = join(layout.registryHostsDir, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'hosts.toml'), renderRegistryHosts(server, mirror));
}

/** What startContainerd needs. */
interface StartContainerdOptions {
  layout: ContainerdLayout;
  sandboxImage: string;
  logPath: string;
  reaper: Reaper;
  timeoutMs: number;
}

/** `ctr` against our containerd in namespace k8s.io (the CRI plugin's); `input` goes last, as a file. */
export async function ctr(layout: ContainerdLayout, args: readonly string[], input?: Buffer): Promise<string> {
  const argv = ['--address', layout.socket, '--namespace', 'k8s.io', ...args];
  if (input !== undefined) {
    // ctr reads an archive from stdin with `-`; runCommand writes text only, so go through a file.
    const file = join(layout.root, `.import-${Date.now()}.tar`);
    await writeFile(file, input);
    argv.push(file);
  }
  return (await runCommand('ctr', argv, { env: { PATH: SYSTEM_PATH } })).stdout;
}

/**
 * Writes the configuration and starts containerd; resolves once it answers `ctr version`.
 * Throws (with its log tail) when it exits or does not answer within `timeoutMs`.
 */
export async function startContainerd(options: StartContainerdOptions): Promise<ManagedProcess> {
  const { layout } = options;
  for (const d of [layout.root, layout.state, layout.runcRoot, layout.cniConfDir, layout.registryHostsDir])
    await mkdir(d, { recursive: true, mode: 0o711 });
  await writeFile(layout.configPath, renderContainerdConfig(layout, options.sandboxImage));
  const args = ['--config', layout.configPath, '--log-level', 'info'];
  const server = { name: 'containerd', command: 'containerd', args, logPath: options.logPath, reaper: options.reaper, env: { PATH: SYSTEM_PATH } };
  return startServer(server, (proc) =>
    waitUntil('containerd to answer', async () => (await ctr(layout, ['version'])).includes('Server:'), {
      timeoutMs: options.timeoutMs,
      process: proc,
      intervalMs: 200,
    }),
  );
}
