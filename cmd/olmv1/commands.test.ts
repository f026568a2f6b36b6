import { afterEach, describe, expect, it } from 'vitest';
import { captureIO } from '../../test/support/command-io.ts';
import { commands, usage } from './commands.ts';

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
    const io = captureIO();
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
