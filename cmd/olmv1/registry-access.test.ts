// The image commands' shared argument handling (registry-access.ts), through `catalog mirror` and
// `catalog push`: help, usage errors and a flag file that cannot be read, before any registry is reached.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureIO } from '../../test/support/command-io.ts';
import { testTempDir } from '../../test/support/temp-dir.ts';
import { runCatalogMirror } from './catalog-mirror.ts';
import { runCatalogPush } from './catalog-push.ts';

const deps = { insecureRegistries: [], defaultAuthFile: undefined };

describe('image commands: arguments', () => {
  it('print their help on stdout and exit 0', async () => {
    for (const run of [runCatalogMirror, runCatalogPush]) {
      const io = captureIO();
      expect(await run(['-h'], io, deps)).toBe(0);
      expect(io.out()).toMatch(/^Usage: olmv1 catalog (mirror|push) /);
      expect(io.err()).toBe('');
    }
  });

  it('refuse a missing or extra positional and an unknown flag with the usage, exit 2', async () => {
    const cases: [typeof runCatalogMirror, string[], string][] = [
      [runCatalogMirror, ['quay.io/acme/catalog:v1'], 'Error: expected a catalog image and a mirror\n\nUsage: olmv1 catalog mirror'],
      [runCatalogMirror, ['a', 'b', 'c'], 'Error: expected a catalog image and a mirror\n\nUsage: olmv1 catalog mirror'],
      [runCatalogMirror, ['a', 'b', '--nope'], "Error: Unknown option '--nope'"],
      [runCatalogPush, ['dir'], 'Error: expected a directory and an image reference\n\nUsage: olmv1 catalog push'],
      [runCatalogPush, ['dir', 'ref', '--to-dir', 'x'], "Error: Unknown option '--to-dir'"],
    ];
    for (const [run, args, said] of cases) {
      const io = captureIO();
      expect(await run(args, io, deps), args.join(' ')).toBe(2);
      expect(io.err()).toContain(said);
      expect(io.out()).toBe('');
    }
  });

  it('refuse an --authfile that cannot be read, naming it, before any registry is reached', async () => {
    const dir = await testTempDir('olmv1-registry-args-');
    const io = captureIO();
    const missing = join(dir, 'auth.json');
    expect(await runCatalogMirror(['quay.io/acme/catalog:v1', 'mirror.example/acme', '--authfile', missing], io, deps)).toBe(2);
    expect(io.err()).toContain(`--authfile`);
    expect(io.err()).toContain(missing);
  });
});
