import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testTempDir } from '../../test/support/temp-dir.ts';
import { chooseKubeconfig, createKubeconfigLookup, type KubeconfigLookup } from './cluster-access.ts';
import { runRelease } from './release.ts';
import { runStatus } from './status.ts';
import { writeStackFile } from './up-state.ts';

// What each place holds in the table below; `exists` knows exactly these files.
const ENV_A = '/env/a';
const ENV_B = '/env/b';
const UP = '/work/.olmv1/kubeconfig';
const HOME = '/home/u/.kube/config';

function lookup(o: { env?: string; up?: boolean; home?: boolean; files?: string[] }): KubeconfigLookup {
  const files = new Set(o.files ?? [ENV_A, ENV_B, UP, HOME]);
  return {
    kubeconfigEnv: o.env,
    homeKubeconfig: o.home === false ? undefined : HOME,
    workDir: '/work',
    runningUp: async () => (o.up === true ? UP : undefined),
    exists: (p) => files.has(p),
  };
}

describe('which kubeconfig a cluster command uses', () => {
  it.each([
    ['--kubeconfig beats everything', { kubeconfig: '/flag' }, { env: ENV_A, up: true }, { kind: 'file', path: '/flag' }, '--kubeconfig'],
    ['$KUBECONFIG beats a running up', {}, { env: ENV_A, up: true }, { kind: 'files', paths: [ENV_A] }, '$KUBECONFIG'],
    ['$KUBECONFIG is a list, kept whole for merging', {}, { env: `${ENV_A}::${ENV_B}:` }, { kind: 'files', paths: [ENV_A, ENV_B] }, '$KUBECONFIG'],
    ['an empty $KUBECONFIG is unset', {}, { env: '', up: true }, { kind: 'file', path: UP }, 'the running olmv1 up'],
    ['a running up beats ~/.kube/config', {}, { up: true }, { kind: 'file', path: UP }, 'the running olmv1 up'],
    ['~/.kube/config last', {}, {}, { kind: 'file', path: HOME }, '~/.kube/config'],
    ['--context applies to any of them', { context: 'dev' }, { up: true }, { kind: 'file', path: UP, context: 'dev' }, 'the running olmv1 up'],
    ['--context with a list', { context: 'dev' }, { env: ENV_B }, { kind: 'files', paths: [ENV_B], context: 'dev' }, '$KUBECONFIG'],
  ] as const)('%s', async (_, flags, facts, source, from) => {
    expect(await chooseKubeconfig(flags, lookup(facts))).toEqual({ ok: true, value: { source, from } });
  });

  it('a $KUBECONFIG naming only missing files is an error, not a reason to look further', async () => {
    const r = await chooseKubeconfig({}, lookup({ env: '/gone/1:/gone/2', up: true }));
    expect(r).toEqual({
      ok: false,
      error: 'no kubeconfig found: none of the files in $KUBECONFIG exists (/gone/1, /gone/2); fix KUBECONFIG or pass --kubeconfig FILE',
    });
    // One of them existing is enough: kubectl skips the others.
    expect(await chooseKubeconfig({}, lookup({ env: `/gone/1:${ENV_A}` }))).toMatchObject({
      ok: true,
      value: { source: { paths: ['/gone/1', ENV_A] } },
    });
  });

  it('finding nothing names --kubeconfig and every place searched', async () => {
    const r = await chooseKubeconfig({}, lookup({ files: [] }));
    expect(r).toEqual({
      ok: false,
      error: [
        'no kubeconfig found; searched:',
        '  --kubeconfig FILE         not given',
        '  $KUBECONFIG               not set',
        '  a running olmv1 up        none in /work (/work/.olmv1/stack.json)',
        '  ~/.kube/config            /home/u/.kube/config does not exist',
        'Pass --kubeconfig FILE, set KUBECONFIG, or start "olmv1 up" in this directory.',
      ].join('\n'),
    });
    expect(await chooseKubeconfig({}, lookup({ files: [], home: false }))).toMatchObject({ error: expect.stringContaining('HOME is not set') });
  });
});

