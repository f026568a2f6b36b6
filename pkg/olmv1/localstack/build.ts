/**
 * Builds a tool recipe from Go modules into `<cacheRoot>/<name>-<version>/` (binaries,
 * `build-info.json`, the generated module in `src/`), once per machine: in a sibling temp
 * directory, renamed into place once every binary proved its version, so no run sees half an
 * entry. Go builds under one cache root run one at a time, across processes too (each `go build`
 * uses every core), and are never killed for taking long. An interrupted or failed build leaves
 * `.<name>-<version>.attempt.json`; the next run says it resumes from Go's build cache.
 */
import { access, chmod, cp, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { runCommand } from './exec.ts';
import { goDirectiveFor, localReplacementsToPin, parseGoMod, renderLdflags, renderToolsGo, renderToolsGoMod } from './go-module.ts';
import { goDefaultBinaryName, runGo, type GoToolchain } from './go-toolchain.ts';
import { withLock } from './lock.ts';
import { coldBuildEstimate, recipeDirName, type ToolRecipe } from './tool-recipes.ts';
import { RECIPE_REVISION } from './versions.ts';
import { errorMessage } from '../../shared/errors/index.ts';

/** Progress sink (stderr in the entry points). */
export type Log = (line: string) => void;

/** Contents of `build-info.json` in a cache entry. */
interface BuildInfo {
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
  return withGoBuildSlot(cacheRoot, `${recipe.name} ${recipe.version}`, log, async () => {
    // Another process may have finished the build while we waited for the slot.
    if (await isComplete(finalDir, recipe)) return finalDir;
    await removeAbandonedStages(cacheRoot, recipe);
    await build(recipe, finalDir, await go(), log, await readAttempt(cacheRoot, recipe));
    return finalDir;
  });
}

/**
 * Runs `fn`, a Go build of `what`, when no other Go build under `cacheRoot` runs (in this
 * process or another), and says so while it waits.
 */
export async function withGoBuildSlot<T>(cacheRoot: string, what: string, log: Log, fn: () => Promise<T>): Promise<T> {
  await mkdir(cacheRoot, { recursive: true });
  return withLock(join(cacheRoot, '.go-build.lock'), fn, {
    onWait: (holder) => log(`waiting for ${holder} to finish its Go build before building ${what} (one Go build at a time: each uses every core)`),
  });
}

/** What `.<name>-<version>.attempt.json` records: a build that started and did not finish. */
interface BuildAttempt {
  startedAt: string;
  /** The failure's first line, when the build failed (absent: it was interrupted). */
  error?: string;
}

/**
 * The line that starts a build: what, with which Go, how long a cold build takes on `cores`
 * idle cores, and whether it resumes an earlier attempt.
 */
export function buildStartMessage(recipe: ToolRecipe, goVersion: string, earlier: BuildAttempt | undefined, cores: number): string {
  const what = `${recipe.binaries.map((b) => b.name).join(', ')} ${recipe.version}`;
  const estimate = coldBuildEstimate([recipe], cores);
  if (earlier === undefined) return `building ${what} from Go modules with ${goVersion} (first run only; ${estimate}, longer on a busy machine)`;
  const how = earlier.error === undefined ? 'was interrupted' : `failed (${earlier.error})`;
  return (
    `building ${what} again with ${goVersion}: the build started at ${earlier.startedAt} ${how}; ` +
    `it resumes from what Go's build cache kept, so it takes less than a cold build (${estimate})`
  );
}

function attemptFile(cacheRoot: string, recipe: ToolRecipe): string {
  return join(cacheRoot, `.${recipeDirName(recipe)}.attempt.json`);
}

async function readAttempt(cacheRoot: string, recipe: ToolRecipe): Promise<BuildAttempt | undefined> {
  try {
    const parsed = JSON.parse(await readFile(attemptFile(cacheRoot, recipe), 'utf8')) as Partial<BuildAttempt>;
    if (typeof parsed.startedAt !== 'string') return undefined;
    return { startedAt: parsed.startedAt, ...(typeof parsed.error === 'string' ? { error: parsed.error } : {}) };
  } catch {
    return undefined;
  }
}

/** True when `dir` holds a complete build of `recipe` made by the current RECIPE_REVISION. */
async function isComplete(dir: string, recipe: ToolRecipe): Promise<boolean> {
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

async function build(recipe: ToolRecipe, finalDir: string, go: GoToolchain, log: Log, earlier: BuildAttempt | undefined): Promise<void> {
  const names = recipe.binaries.map((b) => b.name).join(', ');
  const started = Date.now();
  log(buildStartMessage(recipe, go.version, earlier, availableParallelism()));
  const attempt: BuildAttempt = { startedAt: new Date(started).toISOString() };
  const cacheRoot = dirname(finalDir);
  await writeFile(attemptFile(cacheRoot, recipe), `${JSON.stringify(attempt)}\n`);
  const stage = await mkdtemp(join(dirname(finalDir), `.build-${recipeDirName(recipe)}-`));
  try {
    const src = join(stage, 'src');
    await mkdir(src);
    const moduleDir = await writeModule(recipe, src, go);
    await runGo(go, ['mod', 'tidy'], src);
    const ldflags = renderLdflags(recipe.stamps);
    await runGo(go, ['build', '-trimpath', '-buildvcs=false', `-ldflags=${ldflags}`, '-o', stage + '/', ...recipe.binaries.map((b) => b.pkg)], src);
    for (const binary of recipe.binaries) {
      const built = goDefaultBinaryName(binary.pkg);
      if (built !== binary.name) await rename(join(stage, built), join(stage, binary.name));
    }
    for (const dir of recipe.moduleDirs ?? []) {
      // Go's module cache is read-only; the copy is made writable so the entry can be removed.
      await cp(join(moduleDir, dir), join(stage, dir), { recursive: true });
      await runCommand('chmod', ['-R', 'u+w', join(stage, dir)]);
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
    await rm(attemptFile(cacheRoot, recipe), { force: true });
    log(`built ${names} ${recipe.version} in ${Math.round((Date.now() - started) / 1000)} s -> ${finalDir}`);
  } catch (err) {
    await rm(stage, { recursive: true, force: true });
    const message = errorMessage(err);
    const failed: BuildAttempt = { ...attempt, error: message.split('\n')[0]?.slice(0, 300) ?? '' };
    await writeFile(attemptFile(cacheRoot, recipe), `${JSON.stringify(failed)}\n`).catch(() => undefined);
    throw new Error(`building ${names} ${recipe.version} from Go modules failed: ${message}`, { cause: err });
  }
}

/**
 * Writes go.mod, tools.go and the recipe's own sources into `src`; returns the directory of
 * the upstream module's source in Go's module cache.
 */
async function writeModule(recipe: ToolRecipe, src: string, go: GoToolchain): Promise<string> {
  // A placeholder module first, so the download below never runs inside some other module
  // that happens to contain the cache directory.
  const ourModule = recipe.modulePath ?? `olmv1.local/envtest/${recipe.name}`;
  await writeFile(join(src, 'go.mod'), `module ${ourModule}\n\ngo ${goDirectiveFor(go.version)}\n`);
  const { stdout } = await runGo(go, ['mod', 'download', '-json', `${recipe.module}@${recipe.version}`], src);
  const download = JSON.parse(stdout) as { GoMod?: string; Dir?: string; Error?: string };
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
  return download.Dir ?? '';
}

async function probeVersions(recipe: ToolRecipe, dir: string): Promise<void> {
  for (const probe of recipe.probes) {
    const { stdout } = await runCommand(join(dir, probe.binary), probe.args);
    if (!stdout.includes(probe.expect)) {
      throw new Error(`${probe.binary} ${probe.args.join(' ')} printed "${stdout.trim()}", expected it to contain "${probe.expect}"`);
    }
  }
}
