/**
 * Reading containers-registries.conf from disk as containers/image finds it: a main file, then
 * drop-in directories of `*.conf` files in lexical order. The paths come from the composition
 * root (cmd/shared/registries-conf.ts); nothing is cached: every pull reads the files again,
 * as upstream invalidates its cache on every pull.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseRegistriesConfFile, type RegistriesConfFile } from './registries-conf-file.ts';
import { mergeRegistriesConf, type RegistriesConf } from './registries-conf.ts';

/** A main file and the drop-in directory read with it. */
interface RegistriesConfLocation {
  file: string;
  dir: string;
}

/**
 * Where registries.conf is read from, as containers/image chooses: `file` (which must exist)
 * then the drop-ins of `system.dir` and `user.dir`; else an existing `user.file` with `user.dir`
 * only; else `system.file` (missing: empty) then both drop-in dirs. Missing dirs are skipped.
 */
export interface RegistriesConfPaths {
  file?: string | undefined;
  user?: RegistriesConfLocation | undefined;
  system: RegistriesConfLocation;
}

/** The main file and drop-in directories `paths` resolve to now (the per-user file may come and go). */
export async function registriesConfSources(paths: RegistriesConfPaths): Promise<{ file: string; required: boolean; dirs: string[] }> {
  const userDirs = paths.user === undefined ? [] : [paths.user.dir];
  if (paths.file !== undefined) return { file: paths.file, required: true, dirs: [paths.system.dir, ...userDirs] };
  if (paths.user !== undefined && (await exists(paths.user.file))) return { file: paths.user.file, required: false, dirs: userDirs };
  return { file: paths.system.file, required: false, dirs: [paths.system.dir, ...userDirs] };
}

/**
 * Reads and merges the configuration `paths` name.
 *
 * @throws Error `loading registries configuration "<file>": <problem>` (a file that cannot be
 *   read, a required file that is missing, `line N: <problem>` for one that does not parse or
 *   validate) or `loading drop-in registries configuration "<file>": ...`, or `reading
 *   registries.conf.d: ...` for a drop-in directory that cannot be listed.
 */
export async function loadRegistriesConf(paths: RegistriesConfPaths): Promise<RegistriesConf> {
  const { file, required, dirs } = await registriesConfSources(paths);
  const files: RegistriesConfFile[] = [];
  const main = await readConf(file, false, !required);
  if (main !== undefined) files.push(main);
  for (const dir of dirs) {
    for (const dropIn of await dropInFiles(dir)) {
      // A file removed between the listing and the read is skipped, as upstream.
      const parsed = await readConf(dropIn, true, true);
      if (parsed !== undefined) files.push(parsed);
    }
  }
  return mergeRegistriesConf(files);
}

async function readConf(file: string, dropIn: boolean, missingOk: boolean): Promise<RegistriesConfFile | undefined> {
  const what = dropIn ? 'loading drop-in registries configuration' : 'loading registries configuration';
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if (missingOk && isNotFound(e)) return undefined;
    throw new Error(`${what} ${JSON.stringify(file)}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  const parsed = parseRegistriesConfFile(text, file, dropIn);
  if (!parsed.ok) throw new Error(`${what} ${JSON.stringify(file)}: ${parsed.error}`);
  return parsed.value;
}

/** `*.conf` entries of `dir` that are not directories, in lexical (byte) order; none when `dir` is missing. */
async function dropInFiles(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    if (isNotFound(e)) return [];
    throw new Error(`reading registries.conf.d: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  const names = entries.filter((e) => !e.isDirectory() && e.name.endsWith('.conf')).map((e) => e.name);
  // Byte order, as Go's directory walk: compare UTF-8 encodings, not UTF-16 code units.
  names.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return names.map((n) => join(dir, n));
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

function isNotFound(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
