/**
 * The command table: words -> a loader that builds the command with its dependencies.
 * Dependencies are composed here, next to main.ts, and nowhere else.
 */
import type { Command, CommandIO } from './io.ts';

interface Entry {
  summary: string;
  load(): Promise<Command>;
}

/** Every `olmv1` command, keyed by its command words. */
export const commands = new Map<string, Entry>(
  Object.entries({
    'catalog validate': {
      summary: 'validate a file-based catalog directory (like opm validate)',
      load: async () => (await import('./catalog-validate.ts')).runCatalogValidate,
    },
    'catalog serve': {
      summary: 'serve catalog directories over the catalogd HTTP API, no cluster needed',
      load: async () => {
        const [{ runCatalogServe }, { tmpdir }] = await Promise.all([import('./catalog-serve.ts'), import('node:os')]);
        return (args, io) => runCatalogServe(args, io, { signal: shutdownSignal(), tmpDir: tmpdir() });
      },
    },
    console: {
      summary: 'serve a web console (OperatorHub, packages, installed extensions) on 127.0.0.1 with your kubeconfig identity',
      load: async () => {
        const run = await consoleRunner();
        return (args, io) => run(args, io, shutdownSignal());
      },
    },
    'catalog push': {
      summary: 'validate a catalog directory, build its image without Docker and push it',
      load: async () => {
        const { runCatalogPush } = await import('./catalog-push.ts');
        return async (args, io) => runCatalogPush(args, io, await registrySettings());
      },
    },
    'catalog mirror': {
      summary:
        'copy a catalog image, its bundles and their related images (with signatures) to a mirror registry, and write the mirror configuration',
      load: async () => {
        const { runCatalogMirror } = await import('./catalog-mirror.ts');
        return async (args, io) => runCatalogMirror(args, io, { ...(await registrySettings()), signal: shutdownSignal() });
      },
    },
    'bundle push': {
      summary: 'check a registry+v1 bundle directory, build its bundle image without Docker and push it',
      load: async () => {
        const { runBundlePush } = await import('./bundle-push.ts');
        return async (args, io) => runBundlePush(args, io, await registrySettings());
      },
    },
    'catalog list': {
      summary: 'list the packages of catalogs (cluster, catalogd URL or directory): channels, versions, deprecations, installability',
      load: async () => {
        const { runCatalogList } = await import('./catalog-list.ts');
        return catalogCommand((args, io, deps) => runCatalogList(args, io, { ...deps, now: () => Date.now() }, false));
      },
    },
    'catalog search': {
      summary: 'find packages by name, description or keywords in catalogs (cluster, catalogd URL or directory)',
      load: async () => {
        const { runCatalogList } = await import('./catalog-list.ts');
        return catalogCommand((args, io, deps) => runCatalogList(args, io, { ...deps, now: () => Date.now() }, true));
      },
    },
    'catalog add': {
      summary: 'create a ClusterCatalog from a catalog image and wait until catalogd serves it',
      load: async () => clusterCatalogCommand('add'),
    },
    'catalog update': {
      summary: 'change the image, priority, poll interval, availability or labels of a ClusterCatalog (only those given)',
      load: async () => clusterCatalogCommand('update'),
    },
    'catalog remove': {
      summary: 'delete a ClusterCatalog and wait until it is gone',
      load: async () => clusterCatalogCommand('remove'),
    },
    catalogs: {
      summary: 'list the ClusterCatalogs of the cluster: availability, priority, serving, image',
      load: async () => clusterCatalogCommand('list'),
    },
    'policy allow': {
      summary: 'write an ExtensionPolicy: which namespaces may install which packages by Extensions (TenantExtensions)',
      load: async () => policyCommand('allow'),
    },
    'policy remove': {
      summary: 'delete an ExtensionPolicy',
      load: async () => policyCommand('remove'),
    },
    policies: {
      summary: 'list the ExtensionPolicies: namespaces, packages and ranges, catalogs, install modes, upgrades',
      load: async () => policyCommand('list'),
    },
    available: {
      summary: "as a namespace's admin: the packages and versions the ExtensionPolicies let it install from what the catalogs serve",
      load: async () => {
        const { runAvailable } = await import('./tenant-views.ts');
        return catalogCommand((args, io, deps) => runAvailable(args, io, deps));
      },
    },
    extensions: {
      summary: "a namespace's Extensions (tenant install requests): what each asks, whether a policy allows it, what is installed",
      load: async () => {
        const [{ runExtensions }, { connectCluster }] = await Promise.all([import('./tenant-views.ts'), import('./cluster-access.ts')]);
        const lookup = await kubeconfigLookup();
        return (args, io) => runExtensions(args, io, { connectCluster: (flags) => connectCluster(flags, lookup, 1) });
      },
    },
    up: {
      summary: 'run a control plane, a registry with an example catalog, catalogd and operator-controller locally until Ctrl-C',
      load: upCommand,
    },
    'local-stack': {
      summary: 'same as up',
      load: upCommand,
    },
    resolve: {
      summary: 'show which bundle a ClusterExtension would get (FBC directories, catalogd URLs, or --cluster EXTENSION)',
      load: async () => {
        const { runResolve } = await import('./resolve.ts');
        return catalogCommand((args, io, { catalogContent, ...deps }) =>
          runResolve(args, io, {
            loadCatalogDir: deps.loadCatalogDir,
            loadCatalogPackage: (url, pkg) => catalogContent.getPackage({ name: url, baseURL: url, digestRef: url }, pkg),
            connectCluster: deps.connectCluster,
            catalogContent,
          }),
        );
      },
    },
    install: {
      summary: 'install a package with least privilege: namespace, ServiceAccount, exactly the RBAC its bundle needs, ClusterExtension',
      load: async () => extensionCommand('install'),
    },
    uninstall: {
      summary: 'delete a ClusterExtension, wait until it is gone, then the ServiceAccount and RBAC install created for it',
      load: async () => extensionCommand('uninstall'),
    },
    update: {
      summary: "change a ClusterExtension's version range, channels, catalog selector or upgradeConstraintPolicy",
      load: async () => extensionCommand('update'),
    },
    'upgrade plan': {
      summary: 'show what the next upgrade of an installed ClusterExtension will do: pick, objects, permissions, CRDs, policy',
      load: async () => upgradeCommand('plan'),
    },
    'upgrade approve': {
      summary: 'approve the upgrade the update policy holds: annotate the ClusterExtension with the picked bundle',
      load: async () => upgradeCommand('approve'),
    },
    'render bundle': {
      summary: 'render a registry+v1 bundle (directory or image) to the plain manifests OLM applies',
      load: async () => {
        const { runRenderBundle } = await import('./render.ts');
        return (args, io) => runRenderBundle(args, io, { fetchBundle, defaultAuthFile: defaultAuthFile() });
      },
    },
    rbac: {
      summary: "print the minimal RBAC an extension's ServiceAccount needs for a bundle",
      load: async () => {
        const { runRbac } = await import('./rbac.ts');
        return (args, io) => runRbac(args, io, { fetchBundle, defaultAuthFile: defaultAuthFile() });
      },
    },
    release: {
      summary: 'show the release records of ClusterExtensions (list, history, get)',
      load: async () => {
        const { runRelease } = await import('./release.ts');
        const kubeconfig = await kubeconfigLookup();
        return (args, io) => runRelease(args, io, { kubeconfig });
      },
    },
    'release rollback': {
      summary: "make a ClusterExtension go back to a recorded revision's bundle (declaratively, CRD-safety checked)",
      load: async () => {
        // The catalogs are read to check that the patched spec still resolves.
        const { runReleaseRollback } = await import('./release-rollback.ts');
        return catalogCommand(runReleaseRollback);
      },
    },
    'migrate to-upstream': {
      summary: "prepare the cluster for upstream's operator-controller once ours is stopped (our finalizer and annotations removed)",
      load: async () => {
        const [{ runMigrateToUpstream }, { connectCluster }] = await Promise.all([import('./to-upstream.ts'), import('./cluster-access.ts')]);
        const kubeconfig = await kubeconfigLookup();
        return (args, io) =>
          runMigrateToUpstream(args, io, { connectCluster: (flags) => connectCluster(flags, kubeconfig, 1), now: () => Date.now() });
      },
    },
    status: {
      summary: 'catalogs, extensions and whether the cluster may upgrade to its next minor version (exit 0 allowed, 1 blocked)',
      load: async () => {
        const { runStatus } = await import('./status.ts');
        const noColor = (process.env.NO_COLOR ?? '') !== '';
        const kubeconfig = await kubeconfigLookup();
        return (args, io) => {
          // Only --watch runs until Ctrl-C; it then exits with the last verdict.
          const stop = new AbortController();
          if (args.includes('--watch') || args.includes('-w')) process.once('SIGINT', () => stop.abort());
          return runStatus(args, io, {
            kubeconfig,
            isTTY: process.stdout.isTTY === true,
            columns: process.stdout.columns,
            noColor,
            signal: stop.signal,
          });
        };
      },
    },
  }),
);