describe('the lookup of a process', () => {
  it('finds the olmv1 up running in the working directory, and ignores one whose pid is dead', async () => {
    const work = await testTempDir('cluster-access-up-');
    await mkdir(join(work, '.olmv1'));
    const l = createKubeconfigLookup({ HOME: '/home/u' }, work);
    expect(l.homeKubeconfig).toBe('/home/u/.kube/config');
    expect(await l.runningUp()).toBeUndefined();
    const stack = {
      pid: process.pid,
      mode: 'local' as const,
      apiServer: 'https://127.0.0.1:1',
      kubeconfig: join(work, '.olmv1/kubeconfig'),
      catalogd: { url: '', healthUrl: '', pid: 0, log: '' },
      operatorController: { healthUrl: '', pid: 0, log: '' },
      ports: [],
    };
    await writeStackFile(join(work, '.olmv1'), stack);
    expect(await l.runningUp()).toBe(join(work, '.olmv1/kubeconfig'));
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    await writeStackFile(join(work, '.olmv1'), { ...stack, pid: dead });
    expect(await l.runningUp()).toBeUndefined();
  });
});

describe('release and status go through the same resolution', () => {
  function io(): { out: { stdout: string; stderr: string }; io: { stdout: { write(s: string): void }; stderr: { write(s: string): void } } } {
    const out = { stdout: '', stderr: '' };
    return { out, io: { stdout: { write: (s) => void (out.stdout += s) }, stderr: { write: (s) => void (out.stderr += s) } } };
  }
  // Kubeconfigs that fail while loading (no network needed) show which one was chosen.
  const broken = (contexts: string[]): string =>
    `current-context: missing\ncontexts: [${contexts.map((c) => `{name: ${c}, context: {cluster: k}}`).join(', ')}]\nclusters: [{name: k, cluster: {server: "https://k.test"}}]\n`;

  it('a running up comes before ~/.kube/config, and errors say where the kubeconfig came from', async () => {
    const work = await testTempDir('cluster-access-cmd-');
    await mkdir(join(work, '.olmv1'));
    await mkdir(join(work, 'home/.kube'), { recursive: true });
    await writeFile(join(work, 'home/.kube/config'), broken(['home']));
    const l = createKubeconfigLookup({ HOME: join(work, 'home') }, work);
    const release = io();
    expect(await runRelease(['list'], release.io, { kubeconfig: l })).toBe(1);
    expect(release.out.stderr).toBe(
      `unable to load kubeconfig ${join(work, 'home/.kube/config')}: current context "missing" is not defined (contexts: home)` +
        ' (found through ~/.kube/config; pass --kubeconfig FILE to use another)\n',
    );
    await writeFile(join(work, '.olmv1/kubeconfig'), broken(['up-a', 'up-b']));
    await writeStackFile(join(work, '.olmv1'), {
      pid: process.pid,
      mode: 'local',
      apiServer: 'https://k.test',
      kubeconfig: join(work, '.olmv1/kubeconfig'),
      catalogd: { url: '', healthUrl: '', pid: 0, log: '' },
      operatorController: { healthUrl: '', pid: 0, log: '' },
      ports: [],
    });
    const status = io();
    const deps = { kubeconfig: l, isTTY: false, columns: undefined, noColor: true };
    expect(await runStatus(['--context', 'nope'], status.io, deps)).toBe(2);
    expect(status.out.stderr).toBe(
      `unable to load kubeconfig ${join(work, '.olmv1/kubeconfig')}: context "nope" does not exist in the kubeconfig (contexts: up-a, up-b)` +
        ' (found through the running olmv1 up; pass --kubeconfig FILE to use another)\n',
    );
    expect(status.out.stdout).toBe('');
  });

  it('$KUBECONFIG files are merged: a context of the second file is found with --context', async () => {
    const work = await testTempDir('cluster-access-env-');
    await writeFile(join(work, 'a'), broken(['first']));
    await writeFile(join(work, 'b'), broken(['second']));
    const l = createKubeconfigLookup({ KUBECONFIG: `${join(work, 'a')}:${join(work, 'b')}` }, work);
    const r = io();
    expect(await runRelease(['list', '--context', 'none'], r.io, { kubeconfig: l })).toBe(1);
    expect(r.out.stderr).toContain('context "none" does not exist in the kubeconfig (contexts: first, second) (found through $KUBECONFIG;');
  });
});
