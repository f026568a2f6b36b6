// `olmv1 up --feature-gates` end to end (issue 64): the local stack run twice from the work tree,
// in a directory of its own. Without the flag catalogd keeps upstream's default and its GraphQL
// endpoint answers upstream's 404; with `--feature-gates GraphQLCatalogQueries=true` the summary
// says so and the example catalog answers a GraphQL query at the printed catalog URL, while
// operator-controller (which does not know the gate) starts as before. An unknown gate is a
// usage error (exit 2) before anything starts. The binaries come from the cache the integration
// global setup resolved.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePorts } from '../../pkg/olmv1/localstack/index.ts';

const MAIN = fileURLToPath(new URL('../../cmd/olmv1/main.ts', import.meta.url));

interface Up {
  proc: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
}

let work: string;
let running: Up | undefined;

function startUp(cwd: string, args: string[]): Up {
  const proc = spawn(process.execPath, [MAIN, 'up', ...args], { cwd, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const up: Up = { proc, stdout: '', stderr: '', exited: new Promise((resolve) => proc.once('exit', (code) => resolve(code))) };
  proc.stdout?.on('data', (d: Buffer) => (up.stdout += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (up.stderr += d.toString()));
  return up;
}

/** Starts `up` with `args` in a fresh directory and resolves once it printed its summary. */
async function ready(args: string[]): Promise<{ up: Up; cwd: string }> {
  const cwd = await mkdtemp(join(work, 'run-'));
  const [port = 0] = await freePorts(1);
  const up = startUp(cwd, ['--registry-port', String(port), ...args]);
  running = up;
  await vi.waitFor(
    () => {
      if (up.proc.exitCode !== null) throw new Error(`olmv1 up exited with ${up.proc.exitCode}\n${up.stderr}`);
      if (!up.stdout.includes('Ctrl-C stops everything.')) throw new Error(`olmv1 up is not ready yet\n${up.stderr}`);
    },
    { timeout: 240_000, interval: 200 },
  );
  return { up, cwd };
}

async function stop(up: Up): Promise<void> {
  up.proc.kill('SIGINT');
  expect(await up.exited).toBe(0);
  running = undefined;
}

const field = (stdout: string, label: string): string => new RegExp(`^  ${label} +(.+)$`, 'm').exec(stdout)?.[1] ?? '';

async function graphql(catalogUrl: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${catalogUrl}/api/v1/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ olmpackages { name } }' }),
  });
  return { status: res.status, text: await res.text() };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'olmv1-up-gates-'));
});

afterEach(() => {
  if (running !== undefined && running.proc.exitCode === null) running.proc.kill('SIGKILL');
  running = undefined;
});

afterAll(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe('olmv1 up --feature-gates', () => {
  it('refuses an unknown gate with exit 2, naming the known ones, before starting anything', async () => {
    const cwd = await mkdtemp(join(work, 'bad-'));
    const up = startUp(cwd, ['--feature-gates', 'GraphQLCatalogQueries=true,GraphQL=true']);
    expect(await up.exited).toBe(2);
    expect(up.stderr).toMatch(
      /^Error: --feature-gates: unknown gate "GraphQL"; known gates: catalogd APIV1MetasHandler, GraphQLCatalogQueries; operator-controller /,
    );
    expect(await readdir(cwd)).toEqual([]);
  });

  it("leaves GraphQLCatalogQueries off by default: the endpoint is upstream's 404", async () => {
    const { up } = await ready([]);
    expect(field(up.stdout, 'feature gates')).toBe('catalogd defaults; operator-controller defaults');
    const answer = await graphql(field(up.stdout, 'catalog URL'));
    expect(answer).toEqual({ status: 404, text: '404 page not found\n' });
    await stop(up);
  }, 300_000);

  it("turns catalogd's GraphQL endpoint on with GraphQLCatalogQueries=true", async () => {
    const { up } = await ready(['--feature-gates', 'GraphQLCatalogQueries=true']);
    expect(field(up.stdout, 'feature gates')).toBe('catalogd GraphQLCatalogQueries=true; operator-controller defaults');
    const answer = await graphql(field(up.stdout, 'catalog URL'));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ data: { olmpackages: [{ name: 'example-operator' }] } });
    await stop(up);
  }, 300_000);
});
