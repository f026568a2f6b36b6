/**
 * `npm test`'s runner: the suite in two lanes, two vitest processes side by side, since the files
 * that run the product on the local node (the `on-node` project, vitest.config.ts) spend most of
 * their time waiting on its Pods, and the node is the machine's, one file at a time:
 *
 *   main     vitest run --project integration --project unit, then --project integration-oldest
 *   on-node  vitest run --project on-node
 *
 * Lane main writes as vitest does; every line of lane on-node is prefixed with its name. When
 * both have ended, each failed run's last lines are printed again, so that its failures end the
 * output (CI shows its tail), and then one line per run: its exit code and duration. Arguments
 * (`npm test -- ARGS`) run `vitest run ARGS` alone instead.
 *
 * This is an entry point: it reads the environment only to pass it on.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { laneSummary, lineSplitter, type RunResult } from './lane-output.ts';

/** A lane: vitest runs one after another, each with its arguments after `vitest run`. */
interface Lane {
  name: string;
  runs: string[][];
  /** Prefix each output line with the lane's name (the lane that does not own the terminal's flow). */
  prefixed: boolean;
}

const LANES: readonly Lane[] = [
  {
    name: 'main',
    runs: [
      ['--project', 'integration', '--project', 'unit'],
      ['--project', 'integration-oldest', '--silent=passed-only', '--slowTestThreshold=120000'],
    ],
    prefixed: false,
  },
  { name: 'on-node', runs: [['--project', 'on-node']], prefixed: true },
];

/** How many of a failed run's last lines are printed again at the end. */
const TAIL_LINES = 120;

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

/** Runs `vitest run ARGS` with its output passed through `write` line by line; its exit code and last lines. */
function runVitest(args: readonly string[], name: string, write: (line: string) => void): Promise<RunResult> {
  const started = Date.now();
  const tail: string[] = [];
  const onLine = (line: string): void => {
    write(line);
    tail.push(line);
    if (tail.length > TAIL_LINES) tail.shift();
  };
  const env = { ...process.env, ...(process.stdout.isTTY ? { FORCE_COLOR: '1' } : {}) };
  const child = spawn(process.execPath, [vitest, 'run', ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  process.on('SIGINT', forward).on('SIGTERM', forward);
  const out = lineSplitter(onLine);
  const err = lineSplitter(onLine);
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk.toString('utf8')));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      out.end();
      err.end();
      process.off('SIGINT', forward).off('SIGTERM', forward);
      resolve({ name, args, code: code ?? (signal === null ? 1 : 128), seconds: (Date.now() - started) / 1000, tail });
    });
  });
}

async function runLane(lane: Lane): Promise<RunResult[]> {
  const write = lane.prefixed
    ? (line: string) => process.stdout.write(`${lane.name} │ ${line}\n`)
    : (line: string) => process.stdout.write(`${line}\n`);
  const results: RunResult[] = [];
  for (const args of lane.runs) results.push(await runVitest(args, lane.name, write));
  return results;
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv.length > 0) {
    const result = await runVitest(argv, 'vitest', (line) => process.stdout.write(`${line}\n`));
    return result.code;
  }
  const results = (await Promise.all(LANES.map(runLane))).flat();
  for (const line of laneSummary(results)) process.stdout.write(`${line}\n`);
  return results.some((r) => r.code !== 0) ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
