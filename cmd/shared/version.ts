/**
 * The version of the package.json found walking up from this file (the repository, or dist/ in
 * the container image): `olmv1 --version`, and the components' `version` command in upstream's
 * text, whose commit, date and state are "unknown", as upstream prints them when its build
 * recorded none.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'olmv1';

/** The `version` of the nearest package.json named olmv1 above `from` (a file URL). */
export async function packageVersion(from: string = import.meta.url): Promise<string> {
  for (let dir = dirname(fileURLToPath(from)); ; dir = dirname(dir)) {
    const pkg = await readFile(join(dir, 'package.json'), 'utf8').then(
      (text) => JSON.parse(text) as { name?: unknown; version?: unknown },
      () => undefined,
    );
    if (pkg?.name === PACKAGE_NAME && typeof pkg.version === 'string') return pkg.version;
    if (dirname(dir) === dir) throw new Error(`no package.json named ${PACKAGE_NAME} above ${fileURLToPath(from)}`);
  }
}

/** Upstream's version text for {@link packageVersion}. */
export async function componentVersion(from: string = import.meta.url): Promise<string> {
  // Go's %q of these ASCII strings is JSON's quoting.
  const q = (s: string): string => JSON.stringify(s);
  return `version: ${q(`v${await packageVersion(from)}`)}, commit: ${q('unknown')}, date: ${q('unknown')}, state: ${q('unknown')}`;
}
