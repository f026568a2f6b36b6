/**
 * Checks the Dockerfile without a container engine (scripts/build-image.ts builds it with
 * buildah; see docs/operations.md "Container image").
 *
 *   node scripts/check-image.ts           static checks only (also run by check-image.test.ts)
 *   node scripts/check-image.ts --replay  static checks, then both stages replayed in a temp dir
 *
 * Static: both stages are FROM node:24-slim; every COPY source exists and is not excluded by
 * .dockerignore; the final stage runs as a numeric non-root USER; every `command` of
 * config/manager/*.yaml runs `node` on a dist/ file the build emits (its .ts source exists).
 * Replay (of the committed tree, HEAD): the build stage's commands (`npm ci --ignore-scripts`, tsc, the components' bundles) in a directory holding
 * only what the stage COPYs, the runtime stage's `npm ci --omit=dev --ignore-scripts` plus dist/,
 * then each entry point with --help as uid 65532 (when run as root) under NODE_ENV=production:
 * the module graph of catalogd, operator-controller and olmv1 loads from production
 * dependencies alone. What the replay cannot show: the base image's contents, the image's file
 * ownership and layers, a read-only root filesystem.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAll } from 'js-yaml';

/** One instruction of a Dockerfile (continuation lines joined). */
export interface Instruction {
  op: string;
  args: string;
}

/** Parses a Dockerfile into instructions (comments dropped, `\` continuations joined). */
export function parseDockerfile(text: string): Instruction[] {
  const joined = text.replace(/\\\n/g, ' ');
  const out: Instruction[] = [];
  for (const line of joined.split('\n')) {
    const t = line.trim();
    if (t === '' || t.startsWith('#')) continue;
    const m = /^(\S+)\s*(.*)$/.exec(t);
    if (m !== null) out.push({ op: (m[1] ?? '').toUpperCase(), args: m[2] ?? '' });
  }
  return out;
}

/** The entry points every image must carry (dist paths). */
export const ENTRY_POINTS = ['dist/cmd/catalogd/main.js', 'dist/cmd/operator-controller/main.js', 'dist/cmd/olmv1/main.js'] as const;

