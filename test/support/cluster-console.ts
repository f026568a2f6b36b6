/**
 * `olmv1 console --in-cluster`, the real command, run in the test's process on 127.0.0.1 over
 * HTTPS with a self-signed certificate, and the Chromium the in-cluster console tests open it in.
 * The kubeconfig gives the API server's address and CA only: every request is the signed-in user's.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { vi } from 'vitest';
import { createKubeconfigLookup, connectCluster } from '../../cmd/olmv1/cluster-access.ts';
import { runClusterConsole } from '../../cmd/olmv1/console-in-cluster.ts';
import { createSelfSignedCertificate } from '../../pkg/olmv1/localstack/index.ts';
import { createCatalogClient } from '../../pkg/operator-controller/catalogclient/index.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** A port of 127.0.0.1 free a moment ago. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** A console started by {@link startClusterConsole}: its run (resolving with the exit code once `signal` aborts) and the browser. */
export interface ClusterConsole {
  run: Promise<number>;
  browser: Browser;
}

/**
 * Starts the console on `https://127.0.0.1:<port>` with `args` after the common ones, and
 * Chromium; resolves once its sign-in page answers (the UI may be built on first use). What it
 * made to remove afterwards goes to `cleanup`.
 */
export async function startClusterConsole(o: {
  kubeconfig: string;
  port: number;
  args?: readonly string[];
  signal: AbortSignal;
  cleanup: (() => Promise<unknown>)[];
}): Promise<ClusterConsole> {
  const dir = await mkdtemp(join(tmpdir(), 'cluster-console-'));
  o.cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const cert = await createSelfSignedCertificate(dir, { name: 'serving', commonName: '127.0.0.1', ipAddresses: ['127.0.0.1'] });
  const catalogClient = createCatalogClient();
  o.cleanup.push(async () => catalogClient.close());
  const lookup = createKubeconfigLookup({}, tmpdir());
  const run = runClusterConsole(
    [
      '--in-cluster',
      `--kubeconfig=${o.kubeconfig}`,
      `--listen=127.0.0.1:${o.port}`,
      `--tls-cert=${cert.certPath}`,
      `--tls-key=${cert.keyPath}`,
      ...(o.args ?? []),
    ],
    { stdout: { write: () => true }, stderr: { write: (s: string) => process.stderr.write(s) } },
    {
      signal: o.signal,
      catalogClient,
      connectCluster: (flags) => connectCluster(flags, lookup, 1),
      cacheDir: join(tmpdir(), 'olmv1-console-test-bundle'),
      lockFile: join(REPO, 'package-lock.json'),
      serviceHost: undefined,
      servicePort: undefined,
    },
  );
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const probe = await browser.newContext({ ignoreHTTPSErrors: true });
  await vi.waitFor(
    async () => {
      const res = await probe.request.get(`https://127.0.0.1:${o.port}/signin`);
      if (res.status() !== 200) throw new Error(`sign-in page: ${res.status()}`);
    },
    { timeout: 120_000, interval: 250 },
  );
  await probe.close();
  return { run, browser };
}
