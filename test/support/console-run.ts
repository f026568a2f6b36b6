/**
 * `olmv1 console`, the real command, run in the test's process as the kubeconfig's user: what
 * the browser tests open. Resolves with the URL it prints (with its session token) and what
 * stops it.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKubeconfigLookup, connectCluster } from '../../cmd/olmv1/cluster-access.ts';
import { fetchBundleFiles } from '../../cmd/olmv1/bundle-image.ts';
import { runConsole } from '../../cmd/olmv1/console.ts';
import { createCatalogClient } from '../../pkg/operator-controller/catalogclient/index.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** A console started by {@link startConsole}. */
export interface RunningConsole {
  url: string;
  /** Stops it (as SIGTERM would) and resolves once it ended. */
  stop(): Promise<void>;
}

/** Starts the console with `kubeconfig` (and `args`); rejects when it exits before printing its URL. */
export async function startConsole(kubeconfig: string, args: readonly string[] = []): Promise<RunningConsole> {
  let printed = '';
  let printedLine: (url: string) => void = () => undefined;
  const line = new Promise<string>((resolve) => (printedLine = resolve));
  const lookup = createKubeconfigLookup({}, tmpdir());
  const stopping = new AbortController();
  const catalogClient = createCatalogClient();
  const run = runConsole(
    ['--kubeconfig', kubeconfig, ...args],
    {
      stdout: {
        write: (s: string) => {
          printed += s;
          if (printed.includes('\n')) printedLine(printed.trim());
        },
      },
      stderr: { write: (s: string) => process.stderr.write(s) },
    },
    {
      signal: stopping.signal,
      catalogClient,
      connectCluster: (flags) => connectCluster(flags, lookup, 1),
      fetchBundle: (ref, access) => fetchBundleFiles(ref, { insecureRegistries: ['127.0.0.1', 'localhost'], ...access }),
      cacheDir: join(tmpdir(), 'olmv1-console-test-bundle'),
      lockFile: join(REPO, 'package-lock.json'),
    },
  );
  const stop = async (): Promise<void> => {
    stopping.abort('SIGTERM');
    await run;
    catalogClient.close();
  };
  try {
    const url = await Promise.race([line, run.then((code) => Promise.reject(new Error(`olmv1 console exited with ${code}`)))]);
    return { url, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
