import { describe, expect, it } from 'vitest';
import { captureIO } from '../../test/support/command-io.ts';
import { runClusterConsole } from './console-in-cluster.ts';

/** Runs the command with `args` after the required TLS flags; its exit code and stderr. Usage errors come before anything is read or served. */
async function run(...args: string[]): Promise<{ code: number; err: string }> {
  const io = captureIO();
  const code = await runClusterConsole(['--in-cluster', '--tls-cert', 'c.pem', '--tls-key', 'k.pem', ...args], io, {} as never);
  return { code, err: io.err() };
}

describe('olmv1 console --in-cluster --oidc-* flags', () => {
  it('needs the client id and the redirect URL with an issuer', async () => {
    const r = await run('--oidc-issuer', 'https://issuer.test', '--oidc-client-id', 'console');
    expect(r.code).toBe(2);
    expect(r.err).toContain('--oidc-issuer needs --oidc-client-id and --oidc-redirect-url');
  });

  it('refuses an issuer or a callback that is not https', async () => {
    const r = await run(
      '--oidc-issuer',
      'http://issuer.test',
      '--oidc-client-id',
      'console',
      '--oidc-redirect-url',
      'https://c.test/signin/oidc/callback',
    );
    expect(r.code).toBe(2);
    expect(r.err).toContain('--oidc-issuer and --oidc-redirect-url must be https URLs');
  });

  it('refuses the other --oidc-* flags without an issuer', async () => {
    const r = await run('--oidc-client-id', 'console');
    expect(r.code).toBe(2);
    expect(r.err).toContain('need --oidc-issuer');
  });
});
