/**
 * The order of the `integration` and `on-node` files, each project's among its own: vitest's own (failed first, then the slowest), except
 * that the files needing a tool the global setup builds in the background (deferred-tools.ts)
 * run last, by the last tool of that chain they need (node binaries, then helm,
 * cert-manager, cosign, hydra), so each waits for its build as little as possible and the others run meanwhile.
 *
 * A file needs a tool when it, or a test/support or test/envtest module it imports (relative
 * imports, followed transitively), calls the tool's getter or the resolve function behind it; a
 * file that starts `olmv1 up --node` needs the node binaries (the CLI resolves them from the same
 * cache).
 */
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** deferred-tools.ts's getters, in the order the background chain builds their tools. */
export const DEFERRED_GETTERS = ['envtestNodeBinaries', 'envtestHelm', 'envtestCertManager', 'envtestCosign', 'envtestHydra'] as const;
/** The resolve functions behind them, in the same order (a test may call one directly). */
const RESOLVERS = ['resolveNodeBinaries', 'resolveHelm', 'resolveCertManagerBinaries', 'resolveCosign', 'resolveHydra'] as const;

/** The projects whose files are reordered, each among its own. */
const PROJECTS = new Set(['integration', 'on-node']);
const NODE = DEFERRED_GETTERS.indexOf('envtestNodeBinaries');
const UP_NODE = /'up',\s*'--node'/;
const RELATIVE_IMPORT = /\b(?:from|import)\s+'(\.{1,2}\/[^']+\.ts)'/g;
const BLOCK_COMMENT = /\/\*[\s\S]*?\*\//g;
/** `//` at a line's start or after a blank (not in `http://`) to the end of the line. */
const LINE_COMMENT = /(^|\s)\/\/.*$/gm;

/** The tools (indexes into DEFERRED_GETTERS) that `source` itself needs, comments aside. */
export function toolsUsedBy(source: string): Set<number> {
  const code = source.replace(BLOCK_COMMENT, '').replace(LINE_COMMENT, '$1');
  const used = new Set<number>(UP_NODE.test(code) ? [NODE] : []);
  DEFERRED_GETTERS.forEach((getter, i) => {
    if (code.includes(`${getter}(`) || code.includes(`${RESOLVERS[i]}(`)) used.add(i);
  });
  return used;
}

/** The latest tool in DEFERRED_GETTERS that `source` itself needs (comments aside), or -1. */
export function toolsNeededBy(source: string): number {
  return Math.max(-1, ...toolsUsedBy(source));
}

/**
 * The tools the test file `file` needs, through the modules under `testDir`'s support/ and
 * envtest/ it imports (deferred-tools.ts, which defines the getters, excepted).
 */
export async function toolsUsed(file: string, testDir: string, read: (path: string) => Promise<string>): Promise<Set<number>> {
  const followed = [join(testDir, 'support') + sep, join(testDir, 'envtest') + sep];
  const getters = join(testDir, 'envtest', 'deferred-tools.ts');
  const seen = new Set<string>([file]);
  const queue = [file];
  const used = new Set<number>();
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    const source = await read(path);
    for (const tool of toolsUsedBy(source)) used.add(tool);
    for (const [, specifier] of source.matchAll(RELATIVE_IMPORT)) {
      const imported = resolve(dirname(path), specifier ?? '');
      if (seen.has(imported) || imported === getters || !followed.some((dir) => imported.startsWith(dir))) continue;
      seen.add(imported);
      queue.push(imported);
    }
  }
  return used;
}

/** The latest tool the test file `file` needs (see toolsUsed), or -1. */
export async function toolsNeeded(file: string, testDir: string, read: (path: string) => Promise<string>): Promise<number> {
  return Math.max(-1, ...(await toolsUsed(file, testDir, read)));
}

/** Whether the test file `file` runs on the local node (needs its binaries; see toolsUsed). */
export async function usesNode(file: string, testDir: string, read: (path: string) => Promise<string>): Promise<boolean> {
  return (await toolsUsed(file, testDir, read)).has(NODE);
}

/** `files` with those needing no tool (need -1) first, the others after by need; stable otherwise. */
export function orderByNeed<T>(files: readonly T[], need: (file: T) => number): T[] {
  return files
    .map((file, index) => ({ file, index, need: need(file) }))
    .sort((a, b) => a.need - b.need || a.index - b.index)
    .map((e) => e.file);
}

/** vitest's sequencer with the `integration` and `on-node` projects' files each reordered by orderByNeed. */
export class DeferredToolsSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const testDir = join(this.ctx.config.root, 'test');
    // A module that cannot be read adds no need (vitest reports the failed import itself).
    const read = (path: string): Promise<string> => readFile(path, 'utf8').catch(() => '');
    const reordered = new Map<string, TestSpecification[]>();
    for (const project of PROJECTS) {
      const ours = sorted.filter((s) => s.project.name === project);
      const needs = new Map<TestSpecification, number>();
      for (const spec of ours) needs.set(spec, await toolsNeeded(spec.moduleId, testDir, read));
      reordered.set(
        project,
        orderByNeed(ours, (spec) => needs.get(spec) ?? -1),
      );
    }
    // A project's files keep their places among the other projects' (vitest groups them anyway).
    return sorted.map((spec) => reordered.get(spec.project.name)?.shift() ?? spec);
  }
}
