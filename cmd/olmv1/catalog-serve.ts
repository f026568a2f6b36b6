/**
 * `olmv1 catalog serve NAME=DIR [NAME=DIR ...] [--listen HOST:PORT]`: the catalogd HTTP API
 * (`/catalogs/<name>/api/v1/all` and `/api/v1/metas`) over local FBC directories, no cluster
 * needed. Each directory is ingested exactly as catalogd ingests an unpacked image; a directory
 * that does not load is reported and the command exits 1 before serving anything.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { Registry } from 'prom-client';
import { LocalDirStore, createProcessIngest } from '../../pkg/catalogd/storage/index.ts';
import { buildCatalogServer } from '../../pkg/catalogd/server/index.ts';
import { dns1123SubdomainErrors } from '../../pkg/k8sname/index.ts';
import { errorMessage } from '../../pkg/errors/index.ts';
import { parseListenAddress } from '../shared/flags.ts';
import { DECODE_LIMIT_FLAGS, decodeLimitHelp, decodeLimitOptions } from '../shared/limits.ts';
import { type CommandIO, EXIT } from './io.ts';

const HELP = `Usage: olmv1 catalog serve NAME=DIR [NAME=DIR ...] [--listen HOST:PORT]

Serves each file-based catalog directory DIR as catalog NAME over the catalogd HTTP API:
  GET /catalogs/NAME/api/v1/all
  GET /catalogs/NAME/api/v1/metas?schema=&package=&name=

Options:
  --listen HOST:PORT          address to listen on (default 127.0.0.1:8080)
${decodeLimitHelp(30)}
SIZE is a number of bytes, optionally with a suffix (Ki, Mi, Gi, or k, M, G).
`;

/** Runs until `signal` aborts (the CLI wires SIGINT/SIGTERM); resolves with the exit code. */
export async function runCatalogServe(args: string[], io: CommandIO, signal: AbortSignal = shutdownSignal()): Promise<number> {
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

  const catalogs = parsed.positionals.map(parseCatalogArg);
  const usageError = [listen, ...catalogs].find((c): c is { error: string } => 'error' in c);
  if (usageError !== undefined || catalogs.length === 0) {
    io.stderr.write(`${usageError?.error ?? 'at least one NAME=DIR is required'}\n\n${HELP}`);
    return EXIT.usage;
  }
  if ('error' in listen) return EXIT.usage;

  const logger = pino({ level: 'warn' }, pino.destination(2));
  const root = await mkdtemp(join(tmpdir(), 'olmv1-serve-'));
  const store = new LocalDirStore({ root, ingest: createProcessIngest({ limits }), logger });
  try {
    await store.open();
    for (const c of catalogs) {
      if ('error' in c) continue;
      const dir = resolve(c.dir);
      if (!(await stat(dir).catch(() => undefined))?.isDirectory()) {
        io.stderr.write(`catalog ${c.name}: ${JSON.stringify(c.dir)} is not a directory\n`);
        return EXIT.failed;
      }
      io.stderr.write(`loading catalog ${c.name} from ${dir}\n`);
      const digest = `sha256:${createHash('sha256').update(dir).digest('hex')}`;
      try {
        await store.store(c.name, { digest, ref: dir, unpackedAt: new Date().toISOString() }, { fbcDir: dir });
      } catch (err) {
        io.stderr.write(`catalog ${c.name}: ${errorMessage(err)}\n`);
        return EXIT.failed;
      }
    }
    const app = buildCatalogServer({ content: store, logger, registry: new Registry() });
    const address = await app.listen({ host: listen.host, port: listen.port });
    for (const c of catalogs) if (!('error' in c)) io.stderr.write(`serving ${address}/catalogs/${c.name}/api/v1/all\n`);
    await new Promise<void>((done) => {
      if (signal.aborted) done();
      else signal.addEventListener('abort', () => done(), { once: true });
    });
    await app.close();
    return EXIT.ok;
  } finally {
    await store.close();
    await rm(root, { recursive: true, force: true });
  }
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

function shutdownSignal(): AbortSignal {
  const ac = new AbortController();
  process.once('SIGINT', () => ac.abort());
  process.once('SIGTERM', () => ac.abort());
  return ac.signal;
}