/** Problems found by the static checks of `root`'s Dockerfile and Deployments; empty when none. */
export function staticProblems(root: string): string[] {
  const problems: string[] = [];
  const instructions = parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8'));
  const ignored = readFileSync(join(root, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const froms = instructions.filter((i) => i.op === 'FROM');
  if (froms.length < 2) problems.push('want a multi-stage build (two FROM lines or more)');
  for (const f of froms) if (!/^node:24-slim(\s|$)/.test(f.args)) problems.push(`FROM ${f.args}: want node:24-slim`);
  for (const c of instructions.filter((i) => i.op === 'COPY' && !i.args.startsWith('--from'))) {
    const parts = c.args.split(/\s+/);
    for (const src of parts.slice(0, -1)) {
      if (!existsSync(join(root, src))) problems.push(`COPY ${src}: no such file in the build context`);
      if (ignored.includes(src)) problems.push(`COPY ${src}: excluded by .dockerignore`);
    }
  }
  const lastFrom = instructions.lastIndexOf(froms.at(-1) as Instruction);
  const user = instructions.slice(lastFrom).findLast((i) => i.op === 'USER')?.args;
  if (user === undefined || !/^[1-9]\d*(:\d+)?$/.test(user)) problems.push(`final stage USER ${user ?? '(none)'}: want a numeric non-root uid`);
  const manifests = readdirSync(join(root, 'config/manager')).filter((f) => f.endsWith('.yaml'));
  const commands: string[][] = [];
  for (const file of manifests) {
    for (const doc of loadAll(readFileSync(join(root, 'config/manager', file), 'utf8')) as {
      kind?: string;
      spec?: { template?: { spec?: { containers?: { command?: string[] }[] } } };
    }[]) {
      if (doc?.kind !== 'Deployment') continue;
      for (const c of doc.spec?.template?.spec?.containers ?? []) commands.push(c.command ?? []);
    }
  }
  for (const entry of ENTRY_POINTS.slice(0, 2)) if (!commands.some((c) => c.at(-1) === entry)) problems.push(`no Deployment runs ${entry}`);
  for (const c of commands) {
    const script = c.at(-1) ?? '';
    if (c[0] !== 'node' || !script.startsWith('dist/')) problems.push(`Deployment command ${JSON.stringify(c)}: want node <flags> dist/...js`);
    else if (!existsSync(join(root, script.slice('dist/'.length).replace(/\.js$/, '.ts'))))
      problems.push(`Deployment command ${script}: no TypeScript source emits it`);
  }
  return problems;
}

/** Replays both stages in a temp dir and runs each entry point with --help; returns what ran. */
export function replay(root: string): string[] {
  const log: string[] = [];
  const work = mkdtempSync(join(tmpdir(), 'check-image-'));
  chmodSync(work, 0o755);
  const env = {
    ...process.env,
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
  const run = (cwd: string, cmd: string, args: string[], extra: NodeJS.ProcessEnv = {}): string => {
    log.push(`${cwd.replace(work, '<tmp>')}$ ${cmd} ${args.join(' ')}`);
    return execFileSync(cmd, args, { cwd, env: { ...env, ...extra }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  };
  try {
    const src = join(work, 'src');
    const app = join(work, 'app');
    // The committed tree (HEAD), as a clean checkout would build it, not work in progress.
    mkdirSync(src);
    const tar = join(work, 'context.tar');
    execFileSync('git', [
      '-C',
      root,
      'archive',
      '-o',
      tar,
      'HEAD',
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'tsconfig.build.json',
      'cmd',
      'pkg',
      'scripts/build-bundles.ts',
    ]);
    execFileSync('tar', ['-x', '-f', tar, '-C', src]);
    run(src, 'npm', ['ci', '--ignore-scripts']);
    run(src, 'node', ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json']);
    run(src, 'node', ['scripts/build-bundles.ts']);
    mkdirSync(app);
    for (const f of ['package.json', 'package-lock.json']) cpSync(join(src, f), join(app, f));
    run(app, 'npm', ['ci', '--omit=dev', '--ignore-scripts']);
    cpSync(join(src, 'dist'), join(app, 'dist'), { recursive: true });
    for (const dev of ['typescript', 'vitest', 'eslint'])
      if (existsSync(join(app, 'node_modules', dev))) throw new Error(`runtime stage holds devDependency ${dev}`);
    if (!existsSync(join(app, 'dist/pkg/catalogd/storage/ingest-child.js'))) throw new Error('dist lacks the catalogd ingest child');
    for (const name of ['catalogd', 'operator-controller'])
      if (!existsSync(join(app, `dist/cmd/${name}/start.cjs`))) throw new Error(`dist lacks ${name}'s bundle (decision 0147)`);
    const asUser =
      typeof process.getuid === 'function' && process.getuid() === 0
        ? (['setpriv', ['--reuid=65532', '--regid=65532', '--clear-groups', process.execPath]] as const)
        : ([process.execPath, []] as const);
    for (const entry of ENTRY_POINTS) {
      const out = run(app, asUser[0], [...asUser[1], entry, '--help'], { NODE_ENV: 'production', PATH: '/usr/bin:/bin' });
      if (!/Usage|usage/.test(out)) throw new Error(`${entry} --help printed no usage: ${out.slice(0, 200)}`);
      log.push(`  -> ${out.split('\n')[0]}`);
    }
    return log;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const problems = staticProblems(root);
  for (const p of problems) process.stderr.write(`Dockerfile: ${p}\n`);
  if (problems.length > 0) process.exit(1);
  process.stdout.write('static checks: ok\n');
  if (process.argv.includes('--replay')) for (const line of replay(root)) process.stdout.write(`${line}\n`);
}
