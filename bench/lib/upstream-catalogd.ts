/**
 * The optional upstream side of the serving benchmarks: upstream catalogd's storage server,
 * built by the person running the bench from upstream's sources (nothing of it is in this
 * repository). `OLMV1_BENCH_UPSTREAM_CATALOGD` names the binary; without it the benchmarks
 * measure ours only.
 *
 * The binary's contract, as the metas and all benchmarks use it:
 * `BINARY -addr 127.0.0.1:0 -root STOREDIR NAME=FBCDIR ...` stores each FBC directory, serves
 * `/catalogs/NAME/api/v1/{all,metas}` over plain HTTP and prints `listening HOST:PORT MS` on
 * stdout once it serves. Given no NAME=FBCDIR, it serves what STOREDIR already holds (the
 * startup benchmark's restart on stored content; upstream's store reads its files per request,
 * so nothing is loaded first). It runs as upstream ships it (its per-request log line included,
 * which goes to /dev/null here), with the Go runtime's default of one thread per core.
 */
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { freePorts } from '../../test/envtest/index.ts';
import type { CatalogServer } from './catalog-server.ts';
import { type Started, startProcess, timeToOk } from './startup-runs.ts';

/** The binary named by OLMV1_BENCH_UPSTREAM_CATALOGD, or undefined when none is. */
export function upstreamCatalogdBinary(): string | undefined {
  const bin = process.env.OLMV1_BENCH_UPSTREAM_CATALOGD;
  return bin === undefined || bin === '' ? undefined : bin;
}

/**
 * Starts upstream's storage server over `catalogs` (name -> FBC directory) with its store under
 * a fresh directory in `workDir`; resolves once it serves.
 */
export async function startUpstreamCatalogd(binary: string, workDir: string, catalogs: Record<string, string>): Promise<CatalogServer> {
  const root = await mkdtemp(join(workDir, 'upstream-store-'));
  const args = ['-addr', '127.0.0.1:0', '-root', root, ...Object.entries(catalogs).map(([name, dir]) => `${name}=${dir}`)];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    const origin = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error('upstream catalogd did not serve within 180 s')), 180_000);
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        const m = /^listening (\S+:\d+)/m.exec(out);
        if (m === null) return;
        clearTimeout(timer);
        resolve(`http://${m[1] ?? ''}`);
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`upstream catalogd exited (code ${child.exitCode}) before serving`));
      });
    });
    return { pid: child.pid ?? -1, origin, baseURL: (name) => `${origin}/catalogs/${name}`, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Upstream's storage server over its own store of one catalog, started as a restart would be. */
export interface UpstreamRestart {
  allUrl: string;
  start(): Started;
}

/**
 * Has upstream's storage server store the FBC directory `fbcDir` as catalog `name` once, and
 * returns how to start it again on that store (the startup benchmark): with no catalog
 * arguments it serves what is stored. Plain HTTP.
 */
export async function prepareUpstreamRestart(
  binary: string,
  fbcDir: string,
  name: string,
  ctx: { workDir: string; log(line: string): void },
): Promise<UpstreamRestart> {
  const root = await mkdtemp(join(ctx.workDir, 'upstream-restart-'));
  const [port = 0] = await freePorts(1);
  const args = ['-addr', `127.0.0.1:${port}`, '-root', root];
  const allUrl = `http://127.0.0.1:${port}/catalogs/${name}/api/v1/all`;
  ctx.log("storing the catalog once in upstream's storage server");
  const first = startProcess(binary, [...args, `${name}=${fbcDir}`]);
  try {
    await timeToOk(first, allUrl, 180_000);
  } finally {
    await first.stop();
  }
  return { allUrl, start: () => startProcess(binary, args) };
}
