/**
 * `olmv1 up`: OLM v1 on this machine until Ctrl-C (UP_USAGE in up-options.ts). Everything started
 * is a clean-up step as soon as it exists; a signal, a failing step or a component exiting runs
 * them in reverse. If `up` is killed, pkg/olmv1/localstack's reapers stop what it started.
 */
import { copyFile, mkdir, rm, symlink } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, type KubeClient } from '../../pkg/shared/kube/index.ts';
import {
  createWorkspace,
  defaultCacheRoot,
  describeVersions,
  firstBuildEstimate,
  firstNodeBuildEstimate,
  missingImageBuildPrerequisites,
  missingNodePrerequisites,
  resolveBinaries,
  resolveCertManagerBinaries,
  resolveNodeBinaries,
  runCommand,
  startControlPlane,
  startRegistry,
} from '../../pkg/olmv1/localstack/index.ts';
import { deployCertManager, SELF_SIGNED_CLUSTER_ISSUER, startNodeRegistry, type Kubectl } from '../../pkg/olmv1/in-cluster/index.ts';
import { type CommandIO, EXIT } from './io.ts';
import { UP_FIELD_MANAGER, createCatalogFromSample, installOlmResources, readManifests, waitForServing } from './up-cluster.ts';
import { startComponents, type Components } from './up-components.ts';
import { EXAMPLE_REGISTRY, pushExample } from './up-example.ts';
import { COMPONENT_DEPLOYMENTS, deployProductOnNode } from './up-in-cluster.ts';
import { UP_USAGE, parseUpOptions, type UpOptions } from './up-options.ts';
import { readRunningStack, writeStackFile, type StackFile } from './up-state.ts';
import { summary } from './up-summary.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';

/** What the composition root provides. */
interface UpDeps {
  env: NodeJS.ProcessEnv;
  /** `.olmv1/` is created here. */
  cwd: string;
  /** The Node binary the components run on (process.execPath). */
  node: string;
  /** Registries reached over plain HTTP: loopback and $OLMV1_INSECURE_REGISTRIES. */
  insecureRegistries: string[];
  /** Where SIGINT and SIGTERM arrive (process). */
  signals: { on(event: 'SIGINT' | 'SIGTERM', fn: () => void): unknown; removeListener(event: 'SIGINT' | 'SIGTERM', fn: () => void): unknown };
  /** What this machine lacks for `--node` (default: pkg/olmv1/localstack's check of this machine). */
  missingNodePrerequisites?: () => string[];
  /** What it lacks to build the project's image for `--in-cluster` (default: pkg/olmv1/localstack's check). */
  missingImageBuildPrerequisites?: () => string[];
  /**
   * Starts `olmv1 console` on the stack (its kubeconfig, catalogd's catalog server as
   * `--catalogd-url`) until `signal` aborts; resolves with the URL it prints. None: no console.
   */
  startConsole?: (kubeconfig: string, catalogdUrl: string, signal: AbortSignal) => Promise<string>;
}

