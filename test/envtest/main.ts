/**
 * Command line of the test environment (an entry point: reads argv and the environment).
 *
 *   node test/envtest/main.ts binaries      build/resolve binaries, print their paths as JSON
 *   node test/envtest/main.ts up [--json] [--node]
 *                                           start control plane + registries until Ctrl-C,
 *                                           print shell exports (or the connection JSON);
 *                                           --node: with a real node (root; decision 0101)
 *
 * Honours KUBEBUILDER_ASSETS (kube-apiserver, etcd, kubectl from that directory) and
 * XDG_CACHE_HOME (where built binaries are cached). Progress goes to stderr, results to stdout.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultCacheRoot, describeVersions, resolveBinaries, resolveNodeBinaries, type EnvtestBinaries } from '../../pkg/olmv1/localstack/index.ts';
import { startEnvironment, type EnvironmentInfo } from './environment.ts';

const USAGE = 'usage: node test/envtest/main.ts binaries | up [--json] [--node]';

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function binaries(): Promise<EnvtestBinaries> {
  const resolved = await resolveBinaries({
    kubebuilderAssets: process.env['KUBEBUILDER_ASSETS'],
    cacheRoot: defaultCacheRoot(process.env),
    env: process.env,
    log,
  });
  log(describeVersions(resolved));
  return resolved;
}

/** Shell `export` lines describing a running environment. */
function shellExports(info: EnvironmentInfo): string {
  const quote = (v: string): string => `'${v.replaceAll("'", `'\\''`)}'`;
  const vars: Array<[string, string]> = [
    ['KUBECONFIG', info.controlPlane.kubeconfigPath],
    ['OLMV1_ENVTEST_REGISTRY', info.registries.anonymous.host],
    ['OLMV1_ENVTEST_AUTH_REGISTRY', info.registries.basicAuth.host],
    ['OLMV1_ENVTEST_AUTH_REGISTRY_USERNAME', info.registries.basicAuth.username ?? ''],
    ['OLMV1_ENVTEST_AUTH_REGISTRY_PASSWORD', info.registries.basicAuth.password ?? ''],
  ];
  const lines = vars.map(([k, v]) => `export ${k}=${quote(v)}`);
  lines.push(`export PATH=${quote(info.binaries.binDir)}:"$PATH"`);
  return lines.join('\n') + '\n';
}

async function up(json: boolean, node: boolean): Promise<void> {
  const resolved = await binaries();
  const nodeBinaries = node ? await resolveNodeBinaries({ cacheRoot: defaultCacheRoot(process.env), env: process.env, log }) : undefined;
  const environment = await startEnvironment(resolved, nodeBinaries === undefined ? {} : { node: nodeBinaries });
  const exports = shellExports(environment.info);
  const envFile = join(environment.info.controlPlane.dir, 'envtest.env');
  await writeFile(envFile, exports);
  process.stdout.write(json ? JSON.stringify(environment.info, null, 2) + '\n' : exports);
  log(`envtest is up: API server ${environment.info.controlPlane.server}; in another shell: source ${envFile}; Ctrl-C stops it`);
  // The servers are detached and unref'd; without a timer Node would exit right here.
  const keepAlive = setInterval(() => {}, 60_000);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  clearInterval(keepAlive);
  log('stopping envtest');
  await environment.stop();
}

async function main(argv: readonly string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'binaries':
      process.stdout.write(JSON.stringify(await binaries(), null, 2) + '\n');
      return;
    case 'up':
      await up(rest.includes('--json'), rest.includes('--node'));
      return;
    default:
      log(USAGE);
      process.exitCode = 2;
  }
}

try {
  await main(process.argv.slice(2));
} catch (err) {
  log(`envtest: ${(err as Error).message}`);
  process.exitCode = 1;
}
