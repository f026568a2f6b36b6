// The CLI as a process: what only main.ts and the composition in commands.ts decide.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FIXTURE_BUNDLES_DIR } from '../../test/fixtures/bundles/golden-cases.ts';
import { testTempDir } from '../../test/support/temp-dir.ts';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const VALID_CATALOG = fileURLToPath(new URL('../../pkg/shared/fbc/testdata/valid', import.meta.url));

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function olmv1(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; closeStdout?: boolean; onStderr?: (text: string, child: ChildProcess) => void } = {},
): Promise<Ran> {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
  // Closed before the process has started: its first write to stdout meets EPIPE.
  if (options.closeStdout === true) child.stdout.destroy();
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    options.onStderr?.(stderr, child);
  });
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

// Each test starts Node processes: slow on a busy machine, not timing-dependent.
describe('olmv1 as a process', { timeout: 90_000 }, () => {
  it('ends quietly with exit 0 when its reader has gone away (| head)', async () => {
    const render = await olmv1(['render', 'bundle', `${FIXTURE_BUNDLES_DIR}/multi-crd`, '--install-namespace', 'x'], { closeStdout: true });
    expect(render).toMatchObject({ code: 0, stderr: '' });
    const help = await olmv1(['--help'], { closeStdout: true });
    expect(help).toMatchObject({ code: 0, stderr: '' });
  });

  it('prints its version from package.json', async () => {
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(await olmv1(['--version'])).toMatchObject({ code: 0, stdout: `olmv1 ${version}\n`, stderr: '' });
  });

  it('stops catalog serve on SIGTERM with exit 143 and removes its temporary store', async () => {
    const tmp = await testTempDir('olmv1-main-');
    let sent = false;
    const ran = await olmv1(['catalog', 'serve', `valid=${VALID_CATALOG}`, '--listen', '127.0.0.1:0'], {
      env: { TMPDIR: tmp },
      onStderr: (text, child) => {
        if (!sent && text.includes('serving http://')) {
          sent = true;
          child.kill('SIGTERM');
        }
      },
    });
    expect(ran).toMatchObject({ code: 143, signal: null });
    expect(ran.stderr).toMatch(/\nstopped\n$/);
    expect(await readdir(tmp)).toEqual([]);
  });
});
