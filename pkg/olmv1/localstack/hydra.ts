/**
 * ORY Hydra, the OpenID Connect provider of the console's sign-in tests (decision 0144), built
 * from its Go module source into `<cacheRoot>/hydra-<version>/` once per machine, in the Go build
 * slot like the other tools. Not through a generated wrapper module (build.ts): Hydra's own
 * `replace` of pop applies only when Hydra is the main module, so it is built inside its source
 * tree, with the `replace` of its client dropped (`./internal/httpclient` is a nested module the
 * module zip leaves out). `DSN=memory` needs SQLite: CGO on and `-tags sqlite`.
 */
import { existsSync } from 'node:fs';
import { chmod, cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withGoBuildSlot, type Log } from './build.ts';
import { runCommand } from './exec.ts';
import { goDirectiveFor } from './go-module.ts';
import { runGo, type GoToolchain } from './go-toolchain.ts';
import { errorMessage } from '../../shared/errors/index.ts';

/** github.com/ory/hydra/v2 release of the tests' OpenID Connect provider. */
const HYDRA_VERSION = 'v2.3.0';
const HYDRA_MODULE = 'github.com/ory/hydra/v2';
const CLIENT_REPLACE = /^replace\s+github\.com\/ory\/hydra-client-go\/v2\s+=>\s+\.\/internal\/httpclient\s*$/;

/**
 * Hydra's go.mod without the `replace` of its client by the nested module the module zip lacks
 * (the client's published version is used instead); throws when there is no such line.
 */
export function withoutNestedClientReplace(goMod: string): string {
  const lines = goMod.split('\n');
  const kept = lines.filter((line) => !CLIENT_REPLACE.test(line.trim()));
  if (kept.length === lines.length) throw new Error(`Hydra's go.mod has no replace of hydra-client-go by ./internal/httpclient`);
  return kept.join('\n');
}

/**
 * The path of the `hydra` binary at HYDRA_VERSION, built first when the cache lacks it (about
 * 4 minutes on 2 cores, the SQLite C code most of it). `go` is called only for a build. Throws
 * with Go's output when the build or its version probe fails, leaving nothing in the cache.
 */
export async function resolveHydra(options: { cacheRoot: string; go: () => Promise<GoToolchain>; log: Log }): Promise<string> {
  const { cacheRoot, log } = options;
  const dir = join(cacheRoot, `hydra-${HYDRA_VERSION}`);
  const binary = join(dir, 'hydra');
  if (existsSync(binary)) return binary;
  return withGoBuildSlot(cacheRoot, `hydra ${HYDRA_VERSION}`, log, async () => {
    if (existsSync(binary)) return binary;
    const go = await options.go();
    const started = Date.now();
    log(`building hydra ${HYDRA_VERSION} from its Go module with ${go.version} (first run only; about 4 minutes on 2 idle cores)`);
    await mkdir(cacheRoot, { recursive: true });
    const stage = await mkdtemp(join(cacheRoot, `.build-hydra-${HYDRA_VERSION}-`));
    try {
      await writeFile(join(stage, 'go.mod'), `module olmv1.local/envtest/hydra-download\n\ngo ${goDirectiveFor(go.version)}\n`);
      const { stdout } = await runGo(go, ['mod', 'download', '-json', `${HYDRA_MODULE}@${HYDRA_VERSION}`], stage);
      const download = JSON.parse(stdout) as { Dir?: string; Error?: string };
      if (download.Dir === undefined)
        throw new Error(`go mod download ${HYDRA_MODULE}@${HYDRA_VERSION} returned no directory: ${download.Error ?? ''}`);
      const src = join(stage, 'src');
      // Go's module cache is read-only; the copy is made writable so go.mod can change and the stage be removed.
      await cp(download.Dir, src, { recursive: true });
      await runCommand('chmod', ['-R', 'u+w', src]);
      await writeFile(join(src, 'go.mod'), withoutNestedClientReplace(await readFile(join(src, 'go.mod'), 'utf8')));
      const ldflags = `-s -w -X ${HYDRA_MODULE}/driver/config.Version=${HYDRA_VERSION}`;
      const env = { ...go.env, CGO_ENABLED: '1' };
      const args = [
        'build',
        '-tags',
        'sqlite,sqlite_omit_load_extension',
        '-trimpath',
        '-buildvcs=false',
        `-ldflags=${ldflags}`,
        '-o',
        join(stage, 'hydra'),
        '.',
      ];
      await runGo({ ...go, env }, args, src);
      await rm(src, { recursive: true, force: true });
      const { stdout: version } = await runCommand(join(stage, 'hydra'), ['version']);
      if (!version.includes(HYDRA_VERSION)) throw new Error(`hydra version printed "${version.trim()}", expected ${HYDRA_VERSION}`);
      await rm(join(stage, 'go.mod'));
      await chmod(stage, 0o755);
      await rename(stage, dir);
      log(`built hydra ${HYDRA_VERSION} in ${Math.round((Date.now() - started) / 1000)} s -> ${dir}`);
      return binary;
    } catch (err) {
      await runCommand('chmod', ['-R', 'u+w', stage]).catch(() => undefined);
      await rm(stage, { recursive: true, force: true });
      throw new Error(`building hydra ${HYDRA_VERSION} failed: ${errorMessage(err)}`, { cause: err });
    }
  });
}
