/**
 * `olmv1 catalog serve NAME=DIR...`: the catalogd HTTP API over local FBC directories, each
 * ingested as catalogd ingests an image (pkg/catalogd/storage); a directory that does not load
 * ends the command before anything is served. A signal stops it at any moment (an ingest process
 * is killed); the temporary content store is removed in every case.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { Registry } from 'prom-client';
import { LocalDirStore, createProcessIngest } from '../../pkg/catalogd/storage/index.ts';
import { buildCatalogServer } from '../../pkg/catalogd/server/index.ts';
import { dns1123SubdomainErrors } from '../../pkg/shared/k8sname/index.ts';
import { errorMessage } from '../../pkg/shared/errors/index.ts';
import { parseListenAddress } from '../shared/flags.ts';
import { DECODE_LIMIT_FLAGS, decodeLimitHelp, decodeLimitOptions } from '../shared/limits.ts';
import { type CommandIO, EXIT, signalExitCode } from './io.ts';

const HELP = `Usage: olmv1 catalog serve NAME=DIR [NAME=DIR ...] [--listen HOST:PORT]

Serves each file-based catalog directory DIR as catalog NAME over the catalogd HTTP API, no
cluster needed, until Ctrl-C (SIGINT) or SIGTERM:
  GET /catalogs/NAME/api/v1/all
  GET /catalogs/NAME/api/v1/metas?schema=&package=&name=
Each directory is read and stored exactly as catalogd stores a catalog image's content; NAMEs
must be distinct DNS subdomain names.

Flags:
  --listen HOST:PORT          address to listen on (default 127.0.0.1:8080)
${decodeLimitHelp(30)}  -h, --help                  show this help

SIZE is a number of bytes, optionally with a suffix (Ki, Mi, Gi, or k, M, G).

Output:
  stdout: nothing. stderr: progress while loading each catalog, then the URL of each catalog
  once serving, and any error.

Exit codes:
  0    never (it serves until stopped)
  1    a catalog did not load (the error names the file), or the address is unavailable
  2    usage error
  130  stopped by SIGINT (Ctrl-C), 143 by SIGTERM, at any moment
`;

/** What the composition root provides. */
export interface CatalogServeDeps {
  /** Aborted by SIGINT/SIGTERM; its reason is the signal's name. */
  signal: AbortSignal;
  /** Where the temporary content store is created (and removed again). */
  tmpDir: string;
  /** How often progress is printed while a catalog loads; default 2 s. */
  progressIntervalMs?: number;
}