/** `olmv1 upgrade plan` or `upgrade approve`, reading catalogs through catalogd and pulling bundles as `render bundle` does. */
async function upgradeCommand(which: 'plan' | 'approve'): Promise<Command> {
  const { runUpgradePlan, runUpgradeApprove } = await import('./upgrade.ts');
  const run = which === 'plan' ? runUpgradePlan : runUpgradeApprove;
  return catalogCommand((args, io, deps) => run(args, io, { ...deps, fetchBundle, defaultAuthFile: defaultAuthFile() }));
}

/** `olmv1 install`, `uninstall` or `update`: the cluster, catalogd's content and bundle pulls as `resolve --cluster` and `rbac` have them. */
async function extensionCommand(which: 'install' | 'uninstall' | 'update'): Promise<Command> {
  const [{ runInstall }, { runUninstall }, { runUpdate }] = await Promise.all([
    import('./install.ts'),
    import('./uninstall.ts'),
    import('./update.ts'),
  ]);
  const run = { install: runInstall, uninstall: runUninstall, update: runUpdate }[which];
  return catalogCommand((args, io, deps) => run(args, io, { ...deps, ...clock(), fetchBundle, defaultAuthFile: defaultAuthFile() }));
}

/** `olmv1 catalog add`, `catalog update`, `catalog remove` or `catalogs`: the cluster only. */
async function clusterCatalogCommand(which: 'add' | 'update' | 'remove' | 'list'): Promise<Command> {
  const [{ runCatalogAdd, runCatalogRemove, runCatalogs }, { runCatalogUpdate }, { connectCluster }] = await Promise.all([
    import('./catalog-admin.ts'),
    import('./catalog-update.ts'),
    import('./cluster-access.ts'),
  ]);
  const lookup = await kubeconfigLookup();
  const deps = { connectCluster: (flags: import('./cluster-access.ts').ClusterFlags) => connectCluster(flags, lookup, 1), ...clock() };
  const run = { add: runCatalogAdd, update: runCatalogUpdate, remove: runCatalogRemove, list: runCatalogs }[which];
  return (args, io) => run(args, io, deps);
}

