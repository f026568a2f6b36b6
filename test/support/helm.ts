/**
 * The helm CLI built for the test run (test/envtest/deferred-tools.ts, `envtestHelm`) against the
 * run's control plane (or a given one), each call with an empty home of its own so nothing of the user's helm
 * configuration is read; the home is removed when helm exits.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { envtestHelm } from '../envtest/deferred-tools.ts';

// Awaited while vitest imports the test file, where no timeout applies: the global setup may still
// be building helm in the background (test/envtest/deferred-tools.ts).
const helmBinary = await envtestHelm();

/** What a helm run printed and its exit code. */
export interface HelmRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `helm args...` against the run's shared control plane; resolves whatever its exit code. */
export function helm(...args: string[]): Promise<HelmRun> {
  return helmWith(inject('envtestControlPlane').kubeconfigPath, ...args);
}

/** Runs `helm args...` against the API server of `kubeconfigPath` (e.g. a test file's own control plane). */
export async function helmWith(kubeconfigPath: string, ...args: string[]): Promise<HelmRun> {
  const home = await mkdtemp(join(tmpdir(), 'helm-home-'));
  const env = {
    PATH: process.env['PATH'] ?? '',
    HOME: home,
    HELM_CACHE_HOME: join(home, 'cache'),
    HELM_CONFIG_HOME: join(home, 'config'),
    HELM_DATA_HOME: join(home, 'data'),
    KUBECONFIG: kubeconfigPath,
  };
  try {
    return await new Promise((resolve) => {
      execFile(helmBinary, args, { env, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code, stdout, stderr });
      });
    });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