const SYSTEM_NAMESPACE = 'olmv1-system';
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** With --cert-manager: the ClusterCatalog of examples/webhook-operator (the README's walk-through). */
const WEBHOOK_CATALOG = 'webhook-catalog';

class Stopped extends Error {}

/** Runs `olmv1 up`; see the file comment. */
export async function runUp(args: string[], io: CommandIO, deps: UpDeps): Promise<number> {
  let options: UpOptions | 'help';
  try {
    options = parseUpOptions(args);
  } catch (err) {
    io.stderr.write(`Error: ${errorMessage(err)}\n\n${UP_USAGE}`);
    return EXIT.usage;
  }
  if (options === 'help') {
    io.stdout.write(UP_USAGE);
    return EXIT.ok;
  }
  const stateDir = join(deps.cwd, '.olmv1');
  const running = await readRunningStack(stateDir);
  if (running !== undefined) {
    io.stderr.write(`Error: olmv1 up is already running here (pid ${running.pid}); stop it first (Ctrl-C or kill -INT ${running.pid})\n`);
    return EXIT.usage;
  }
  const progress = (line: string): void => void io.stderr.write(`olmv1 up: ${line}\n`);
  const stopper = new AbortController();
  const onSignal = (): void => {
    if (!stopper.signal.aborted) progress('stopping');
    stopper.abort();
  };
  deps.signals.on('SIGINT', onSignal);
  deps.signals.on('SIGTERM', onSignal);
  const cleanups: Array<() => Promise<unknown>> = [];
  const ctx: StartContext = { deps, io, progress, stateDir, signal: stopper.signal, cleanups };
  let code: number;
  try {
    const started = await start(options, ctx);
    const consoleUrl = await startConsole(started.stack, ctx);
    io.stdout.write(summary(started.stack, deps.cwd, consoleUrl));
    code = await waitForStop(started.components, stopper.signal, progress, deps.cwd);
  } catch (err) {
    if (err instanceof Stopped || stopper.signal.aborted) {
      code = 130;
    } else {
      io.stderr.write(`olmv1 up: ${errorMessage(err)}\n`);
      code = EXIT.failed;
    }
  } finally {
    for (const step of cleanups.reverse()) await step().catch((err: unknown) => progress(`clean-up: ${errorMessage(err)}`));
    deps.signals.removeListener('SIGINT', onSignal);
    deps.signals.removeListener('SIGTERM', onSignal);
  }
  progress('stopped; nothing left running');
  return code;
}

interface StartContext {
  deps: UpDeps;
  io: CommandIO;
  progress(line: string): void;
  stateDir: string;
  signal: AbortSignal;
  /** Clean-up steps, run in reverse order. */
  cleanups: Array<() => Promise<unknown>>;
}

function checkpoint(ctx: StartContext): void {
  if (ctx.signal.aborted) throw new Stopped('stopped');
}

/** Starts everything for `options`; returns what runs. */
async function start(options: UpOptions, ctx: StartContext): Promise<{ stack: StackFile; components: Components | undefined }> {
  const { deps, progress, stateDir } = ctx;
  await mkdir(join(stateDir, 'logs'), { recursive: true });
  let kubeconfig: string;
  let registry: string | undefined;
  let stack: Partial<StackFile> = {};
  let inCluster: StackFile['inCluster'];
  if (options.mode === 'local') {
    if (options.node) {
      // Before anything is built or started: every gap at once, with the command that fills it.
      const missing = (deps.missingNodePrerequisites ?? missingNodePrerequisites)();
      if (missing.length > 0)
        throw new Error(
          `--node: a local node cannot start on this machine:\n  - ${missing.join('\n  - ')}\n` +
            'Without --node, olmv1 up runs everything but Pods (the example operator installs, its Deployment never becomes available).',
        );
      const missingTools = options.inCluster ? (deps.missingImageBuildPrerequisites ?? (() => missingImageBuildPrerequisites(deps.env)))() : [];
      if (missingTools.length > 0)
        throw new Error(
          `--in-cluster: the project's image cannot be built on this machine:\n  - ${missingTools.join('\n  - ')}\n` +
            'Without --in-cluster, olmv1 up --node runs catalogd and operator-controller as processes here.',
        );
    }
    const cores = availableParallelism();
    progress(
      `resolving the control plane and registry binaries (building them the first time takes ${firstBuildEstimate(cores)}, ` +
        'longer on a busy machine; a build cut short resumes on the next run)',
    );
    const resolving = (async () => {
      const cacheRoot = defaultCacheRoot(deps.env);
      const binaries = await resolveBinaries({ kubebuilderAssets: deps.env['KUBEBUILDER_ASSETS'], cacheRoot, env: deps.env, log: progress });
      if (!options.node) return { binaries, node: undefined };
      progress(
        `resolving the node's binaries: kubelet, kube-scheduler, kube-proxy and CoreDNS (their first build takes ${firstNodeBuildEstimate(cores)} in addition)`,
      );
      return { binaries, node: await resolveNodeBinaries({ cacheRoot, env: deps.env, log: progress }) };
    })();
    const { binaries, node: nodeBinaries } = await Promise.race([resolving, aborted(ctx.signal)]);
    progress(describeVersions(binaries));
    checkpoint(ctx);
    const registryHost = `127.0.0.1:${options.registryPort}`;
    // With --in-cluster the Pods pull from a registry on the node's bridge instead (up-in-cluster.ts);
    // cert-manager's images still go to the loopback one, which containerd reaches.
    const loopbackRegistry = !options.inCluster || options.certManager;
    progress(
      `starting kube-apiserver, etcd, kube-controller-manager${nodeBinaries === undefined ? '' : ' and a node (containerd, kubelet, kube-scheduler, kube-proxy, CoreDNS)'}` +
        (loopbackRegistry ? ` and a registry on ${registryHost}` : ''),
    );
    // kube-controller-manager finishes namespace deletions, collects garbage and makes ReplicaSets;
    // the node's containerd reaches the registry on loopback, over plain HTTP.
    const [cp, reg] = await Promise.allSettled([
      startControlPlane({
        binaries: { ...binaries, ...(nodeBinaries === undefined ? {} : { node: nodeBinaries }) },
        controllerManager: true,
        ...(nodeBinaries === undefined ? {} : { node: { plainHttpRegistries: [registryHost], log: progress, signal: ctx.signal } }),
        // The API server reads the file itself, so it reloads what is written there later.
        ...(options.authenticationConfig === undefined
          ? {}
          : { apiServerExtraArgs: [`--authentication-config=${resolve(deps.cwd, options.authenticationConfig)}`] }),
      }),
      loopbackRegistry ? startRegistry({ binaries, port: options.registryPort }) : Promise.resolve(undefined),
    ]);
    if (cp.status === 'fulfilled') ctx.cleanups.push(() => cp.value.stop());
    if (reg.status === 'fulfilled' && reg.value !== undefined) {
      const r = reg.value;
      ctx.cleanups.push(() => r.stop());
    }
    if (cp.status === 'rejected') throw cp.reason;
    if (reg.status === 'rejected') {
      const reason = reg.reason as Error;
      throw new Error(`${reason.message} (is another olmv1 up or registry using it? --registry-port N picks another port)`, { cause: reason });
    }
    const node = cp.value.node;
    if (node !== undefined)
      progress(`node ${node.name} Ready ${node.readyAfterMs} ms after its kubelet started; the API server is on its bridge ${node.bridge}`);
    checkpoint(ctx);
    if (options.certManager) {
      progress('building (the first time) and deploying cert-manager on the node');
      const cmBinaries = await resolveCertManagerBinaries({ cacheRoot: defaultCacheRoot(deps.env), env: deps.env, log: progress });
      const info = cp.value.info;
      const cmKubectl: Kubectl = async (args, input) =>
        (await runCommand(info.kubectl, ['--kubeconfig', info.kubeconfigPath, ...args], input === undefined ? {} : { input })).stdout;
      await deployCertManager({ kubectl: cmKubectl, registry: registryHost, binaries: cmBinaries, log: progress });
      progress(`cert-manager ${cmBinaries.version} ready, ClusterIssuer ${SELF_SIGNED_CLUSTER_ISSUER}`);
      checkpoint(ctx);
    }
    const localKubeconfig = join(stateDir, 'kubeconfig');
    const kubectl = join(stateDir, 'bin', 'kubectl');
    await copyFile(cp.value.info.kubeconfigPath, localKubeconfig);
    ctx.cleanups.push(() => rm(localKubeconfig, { force: true }));
    await mkdir(join(stateDir, 'bin'), { recursive: true });
    await rm(kubectl, { force: true });
    await symlink(binaries.kubectl, kubectl);
    kubeconfig = cp.value.info.kubeconfigPath;
    registry = reg.value?.host;
    if (options.noOlm) {
      // Pods do not reach 127.0.0.1 (the node's loopback is not theirs): the registry a release's
      // catalogs go to is on the node's bridge, where this machine, containerd and Pods reach it.
      const nodeRegistry = await startNodeRegistry(cp.value, binaries, tmpdir());
      ctx.cleanups.push(() => nodeRegistry.stop());
      registry = nodeRegistry.host;
      progress(`a registry on the node's bridge, ${registry} (plain HTTP): this machine, the node's containerd and Pods reach it`);
    }
    if (options.inCluster) {
      progress('deploying config/ with the project image: catalogd and operator-controller as Pods on the node');
      const onNode = await deployProductOnNode({
        controlPlane: cp.value,
        registryBinaries: binaries,
        repoRoot: REPO_ROOT,
        env: deps.env,
        featureGates: options.featureGates,
        log: progress,
      });
      ctx.cleanups.push(() => onNode.stop());
      registry = onNode.product.registry.host;
      inCluster = {
        namespace: SYSTEM_NAMESPACE,
        deployments: [COMPONENT_DEPLOYMENTS.catalogd, COMPONENT_DEPLOYMENTS.operatorController],
        imageRef: onNode.product.imageRef,
        revision: onNode.revision,
        ...(onNode.consoleUrl === undefined ? {} : { consoleUrl: onNode.consoleUrl }),
      };
      progress(`${inCluster.deployments.join(' and ')} Available (${inCluster.imageRef})`);
      checkpoint(ctx);
    }
    stack = {
      apiServer: cp.value.info.server,
      kubeconfig: localKubeconfig,
      kubectl,
      registry,
      ...(node === undefined
        ? {}
        : { node: { name: node.name, address: node.hostIp, podCidr: node.podCidr, bridge: node.bridge, readyAfterMs: node.readyAfterMs } }),
    };
    // --no-olm: the cluster and its registry alone, to install a release on (docs/release.md).
    if (options.noOlm) {
      const file: StackFile = {
        pid: process.pid,
        mode: options.mode,
        apiServer: stack.apiServer ?? '',
        kubeconfig: localKubeconfig,
        kubectl,
        ports: [],
        featureGates: options.featureGates,
      };
      if (registry !== undefined) file.registry = registry;
      if (stack.node !== undefined) file.node = stack.node;
      await writeStackFile(stateDir, file);
      ctx.cleanups.push(() => rm(join(stateDir, 'stack.json'), { force: true }));
      progress('nothing of OLM installed (--no-olm)');
      return { stack: file, components: undefined };
    }
  } else {
    kubeconfig = resolve(deps.cwd, options.kubeconfig);
    registry = options.registry;
    stack = { kubeconfig, ...(registry === undefined ? {} : { registry }) };
  }

  const kube = await connect({ kind: 'file', path: kubeconfig });
  ctx.cleanups.push(async () => kube.close());
  if (options.mode === 'cluster') stack.apiServer = kube.connection.server.origin;
  // In the cluster, config/ brought them already.
  if (inCluster === undefined) {
    progress('installing the CRDs, the admission policy and the olmv1-system namespace');
    await installOlmResources(kube.client, REPO_ROOT, SYSTEM_NAMESPACE, (line) => progress(`warning: ${line}`));
    checkpoint(ctx);
  }

  const ws = await createWorkspace('olmv1-up-');
  ctx.cleanups.push(() => ws.stop());
  const insecure = [...new Set([...deps.insecureRegistries, ...(options.mode === 'local' && registry !== undefined ? [registry] : [])])];
  let catalogRef: string | undefined;
  if (registry !== undefined) {
    progress(`building the example operator and pushing its images, bundles and catalog to ${registry}`);
    catalogRef = (await pushExample(REPO_ROOT, registry, insecure, ws.dir, deps.env)).catalogRef;
    checkpoint(ctx);
  }
  // With cert-manager, the example operator with webhooks too (README, docs/webhook-operators.md).
  let webhookCatalogRef: string | undefined;
  if (registry !== undefined && options.mode === 'local' && options.certManager) {
    progress(`building examples/webhook-operator and pushing its images, bundles and catalog to ${registry}`);
    const dir = join(ws.dir, 'webhook-operator');
    await mkdir(dir);
    webhookCatalogRef = (await pushExample(REPO_ROOT, registry, insecure, dir, deps.env, 'webhook-operator')).catalogRef;
    checkpoint(ctx);
  }
  // The local control plane is the user's own: extensions without a serviceAccount install as
  // config/default-installer's cluster-admin ServiceAccount (in the cluster, the component is
  // part of the overlay applied: up-in-cluster.ts).
  let defaultInstaller: string | undefined;
  if (options.mode === 'local' && inCluster === undefined) {
    const manifests = await readManifests(join(REPO_ROOT, 'config/default-installer'));
    for (const obj of manifests.filter((o) => !o.apiVersion.startsWith('kustomize.config.k8s.io/'))) {
      await kube.client.apply(obj, { fieldManager: UP_FIELD_MANAGER, force: true });
    }
    defaultInstaller = `${SYSTEM_NAMESPACE}/olmv1-default-installer`;
  }
  const logDir = join(stateDir, 'logs');
  let components: Components | undefined;
  if (inCluster === undefined) {
    progress('starting catalogd and operator-controller');
    components = await startComponents({
      repoRoot: REPO_ROOT,
      node: deps.node,
      kubeconfig,
      systemNamespace: SYSTEM_NAMESPACE,
      insecureRegistries: insecure,
      ...(defaultInstaller === undefined ? {} : { defaultInstaller }),
      logDir,
      workspace: ws,
      env: deps.env,
      featureGates: options.featureGates,
    });
    checkpoint(ctx);
  }

  const file: StackFile = {
    pid: process.pid,
    mode: options.mode,
    apiServer: stack.apiServer ?? '',
    kubeconfig: stack.kubeconfig ?? kubeconfig,
    ...(stack.kubectl === undefined ? {} : { kubectl: stack.kubectl }),
    ...(registry === undefined ? {} : { registry }),
    ...(stack.node === undefined ? {} : { node: stack.node }),
    ...(components === undefined
      ? {}
      : {
          catalogd: {
            url: components.catalogdUrl,
            healthUrl: components.catalogdHealthUrl,
            pid: components.catalogd.pid,
            log: join(logDir, 'catalogd.log'),
          },
          operatorController: {
            healthUrl: components.operatorControllerHealthUrl,
            pid: components.operatorController.pid,
            log: join(logDir, 'operator-controller.log'),
          },
        }),
    ports: components?.ports ?? [],
    ...(inCluster === undefined ? {} : { inCluster }),
    featureGates: options.featureGates,
  };
  if (catalogRef !== undefined) file.catalog = await publishCatalog(kube.client, catalogRef, ctx);
  if (webhookCatalogRef !== undefined) {
    const catalog = { apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', metadata: { name: WEBHOOK_CATALOG } };
    await kube.client.apply(
      { ...catalog, spec: { source: { type: 'Image', image: { ref: webhookCatalogRef } } } },
      { fieldManager: UP_FIELD_MANAGER, force: true },
    );
    progress(`ClusterCatalog ${WEBHOOK_CATALOG} (${webhookCatalogRef}) created`);
  }
  await writeStackFile(stateDir, file);
  ctx.cleanups.push(() => rm(join(stateDir, 'stack.json'), { force: true }));
  return { stack: file, components };
}

/** Creates the sample ClusterCatalog pointing at `ref` and waits until catalogd serves it. */
async function publishCatalog(client: KubeClient, ref: string, ctx: StartContext): Promise<NonNullable<StackFile['catalog']>> {
  const [sample] = await readManifests(join(REPO_ROOT, 'config/samples')).then((docs) => docs.filter((d) => d.kind === 'ClusterCatalog'));
  if (sample === undefined) throw new Error('config/samples has no ClusterCatalog');
  const name = sample.metadata?.name ?? '';
  ctx.progress(`creating ClusterCatalog ${name} (${ref}) and waiting until it is Serving`);
  await createCatalogFromSample(client, sample, ref);
  const base = await waitForServing(client, name, 120_000, ctx.signal).catch((err: unknown) => {
    checkpoint(ctx);
    throw err;
  });
  if (!ref.startsWith(`${EXAMPLE_REGISTRY}/`))
    ctx.progress(`note: the catalog is at ${ref}; config/samples/olm_v1_clustercatalog.yaml names ${EXAMPLE_REGISTRY}, do not apply that file`);
  return { name, ref, url: base };
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(new Stopped('stopped'));
    signal.addEventListener('abort', () => reject(new Stopped('stopped')), { once: true });
  });
}

