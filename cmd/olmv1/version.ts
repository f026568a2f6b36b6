/**
 * `olmv1 --version`: the version in the package.json found walking up from this file (the
 * repository, or dist/ in the container image).
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
