/**
 * Builds the Go oracle of the YAML parity test (`main.go` beside this file, pinned by its
 * go.mod/go.sum to the YAML libraries upstream OLM links) with the machine's Go toolchain,
 * once per source revision, into the envtest cache: `<cacheRoot>/goyaml-<hash>/goyaml`, where
 * `<hash>` covers main.go, go.mod and go.sum, so an edit rebuilds and an unchanged checkout
 * reuses the binary. The build runs in a staging directory renamed into place, in the envtest
 * cache's Go build slot: one Go build at a time, like the envtest binaries (pkg/olmv1/localstack/build.ts).
 */
import { createHash } from 'node:crypto';
import { access, copyFile, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findGoToolchain, runGo, withGoBuildSlot } from '../../pkg/olmv1/localstack/index.ts';

const SOURCE_DIR = dirname(fileURLToPath(import.meta.url));
const SOURCES = ['main.go', 'go.mod', 'go.sum'] as const;

/** Path of the oracle binary for the current sources; builds it when missing. */
export async function ensureGoYamlOracle(cacheRoot: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<string> {
  const hash = createHash('sha256');
  for (const name of SOURCES) hash.update(`${name}\0`).update(await readFile(join(SOURCE_DIR, name)));
  const dir = join(cacheRoot, `goyaml-${hash.digest('hex').slice(0, 16)}`);
  const binary = join(dir, 'goyaml');
  if (await exists(binary)) return binary;
  return withGoBuildSlot(cacheRoot, 'the YAML parity oracle (test/goyaml)', log, async () => {
    if (await exists(binary)) return binary;
    const go = await findGoToolchain(env);
    log(`building the YAML parity oracle (test/goyaml) with ${go.version}`);
    const stage = await mkdtemp(`${dir}.build-`);
    try {
      for (const name of SOURCES) await copyFile(join(SOURCE_DIR, name), join(stage, name));
      await runGo(go, ['build', '-trimpath', '-buildvcs=false', '-o', join(stage, 'goyaml'), '.'], stage);
      await rm(dir, { recursive: true, force: true });
      await rename(stage, dir);
    } catch (err) {
      await rm(stage, { recursive: true, force: true });
      throw new Error(`building test/goyaml failed: ${(err as Error).message}`, { cause: err });
    }
    return binary;
  });
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
