import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { findGoToolchain, runGo } from './go-toolchain.ts';

// The machine's go: on PATH here, else at /usr/local/go (FALLBACK_GO), as on CI.
const env = { PATH: '/usr/local/go/bin:/usr/bin:/bin', HOME: tmpdir() };

describe('findGoToolchain', () => {
  it('runs go at the niceness OLMV1_GO_BUILD_NICENESS names, and at the caller’s without it', async () => {
    const niced = await findGoToolchain({ ...env, OLMV1_GO_BUILD_NICENESS: '10' });
    expect(niced.niceness).toBe(10);
    // `go env GOVERSION` through nice answers as go does.
    expect((await runGo(niced, ['env', 'GOVERSION'], process.cwd())).stdout.trim()).toBe(niced.version);
    const plain = await findGoToolchain({ ...env, OLMV1_GO_BUILD_NICENESS: '' });
    expect(plain.niceness).toBeUndefined();
    expect((await findGoToolchain({ ...env, OLMV1_GO_BUILD_NICENESS: '40' })).niceness).toBe(19);
  });
});
