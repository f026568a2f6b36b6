/**
 * Loading a whole catalog into typed form (upstream `LoadFS` / `LoadSlice`). This holds every
 * document in memory; use `walkMetas` to stream instead.
 */
import { addDocument, emptyConfig } from './decode-config.ts';
import { FbcLoadError } from './errors.ts';
import type { DeclarativeConfig, Meta } from './types.ts';
import { walkDocuments, type WalkOptions } from './walk.ts';

/**
 * Loads the catalog under `root`. Errors name the failing document's file and line and keep
 * upstream's text. Without `opts.onError` the first is thrown; with it every error is reported
 * and the failing documents are left out.
 */
export async function loadFS(root: string, opts: WalkOptions = {}): Promise<DeclarativeConfig> {
  const cfg = emptyConfig();
  for await (const doc of walkDocuments(root, opts)) {
    const detail = addDocument(cfg, doc.meta, doc.value);
    if (detail === undefined) continue;
    const err = new FbcLoadError(detail, { file: doc.source.file, line: doc.source.line });
    if (opts.onError === undefined) throw err;
    opts.onError(err);
  }
  return cfg;
}

/**
 * Builds a typed config from Metas (upstream `LoadSlice`), parsing each known-schema blob.
 * Throws {@link FbcLoadError} (without location) on the first rejected Meta.
 */
export function loadMetas(metas: Iterable<Meta>): DeclarativeConfig {
  const cfg = emptyConfig();
  for (const meta of metas) {
    const detail = addDocument(cfg, meta);
    if (detail !== undefined) throw new FbcLoadError(detail);
  }
  return cfg;
}