/** `olmv1 policy allow`, `policy remove` or `policies`: the cluster only. */
async function policyCommand(which: 'allow' | 'remove' | 'list'): Promise<Command> {
  const [{ runPolicyAllow, runPolicyRemove, runPolicies }, { connectCluster }] = await Promise.all([
    import('./policy.ts'),
    import('./cluster-access.ts'),
  ]);
  const lookup = await kubeconfigLookup();
  const deps = { connectCluster: (flags: import('./cluster-access.ts').ClusterFlags) => connectCluster(flags, lookup, 1) };
  const run = { allow: runPolicyAllow, remove: runPolicyRemove, list: runPolicies }[which];
  return (args, io) => run(args, io, deps);
}

/** Timers for the commands that wait (tests pass their own). */
function clock() {
  return { sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)), now: () => Date.now() };
}

type CatalogDeps = import('./catalog-sources.ts').CatalogSourceDeps & {
  catalogContent: import('../../pkg/operator-controller/catalogclient/index.ts').CatalogContentCache;
};

/** A command over {@link catalogSourceDeps}; catalogd's client is closed when it ends. */
async function catalogCommand(run: (args: string[], io: import('./io.ts').CommandIO, deps: CatalogDeps) => Promise<number>): Promise<Command> {
  const deps = await catalogSourceDeps();
  return async (args, io) => {
    try {
      return await run(args, io, deps);
    } finally {
      deps.catalogClient.close();
    }
  };
}

