/**
 * catalogd and operator-controller as children of `olmv1 up`: their real entry points with leader
 * election, each in its own process group (Ctrl-C reaches `up`, which stops them in order),
 * logging to a file, tracked by the workspace's reaper in case `up` dies first.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { freePorts, startProcess, waitUntil, type ManagedProcess, type Workspace } from '../../pkg/olmv1/localstack/index.ts';
import { featureGatesArgs, type ComponentGates } from './up-feature-gates.ts';

/** Where the components run and what they may reach. */
interface ComponentsOptions {
  repoRoot: string;
  /** The Node binary (process.execPath). */
  node: string;
  kubeconfig: string;
  systemNamespace: string;
  /** Registries reached over plain HTTP (`--insecure-registry`). */
  insecureRegistries: readonly string[];
  /** `NAMESPACE/NAME` of operator-controller's default install ServiceAccount, if any. */
  defaultInstaller?: string;
  /** Directory for catalogd.log and operator-controller.log. */
  logDir: string;
  /** Processes are tracked here; cache directories are created inside `workspace.dir`. */
  workspace: Workspace;
  /** Environment of the children. */
  env: NodeJS.ProcessEnv;
  /** `--feature-gates` of each (up-feature-gates.ts). */
  featureGates: ComponentGates;
}

/** Where each component listens and keeps its cache. */
interface ComponentPlaces {
  serverPort: number;
  catalogdHealth: number;
  controllerHealth: number;
  /** Directory the cache directories go in. */
  cacheRoot: string;
}

/** The command lines (after the Node binary) of catalogd and operator-controller (pure). */
export function componentArgs(
  options: Omit<ComponentsOptions, 'node' | 'logDir' | 'workspace' | 'env'>,
  places: ComponentPlaces,
): { catalogd: string[]; operatorController: string[] } {
  const insecure = options.insecureRegistries.flatMap((r) => ['--insecure-registry', r]);
  // --insecure-metrics: `curl <health>/metrics` works locally (decision 0068); --log-format text:
  // people read .olmv1/logs/.
  const common = [
    '--log-format',
    'text',
    '--kubeconfig',
    options.kubeconfig,
    '--system-namespace',
    options.systemNamespace,
    '--leader-elect',
    '--insecure-metrics',
    ...insecure,
  ];
  // Each component: its entry point, the common flags, its cache, its health port, its own flags and gates.
  const component = (name: 'catalogd' | 'operator-controller', healthPort: number, own: string[], gates: string[]): string[] => [
    join(options.repoRoot, `cmd/${name}/main.ts`),
    ...common,
    '--cache-dir',
    join(places.cacheRoot, name),
    '--health-probe-bind-address',
    `127.0.0.1:${healthPort}`,
    ...own,
    ...featureGatesArgs(gates),
  ];
  const server = `127.0.0.1:${places.serverPort}`;
  const installer = options.defaultInstaller === undefined ? [] : ['--default-install-service-account', options.defaultInstaller];
  return {
    catalogd: component(
      'catalogd',
      places.catalogdHealth,
      ['--catalogs-server-addr', server, '--external-address', server],
      options.featureGates.catalogd,
    ),
    operatorController: component('operator-controller', places.controllerHealth, installer, options.featureGates.operatorController),
  };
}

/** The running components. */
export interface Components {
  catalogd: ManagedProcess;
  operatorController: ManagedProcess;
  /** `http://127.0.0.1:PORT` of catalogd's catalog server. */
  catalogdUrl: string;
  catalogdHealthUrl: string;
  operatorControllerHealthUrl: string;
  /** Every port the components listen on. */
  ports: number[];
}

/**
 * Starts catalogd, then operator-controller, until both are healthy; throws with the log tail
 * when one exits or is not healthy within a minute (the workspace's stop() ends what started).
 */
export async function startComponents(options: ComponentsOptions): Promise<Components> {
  const [serverPort = 0, catalogdHealth = 0, controllerHealth = 0] = await freePorts(3);
  const ws = options.workspace;
  await mkdir(options.logDir, { recursive: true });
  const args = componentArgs(options, { serverPort, catalogdHealth, controllerHealth, cacheRoot: ws.dir });

  // One component: started with its log in the log directory, tracked by the workspace, healthy.
  const start = async (name: string, argv: string[], healthUrl: string, probe: string): Promise<ManagedProcess> => {
    const proc = await startProcess({
      name,
      command: options.node,
      args: argv,
      logPath: join(options.logDir, `${name}.log`),
      reaper: ws.reaper,
      env: options.env,
    });
    ws.track(() => proc);
    await waitHealthy(proc, `${healthUrl}${probe}`);
    return proc;
  };
  const catalogdHealthUrl = `http://127.0.0.1:${catalogdHealth}`;
  const catalogd = await start('catalogd', args.catalogd, catalogdHealthUrl, '/healthz');
  const operatorControllerHealthUrl = `http://127.0.0.1:${controllerHealth}`;
  const operatorController = await start('operator-controller', args.operatorController, operatorControllerHealthUrl, '/readyz');

  return {
    catalogd,
    operatorController,
    catalogdUrl: `http://127.0.0.1:${serverPort}`,
    catalogdHealthUrl,
    operatorControllerHealthUrl,
    ports: [serverPort, catalogdHealth, controllerHealth],
  };
}

async function waitHealthy(proc: ManagedProcess, url: string): Promise<void> {
  await waitUntil(`${proc.name} at ${url}`, async () => (await fetch(url, { signal: AbortSignal.timeout(2000) })).ok, {
    timeoutMs: 60_000,
    intervalMs: 200,
    process: proc,
  });
}