/** Runs until `deps.signal` aborts; resolves with the exit code. */
export async function runCatalogServe(args: string[], io: CommandIO, deps: CatalogServeDeps): Promise<number> {
  let parsed;
  let limits;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { listen: { type: 'string' }, help: { type: 'boolean', short: 'h' }, ...DECODE_LIMIT_FLAGS },
    });
    limits = decodeLimitOptions(parsed.values);
  } catch (err) {
    io.stderr.write(`${errorMessage(err)}\n\n${HELP}`);
    return EXIT.usage;
  }
  if (parsed.values.help === true) {
    io.stdout.write(HELP);
    return EXIT.ok;
  }
  const listen = parseListen(parsed.values.listen ?? '127.0.0.1:8080');
  const catalogs = parseCatalogArgs(parsed.positionals);
  const usageError = 'error' in listen ? listen.error : 'error' in catalogs ? catalogs.error : undefined;
  if (usageError !== undefined || 'error' in listen || 'error' in catalogs) {
    io.stderr.write(`${usageError}\n\n${HELP}`);
    return EXIT.usage;
  }

  const { signal } = deps;
  const stopped = (): number => {
    io.stderr.write('stopped\n');
    return signalExitCode(signal.reason);
  };
  const logger = pino({ level: 'warn' }, pino.destination(2));
  const root = await mkdtemp(join(deps.tmpDir, 'olmv1-serve-'));
  const store = new LocalDirStore({ root, ingest: createProcessIngest({ limits }), logger });
  try {
    await store.open();
    for (const c of catalogs) {
      if (signal.aborted) return stopped();
      const dir = resolve(c.dir);
      if (!(await stat(dir).catch(() => undefined))?.isDirectory()) {
        io.stderr.write(`catalog ${c.name}: ${JSON.stringify(c.dir)} is not a directory\n`);
        return EXIT.failed;
      }
      const digest = `sha256:${createHash('sha256').update(dir).digest('hex')}`;
      const loading = reportProgress(io, c.name, dir, root, deps.progressIntervalMs ?? 2000);
      try {
        // The signal kills the ingest process and removes what it wrote (LocalDirStore.store).
        const version = await store.store(c.name, { digest, ref: dir, unpackedAt: new Date().toISOString() }, { fbcDir: dir }, { signal });
        loading.done(`${(version.sizes.jsonl / 1e6).toFixed(1)} MB of content`);
      } catch (err) {
        loading.done(undefined);
        if (signal.aborted) return stopped();
        io.stderr.write(`catalog ${c.name}: ${errorMessage(err)}\n`);
        return EXIT.failed;
      }
    }
    if (signal.aborted) return stopped();
    const app = buildCatalogServer({ content: store, logger, registry: new Registry() });
    let address: string;
    try {
      address = await app.listen({ host: listen.host, port: listen.port });
    } catch (err) {
      io.stderr.write(`listening on ${listen.host}:${listen.port}: ${errorMessage(err)}\n`);
      return EXIT.failed;
    }
    for (const c of catalogs) io.stderr.write(`serving ${address}/catalogs/${c.name}/api/v1/all\n`);
    await new Promise<void>((done) => {
      if (signal.aborted) done();
      else signal.addEventListener('abort', () => done(), { once: true });
    });
    await app.close();
    return stopped();
  } finally {
    await store.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** Prints the loading line, then every `intervalMs` how much the ingest wrote so far under `root`, then the total. */
function reportProgress(io: CommandIO, name: string, dir: string, root: string, intervalMs: number): { done(summary: string | undefined): void } {
  const started = Date.now();
  const seconds = (): string => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  io.stderr.write(`loading catalog ${name} from ${dir}\n`);
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void writtenBytes(root, `.tmp-${name}-`)
      .then((bytes) => io.stderr.write(`loading catalog ${name}: ${(bytes / 1e6).toFixed(1)} MB of content written, ${seconds()}\n`))
      .finally(() => (busy = false));
  }, intervalMs);
  return {
    done(summary) {
      clearInterval(timer);
      if (summary !== undefined) io.stderr.write(`loaded catalog ${name}: ${summary} in ${seconds()}\n`);
    },
  };
}

/** Bytes in the files of the directories under `root` whose names start with `prefix`. */
async function writtenBytes(root: string, prefix: string): Promise<number> {
  let total = 0;
  for (const d of await readdir(root).catch(() => [])) {
    if (!d.startsWith(prefix)) continue;
    for (const f of await readdir(join(root, d)).catch(() => [])) total += (await stat(join(root, d, f)).catch(() => undefined))?.size ?? 0;
  }
  return total;
}

/** Parses every NAME=DIR; names must be valid and distinct. */
function parseCatalogArgs(args: string[]): Array<{ name: string; dir: string }> | { error: string } {
  if (args.length === 0) return { error: 'at least one NAME=DIR is required' };
  const out: Array<{ name: string; dir: string }> = [];
  for (const arg of args) {
    const c = parseCatalogArg(arg);
    if ('error' in c) return c;
    if (out.some((o) => o.name === c.name)) return { error: `duplicate catalog name ${JSON.stringify(c.name)}: each NAME=DIR needs its own NAME` };
    out.push(c);
  }
  return out;
}

function parseCatalogArg(arg: string): { name: string; dir: string } | { error: string } {
  const eq = arg.indexOf('=');
  if (eq <= 0 || eq === arg.length - 1) return { error: `invalid catalog argument ${JSON.stringify(arg)}: want NAME=DIR` };
  const name = arg.slice(0, eq);
  const errs = dns1123SubdomainErrors(name);
  if (errs.length > 0) return { error: `invalid catalog name ${JSON.stringify(name)}: ${errs.join('; ')}` };
  return { name, dir: arg.slice(eq + 1) };
}

function parseListen(value: string): { host: string; port: number } | { error: string } {
  try {
    return parseListenAddress(value);
  } catch (err) {
    return { error: `invalid --listen: ${errorMessage(err)}` };
  }
}
