/**
 * `olmv1 console`: serves the web console (pkg/olmv1/console) on 127.0.0.1 with the identity of
 * the user's kubeconfig (resolved as every olmv1 command resolves it) until Ctrl-C; prints the
 * URL with the session token.
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { CLUSTER_EXTENSION } from '../../pkg/shared/api/index.ts';
import { ensureBundle, startConsole } from '../../pkg/olmv1/console/index.ts';
import { CLUSTER_FLAGS, CLUSTER_FLAGS_HELP, clusterFlags } from './cluster-access.ts';
import { listClusterCatalogs, urlCatalog, type CatalogSourceDeps } from './catalog-sources.ts';
import { type CommandIO, signalExitCode } from './io.ts';
import { CommandError, parseCommandLine, runCommand } from './render.ts';

const USAGE = `Usage: olmv1 console [--port PORT] [--catalogd-url URL] [flags]

Serves a web console (OperatorHub, package pages with upgrade graphs, installed extensions) on
127.0.0.1 until Ctrl-C. It acts only as the user of the kubeconfig: every read goes to the API
server (and catalogd) with that identity; the console has no privilege of its own.

Flags:
  --port PORT                 port on 127.0.0.1 (default 0: a free port)
  --catalogd-url URL          reach catalogd at this origin instead of the host in the
                              ClusterCatalogs' status.urls.base (e.g. a port-forward)
${CLUSTER_FLAGS_HELP}
  -h, --help                  show this help

Output:
  stdout: the console's URL with a one-time session token; open it in a browser. Without the
  token the console serves nothing.
  stderr: problems while serving.

Exit codes:
  0    never (it serves until stopped)
  1    no kubeconfig, or the port is unavailable
  2    usage error
  130  stopped by SIGINT (Ctrl-C), 143 by SIGTERM`;

/** What `olmv1 console` needs from outside (composed in commands.ts). */
interface ConsoleDeps extends Pick<CatalogSourceDeps, 'catalogClient' | 'connectCluster'> {
  /** Aborted by SIGINT/SIGTERM; its reason is the signal's name. */
  signal: AbortSignal;
  /** Where the browser bundle is built and kept. */
  cacheDir: string;
  /** The package lock whose content keys the bundle. */
  lockFile: string;
}

/** Runs the console until `deps.signal` aborts. */
export async function runConsole(args: string[], io: CommandIO, deps: ConsoleDeps): Promise<number> {
  return runCommand(io, async () => {
    const parsed = parseCommandLine(args, USAGE, { ...CLUSTER_FLAGS, port: { type: 'string' }, 'catalogd-url': { type: 'string' } });
    if (parsed.positionals.length > 0) throw new CommandError(`unexpected argument ${JSON.stringify(parsed.positionals[0])}\n${USAGE}`, 2);
    const rawPort = parsed.values.port ?? '0';
    const port = /^\d{1,5}$/.test(rawPort) ? Number(rawPort) : -1;
    if (port < 0 || port > 65535) throw new CommandError(`invalid --port ${JSON.stringify(rawPort)} (want 0-65535)\n${USAGE}`, 2);
    let catalogdUrl: URL | undefined;
    const rawUrl = parsed.values['catalogd-url'];
    if (rawUrl !== undefined) {
      catalogdUrl = URL.canParse(rawUrl) ? new URL(rawUrl) : undefined;
      if (catalogdUrl === undefined || !/^https?:$/.test(catalogdUrl.protocol))
        throw new CommandError(`invalid --catalogd-url ${JSON.stringify(rawUrl)} (want http(s)://HOST[:PORT])\n${USAGE}`, 2);
    }
    const kube = await deps.connectCluster(clusterFlags(parsed.values, USAGE));
    try {
      const assetsDir = await ensureBundle({ cacheDir: deps.cacheDir, lockFile: deps.lockFile });
      const token = randomBytes(32).toString('base64url');
      const running = await startConsole({
        port,
        token,
        csrfToken: randomBytes(32).toString('base64url'),
        assetsDir,
        log: pino({ level: 'warn' }, pino.destination(2)),
        catalogTtlMs: 30_000,
        now: () => Date.now(),
        sources: {
          listCatalogs: (signal) => listClusterCatalogs(kube, catalogdUrl, signal),
          loadCatalog: (name, url, signal) => urlCatalog(name, url, deps.catalogClient, signal),
          listExtensions: async (signal) => (await kube.client.listAll(CLUSTER_EXTENSION, { signal })).items,
        },
      }).catch((e: unknown) => {
        throw new CommandError(`cannot serve the console on 127.0.0.1:${port}: ${(e as Error).message}`, 1);
      });
      io.stdout.write(`${running.origin}/?token=${token}\n`);
      await new Promise<void>((resolve) => {
        if (deps.signal.aborted) resolve();
        deps.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      await running.close();
      return signalExitCode(deps.signal.reason);
    } finally {
      kube.close();
    }
  });
}
