import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { commands, usage } from './commands.ts';

function capture(): { stdout: PassThrough; stderr: PassThrough; out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  return { stdout, stderr, out: () => Buffer.concat(out).toString(), err: () => Buffer.concat(err).toString() };
}

// Loading a command may wire SIGINT/SIGTERM (catalog serve): undo that for the test process.
const before = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
afterEach(() => {
  for (const name of ['SIGINT', 'SIGTERM'] as const) {
    for (const l of process.listeners(name)) if (!before[name].includes(l)) process.removeListener(name, l);
  }
});

describe('olmv1 help', () => {
  it.each([...commands.keys()])('%s --help says what it does, its flags, its output and its exit codes', async (key) => {
    const run = await (commands.get(key) as NonNullable<ReturnType<typeof commands.get>>).load();
    const io = capture();
    expect(await run(['--help'], io)).toBe(0);
    expect(io.err()).toBe('');
    const help = io.out();
    const words = key === 'local-stack' ? 'up' : key;
    expect(help).toMatch(new RegExp(`^Usage: olmv1 ${words}\\b`));
    // A description paragraph after the usage lines, then the sections.
    expect(help).toMatch(/\n\n[A-Z][^\n]+ [^\n]+\n/);
    const sections = [...help.matchAll(/^(Flags|Output|Exit codes):$/gm)].map((m) => m[1]);
    expect(sections).toEqual(['Flags', 'Output', 'Exit codes']);
    expect(help).toMatch(/^ {2}-h, --help +\S/m);
    expect(help).toMatch(/^Exit codes:\n {2}0 +\S[^]*\n {2}2 +\S/m);
  });

  it('lists every command and --version', () => {
    const text = usage();
    for (const key of commands.keys()) expect(text).toContain(`  ${key} `);
    expect(text).toContain('olmv1 --version');
  });
});
