import { describe, expect, it } from 'vitest';
import { createKubeconfigLookup } from './cluster-access.ts';
import { table } from './io.ts';
import { runRelease } from './release.ts';

async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  // A kubeconfig that does not exist: usage errors must be reported before any connection.
  const code = await runRelease(args, io, { kubeconfig: createKubeconfigLookup({ HOME: '/nonexistent' }, '/nonexistent') });
  return { code, stdout, stderr };
}

describe('olmv1 release usage', () => {
  it('prints help on stdout with exit 0', async () => {
    const r = await run('--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: olmv1 release list /);
  });

  it.each([
    [[], 'missing subcommand'],
    [['frobnicate'], 'unknown subcommand "frobnicate"'],
    [['list', 'extra'], '"list" takes no arguments'],
    [['history'], '"history" takes exactly one extension name'],
    [['get'], '"get" takes an extension name and optionally "manifest" or "values"'],
    [['get', 'x', 'secrets'], '"get" takes an extension name and optionally "manifest" or "values"'],
    [['history', 'x', '--revision', '2'], '--revision is only valid with "get"'],
    [['get', 'x', '--revision', '0'], '--revision must be a positive integer, got "0"'],
    [['list', '--bogus'], "Unknown option '--bogus'"],
    [['list', '--context', ''], '--context must not be empty'],
    [['list', '--kubeconfig', ''], '--kubeconfig must not be empty'],
  ])('%j is a usage error: %s', async (args, message) => {
    const r = await run(...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain('Usage: olmv1 release');
  });

  it('fails with exit 1 when the kubeconfig cannot be read', async () => {
    const r = await run('list', '--kubeconfig', '/nonexistent/kubeconfig');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^unable to load kubeconfig \/nonexistent\/kubeconfig: /);
  });

  it('fails with exit 1 and the places searched when there is no kubeconfig', async () => {
    const r = await run('list');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^no kubeconfig found; searched:\n/);
    expect(r.stderr).toContain('/nonexistent/.kube/config does not exist');
  });
});

describe('table', () => {
  it('aligns columns with three spaces and no trailing padding', () => {
    expect(
      table([
        ['NAME', 'REVISION', 'STATUS'],
        ['argocd-operator', '12', 'deployed'],
        ['x', '1', 'failed'],
      ]),
    ).toBe('NAME              REVISION   STATUS\nargocd-operator   12         deployed\nx                 1          failed\n');
  });
});
