/**
 * The catalog image path filter (upstream `onlyPath`): label and entry names lose one leading `/`
 * and are cleaned; an entry is kept when it is the directory or under it (component-aware); `""`
 * and `"/"` keep everything; `../x` entries are dropped; a label like `../x` fails with `error
 * getting relative path: ...`. Entries are not re-rooted.
 */
import { goCleanPath, goRelPath } from './go-path.ts';

/** The image config label that names the FBC directory of a catalog image. */
export const CATALOG_CONFIGS_LABEL = 'operators.operatorframework.io.index.configs.v1';

/** Decides whether a tar entry name is unpacked; may throw for an unusable filter. */
export type EntryFilter = (entryName: string) => boolean;

function trimOneSlash(p: string): string {
  return p.startsWith('/') ? p.slice(1) : p;
}

/**
 * A filter keeping `dir` and everything under it.
 *
 * @returns a filter that throws `error getting relative path: Rel: can't make <e> relative
 *   to <dir>` for entries that cannot be related to `dir`.
 */
export function onlyPath(dir: string): EntryFilter {
  const want = goCleanPath(trimOneSlash(dir));
  return (entryName: string): boolean => {
    const name = goCleanPath(trimOneSlash(entryName));
    let rel: string;
    try {
      rel = goRelPath(want, name);
    } catch (err) {
      throw new Error(`error getting relative path: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    return !(rel === '..' || rel.startsWith('../'));
  };
}
