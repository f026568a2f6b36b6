/**
 * Builds a tool recipe from Go modules into the per-version cache, once per machine.
 *
 * Cache layout: `<cacheRoot>/<name>-<version>/` holds the binaries, `build-info.json` and the
 * generated module (`src/`) for provenance. A build happens in a sibling temp directory and is
 * renamed into place only after every binary proved its version, under a directory lock, so
 * concurrent runs never build twice nor see half a cache entry.
 */
import { access, chmod, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { runCommand } from './exec.ts';
import { goDirectiveFor, localReplacementsToPin, parseGoMod, renderLdflags, renderToolsGo, renderToolsGoMod } from './go-module.ts';
import { goDefaultBinaryName, runGo, type GoToolchain } from './go-toolchain.ts';
import { withLock } from './lock.ts';
import { recipeDirName, type ToolRecipe } from './tool-recipes.ts';
import { RECIPE_REVISION } from './versions.ts';

/** Progress sink (stderr in the entry points). */
export type Log = (line: string) => void;

/** Contents of `build-info.json` in a cache entry. */
export interface BuildInfo {
  recipeRevision: number;
  name: string;
  version: string;
  goVersion: string;
  builtAt: string;
  binaries: string[];
}

/**
 * Returns the cache directory of `recipe`, building it first when it is missing or was made
 * by another RECIPE_REVISION. `go` is only called when a build is needed, so a complete cache
 * works without a Go toolchain. Throws (with the failing command's output) when the build or a
 * version probe fails; nothing is left in the cache then.
 */
export async function ensureTool(recipe: ToolRecipe, cacheRoot: string, go: () => Promise<GoToolchain>, log: Log): Promise<string> {
  const finalDir = join(cacheRoot, recipeDirName(recipe));
  if (await isComplete(finalDir, recipe)) return finalDir;
  await mkdir(cacheRoot, { recursive: true });
  const lockDir = join(cacheRoot, `.${recipeDirName(recipe)}.lock`);
  return withLock(
    lockDir,
    async () => {
      // Another process may have finished the build while we waited for the lock.
      if (await isComplete(finalDir, recipe)) return finalDir;
      await removeAbandonedStages(cacheRoot, recipe);
      await build(recipe, finalDir, await go(), log);
      return finalDir;
    },
    { onWait: (holder) => log(`waiting for ${holder} to finish building ${recipe.name} ${recipe.version}`) },
  );
}

/** True when `dir` holds a complete build of `recipe` made by the current RECIPE_REVISION. */
export async function isComplete(dir: string, recipe: ToolRecipe): Promise<boolean> {
  try {
    const info = JSON.parse(await readFile(join(dir, 'build-info.json'), 'utf8')) as Partial<BuildInfo>;
    if (info.recipeRevision !== RECIPE_REVISION || info.version !== recipe.version) return false;
    for (const binary of recipe.binaries) await access(join(dir, binary.name));
    return true;
  } catch {
    return false;
  }
}

/** Deletes half-finished builds of `recipe` left by interrupted runs (we hold its lock). */
async function removeAbandonedStages(cacheRoot: string, recipe: ToolRecipe): Promise<void> {
  const prefix = `.build-${recipeDirName(recipe)}-`;
  for (const entry of await readdir(cacheRoot)) {
    if (entry.startsWith(prefix)) await rm(join(cacheRoot, entry), { recursive: true, force: true });
  }
}

async function build(recipe: ToolRecipe, finalDir: string, go: GoToolchain, log: Log): Promise<void> {
  const names = recipe.binaries.map((b) => b.name).join(', ');
  const started = Date.now();
  log(`building ${names} ${recipe.version} from Go modules with ${go.version} (first run only, ${recipe.estimate})`);
  const stage = await mkdtemp(join(dirname(finalDir), `.build-${recipeDirName(recipe)}-`));
  try {
    const src = join(stage, 'src');
    await mkdir(src);
    await writeModule(recipe, src, go);
    await runGo(go, ['mod', 'tidy'], src);
    const ldflags = renderLdflags(recipe.stamps);
    await runGo(go, ['build', '-trimpath', '-buildvcs=false', `-ldflags=${ldflags}`, '-o', stage + '/', ...recipe.binaries.map((b) => b.pkg)], src);
    for (const binary of recipe.binaries) {
      const built = goDefaultBinaryName(binary.pkg);
      if (built !== binary.name) await rename(join(stage, built), join(stage, binary.name));
    }
    await probeVersions(recipe, stage);
    const info: BuildInfo = {
      recipeRevision: RECIPE_REVISION,
      name: recipe.name,
      version: recipe.version,
      goVersion: go.version,
      builtAt: new Date().toISOString(),
      binaries: recipe.binaries.map((b) => b.name),
    };
    await writeFile(join(stage, 'build-info.json'), JSON.stringify(info, null, 2) + '\n');
    await chmod(stage, 0o755);
    // An entry of an older recipe revision is replaced; we hold the lock, nobody else writes it.
    await rm(finalDir, { recursive: true, force: true });
    await rename(stage, finalDir);
    log(`built ${names} ${recipe.version} in ${Math.round((Date.now() - started) / 1000)} s -> ${finalDir}`);
  } catch (err) {
    await rm(stage, { recursive: true, force: true });
    throw new Error(`building ${names} ${recipe.version} from Go modules failed: ${(err as Error).message}`, { cause: err });
  }
}

/** Writes go.mod, tools.go and the recipe's own sources into `src`. */
async function writeModule(recipe: ToolRecipe, src: string, go: GoToolchain): Promise<void> {
  // A placeholder module first, so the download below never runs inside some other module
  // that happens to contain the cache directory.
  const ourModule = `olmv1.local/envtest/${recipe.name}`;
  await writeFile(join(src, 'go.mod'), `module ${ourModule}\n\ngo ${goDirectiveFor(go.version)}\n`);
  const { stdout } = await runGo(go, ['mod', 'download', '-json', `${recipe.module}@${recipe.version}`], src);
  const download = JSON.parse(stdout) as { GoMod?: string; Error?: string };
  if (download.GoMod === undefined) {
    throw new Error(`go mod download ${recipe.module}@${recipe.version} returned no go.mod${download.Error ? `: ${download.Error}` : ''}`);
  }
  const upstream = parseGoMod(await readFile(download.GoMod, 'utf8'));
  const goModText = renderToolsGoMod({
    module: ourModule,
    goVersion: goDirectiveFor(go.version),
    requires: [{ path: recipe.module, version: recipe.version }],
    pins: localReplacementsToPin(upstream, recipe.siblingVersion),
    godebug: upstream.godebug,
  });
  await writeFile(join(src, 'go.mod'), goModText);
  const upstreamMains = recipe.binaries.map((b) => b.pkg).filter((p) => !p.startsWith('./'));
  if (upstreamMains.length > 0) await writeFile(join(src, 'tools.go'), renderToolsGo(upstreamMains));
  for (const [path, content] of Object.entries(recipe.sources)) {
    await mkdir(dirname(join(src, path)), { recursive: true });
    await writeFile(join(src, path), content);
  }
}

async function probeVersions(recipe: ToolRecipe, dir: string): Promise<void> {
  for (const probe of recipe.probes) {
    const { stdout } = await runCommand(join(dir, probe.binary), probe.args, { timeoutMs: 60_000 });
    if (!stdout.includes(probe.expect)) {
      throw new Error(`${probe.binary} ${probe.args.join(' ')} printed "${stdout.trim()}", expected it to contain "${probe.expect}"`);
    }
  }
}
