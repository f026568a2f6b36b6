/**
 * Small static Go programs the local node needs (the pause image's sleeper, test probes): one
 * standard-library `main.go`, built with CGO off, cached under `<cacheRoot>/go-programs/` by
 * the hash of its source and the Go version, built in the build slot like the tools.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withGoBuildSlot, type Log } from './build.ts';
import { goDirectiveFor } from './go-module.ts';
import { runGo, type GoToolchain } from './go-toolchain.ts';
import { errorMessage } from '../../shared/errors/index.ts';

/** A program to build: a name (binary file name) and the text of its `main.go`. */
export interface GoProgram {
  name: string;
  source: string;
}

/**
 * Returns the path of `program` built as a static linux binary, building it first when the
 * cache lacks it. Throws with Go's output when the build fails, leaving nothing in the cache.
 */
export async function buildGoProgram(program: GoProgram, cacheRoot: string, go: GoToolchain, log: Log): Promise<string> {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(program.name)) throw new Error(`not a program name: "${program.name}"`);
  const hash = createHash('sha256').update(go.version).update('\0').update(program.source).digest('hex').slice(0, 16);
  const dir = join(cacheRoot, 'go-programs', `${program.name}-${hash}`);
  const binary = join(dir, program.name);
  if (existsSync(binary)) return binary;
  return withGoBuildSlot(cacheRoot, program.name, log, async () => {
    if (existsSync(binary)) return binary;
    await mkdir(join(cacheRoot, 'go-programs'), { recursive: true });
    const stage = await mkdtemp(join(cacheRoot, 'go-programs', `.${program.name}-`));
    try {
      await writeFile(join(stage, 'go.mod'), `module olmv1.local/${program.name}\n\ngo ${goDirectiveFor(go.version)}\n`);
      await writeFile(join(stage, 'main.go'), program.source);
      const env = { ...go.env, CGO_ENABLED: '0', GOOS: 'linux' };
      await runGo({ ...go, env }, ['build', '-trimpath', '-buildvcs=false', '-ldflags=-s -w', '-o', program.name, '.'], stage);
      await rm(join(stage, 'go.mod'));
      await rm(join(stage, 'main.go'));
      await rename(stage, dir);
      return binary;
    } catch (err) {
      await rm(stage, { recursive: true, force: true });
      throw new Error(`building ${program.name}: ${errorMessage(err)}`, { cause: err });
    }
  });
}