/** What the catalog commands read catalogs with: pkg/shared/fbc for directories, catalogd's client (through the proxy variables), the cluster. */
async function catalogSourceDeps(): Promise<CatalogDeps> {
  const [{ loadFS }, { createCatalogClient, createCatalogContentCache }, { connectCluster }, { statSync }] = await Promise.all([
    import('../../pkg/shared/fbc/index.ts'),
    import('../../pkg/operator-controller/catalogclient/index.ts'),
    import('./cluster-access.ts'),
    import('node:fs'),
  ]);
  const lookup = await kubeconfigLookup();
  const catalogClient = createCatalogClient(await environmentProxy());
  return {
    loadCatalogDir: (dir) => loadFS(dir),
    isDirectory: (path) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true,
    catalogClient,
    connectCluster: (flags) => connectCluster(flags, lookup, 1),
    // Falls back to /api/v1/all where catalogd does not serve /api/v1/metas.
    catalogContent: createCatalogContentCache({ client: catalogClient }),
  };
}

/** Aborted by the first SIGINT or SIGTERM (the reason is its name); a second one ends the process by default. */
function shutdownSignal(): AbortSignal {
  const ac = new AbortController();
  const on = (name: 'SIGINT' | 'SIGTERM') => () => {
    process.removeListener('SIGINT', onInt);
    process.removeListener('SIGTERM', onTerm);
    ac.abort(name);
  };
  const onInt = on('SIGINT');
  const onTerm = on('SIGTERM');
  process.once('SIGINT', onInt);
  process.once('SIGTERM', onTerm);
  return ac.signal;
}

/** Reads a bundle image with the image client (see bundle-image.ts). */
async function fetchBundle(
  ref: string,
  access: import('./registry-access.ts').RegistryAccess & { limits: import('../../pkg/shared/image/index.ts').ImageLimits },
): Promise<Map<string, Buffer>> {
  const { fetchBundleFiles } = await import('./bundle-image.ts');
  const { registriesConfPaths } = await import('../shared/registries-conf.ts');
  const { signaturePolicyPaths } = await import('../shared/signature-policy.ts');
  return fetchBundleFiles(ref, {
    insecureRegistries: insecureRegistries(),
    registriesConf: registriesConfPaths(process.env),
    // The same policy files, in the same order, as catalogd and operator-controller (decision 0116).
    signaturePolicy: signaturePolicyPaths(process.env),
    ...access,
    ...(await environmentProxy()),
  });
}

/**
 * The environment's proxy for registry traffic, as Go programs use it.
 * @throws Error naming the variable when its value is not a usable proxy.
 */
async function environmentProxy(): Promise<{ proxy?: import('../../pkg/shared/nodehttp/index.ts').ProxySelector }> {
  const { proxySelector, readProxyEnvironment } = await import('../shared/proxy.ts');
  const proxy = proxySelector(readProxyEnvironment(process.env));
  return proxy === undefined ? {} : { proxy };
}

/** How the image commands reach registries: the environment's insecure registries, auth file and proxy. */
async function registrySettings(): Promise<
  { insecureRegistries: string[]; defaultAuthFile: string | undefined } & Awaited<ReturnType<typeof environmentProxy>>
> {
  return { insecureRegistries: insecureRegistries(), defaultAuthFile: defaultAuthFile(), ...(await environmentProxy()) };
}