/**
 * The console on the stack, when catalogd runs here (its catalog server is reachable from this
 * machine; in the cluster it is not, and the summary says how to start one): its URL, stopped
 * with the stack. A console that cannot start is a warning, not the stack's failure.
 */
async function startConsole(stack: StackFile, ctx: StartContext): Promise<string | undefined> {
  const start = ctx.deps.startConsole;
  if (start === undefined || stack.catalogd === undefined) return undefined;
  const stopping = new AbortController();
  ctx.cleanups.push(async () => stopping.abort());
  try {
    return await start(stack.kubeconfig, stack.catalogd.url, stopping.signal);
  } catch (err) {
    ctx.progress(`warning: the console did not start (${errorMessage(err)}); npm run -s olmv1 -- console starts one`);
    return undefined;
  }
}

/** Waits for a signal (exit code 0) or a component exiting (1, with its log tail). */
async function waitForStop(components: Components | undefined, signal: AbortSignal, progress: (line: string) => void, cwd: string): Promise<number> {
  const stopped = new Promise<'signal'>((resolve) => {
    if (signal.aborted) resolve('signal');
    signal.addEventListener('abort', () => resolve('signal'), { once: true });
  });
  // Node would exit with only unref'd children and no pending timer.
  const keepAlive = setInterval(() => {}, 60_000);
  try {
    const procs = components === undefined ? [] : [components.catalogd, components.operatorController];
    const first = await Promise.race([stopped, ...procs.map((p) => p.exited.then(() => p))]);
    if (first === 'signal') return EXIT.ok;
    progress(
      `${first.name} exited unexpectedly (${JSON.stringify(first.exitStatus())}); its log is ${relative(cwd, first.logPath)}:\n${first.logTail(30)}`,
    );
    return EXIT.failed;
  } finally {
    clearInterval(keepAlive);
  }
}