/** Registries the CLI may reach without TLS: loopback and `OLMV1_INSECURE_REGISTRIES` (comma-separated host[:port]). */
function insecureRegistries(): string[] {
  const listed = (process.env.OLMV1_INSECURE_REGISTRIES ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return ['localhost', '127.0.0.1', '[::1]', ...listed];
}

/** The Docker config.json the image commands read credentials from unless --authfile is given. */
function defaultAuthFile(): string | undefined {
  if (process.env.REGISTRY_AUTH_FILE !== undefined && process.env.REGISTRY_AUTH_FILE !== '') return process.env.REGISTRY_AUTH_FILE;
  const dockerConfig = process.env.DOCKER_CONFIG ?? (process.env.HOME === undefined ? undefined : `${process.env.HOME}/.docker`);
  return dockerConfig === undefined ? undefined : `${dockerConfig}/config.json`;
}

/** Where a command finds the cluster without --kubeconfig (cluster-access.ts). */
async function kubeconfigLookup(): Promise<import('./cluster-access.ts').KubeconfigLookup> {
  const { createKubeconfigLookup } = await import('./cluster-access.ts');
  return createKubeconfigLookup({ KUBECONFIG: process.env.KUBECONFIG, HOME: process.env.HOME }, process.cwd());
}

/** `olmv1 up` with what it needs from the process. */
async function upCommand(): Promise<Command> {
  const { runUp } = await import('./up.ts');
  const deps = {
    env: process.env,
    cwd: process.cwd(),
    node: process.execPath,
    insecureRegistries: insecureRegistries(),
    signals: process,
    // The console on the stack: its URL is the line the console prints, which the summary shows.
    startConsole: async (kubeconfig: string, catalogdUrl: string, signal: AbortSignal): Promise<string> => {
      const run = await consoleRunner();
      let printed = '';
      let url: (line: string) => void = () => undefined;
      const line = new Promise<string>((resolve) => (url = resolve));
      const stdout = {
        write: (chunk: string): boolean => {
          printed += chunk;
          if (printed.includes('\n')) url(printed.trim());
          return true;
        },
      };
      const exited = run(['--kubeconfig', kubeconfig, '--catalogd-url', catalogdUrl], { stdout, stderr: process.stderr }, signal);
      return Promise.race([line, exited.then((code) => Promise.reject(new Error(`olmv1 console exited with ${code}`)))]);
    },
  };
  return (args, io) => runUp(args, io, deps);
}

/** `olmv1 console` with its dependencies: the catalogs, bundle pulls and credentials every command gets, and its UI build cache. */
async function consoleRunner(): Promise<(args: string[], io: CommandIO, signal: AbortSignal) => Promise<number>> {
  const [{ runConsole }, deps] = await Promise.all([import('./console.ts'), catalogSourceDeps()]);
  const { homedir } = await import('node:os');
  const cacheDir = `${process.env.XDG_CACHE_HOME || `${homedir()}/.cache`}/olmv1/console`;
  const lockFile = new URL('../../package-lock.json', import.meta.url).pathname;
  return async (args, io, signal) => {
    try {
      const all = { ...deps, signal, cacheDir, lockFile, fetchBundle, defaultAuthFile: defaultAuthFile() };
      if (args.includes('--in-cluster')) {
        const { runClusterConsole } = await import('./console-in-cluster.ts');
        const service = { serviceHost: process.env.KUBERNETES_SERVICE_HOST, servicePort: process.env.KUBERNETES_SERVICE_PORT };
        return await runClusterConsole(args, io, { ...all, ...service });
      }
      return await runConsole(args, io, all);
    } finally {
      deps.catalogClient.close();
    }
  };
}

/** The help text listing every command. */
export function usage(): string {
  const width = Math.max(...[...commands.keys()].map((k) => k.length));
  const lines = [...commands].map(([k, e]) => `  ${k.padEnd(width)}  ${e.summary}`);
  return `Usage: olmv1 <command> [arguments]
       olmv1 --version

Commands:
${lines.join('\n')}

Run "olmv1 <command> --help" for what a command does, its flags, its output and its exit codes.
Results go to stdout, progress and errors to stderr. Exit codes: 0 success, 1 the operation
failed, 2 usage error; 130/143 stopped by SIGINT/SIGTERM.
`;
}
