/**
 * Walking a catalog that arrives as a stream of entries (an image layer's tar) without writing
 * it to disk. The result must be what `walkDocuments` (walk.ts) yields for the unpacked tree, so
 * the stream is accepted only when reading it in order is walking that tree: files in
 * `fs.WalkDir` order, each path once, none sharing a directory's path or under another file;
 * only regular files and directories; and `.indexignore` patterns known when a file arrives
 * deciding as those of the whole tree. Otherwise {@link NeedsUnpackError}: the caller unpacks
 * and walks the directory. A decoding error is thrown only once the rest of the stream passed
 * these rules, so it is the error the directory walk would report first.
 */
import { compareWalkOrder } from '../../gocompat/gotext/index.ts';
import { FbcLoadError } from './errors.ts';
import { IgnoreMatcher, type IgnorePattern, parseIndexIgnore } from './indexignore.ts';
import { decodeFileDocuments, INDEX_IGNORE, MAX_INDEX_IGNORE_BYTES, newWalkState, type WalkedDocument, type WalkOptions } from './walk.ts';

/**
 * One entry of a streamed tree. `path` is clean, relative and '/'-separated (`configs/a.json`);
 * `body` yields a file's content and is skipped when not read.
 */
export interface TreeEntry {
  path: string;
  kind: 'file' | 'dir' | 'other';
  /** For `other`: what the entry is (named in {@link NeedsUnpackError}). */
  what?: string;
  body: AsyncIterable<Buffer>;
}

/** The stream cannot be read as a directory walk; unpack it and walk the directory instead. */
export class NeedsUnpackError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NeedsUnpackError';
  }
}

function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) out.push(path.slice(0, i));
  return out;
}

// An `.indexignore` file's text. One over the size the directory walk reads is left to that
// walk (by unpacking), which refuses it with its path.
async function readText(path: string, body: AsyncIterable<Buffer>): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_INDEX_IGNORE_BYTES) throw new NeedsUnpackError(`${path} is larger than ${MAX_INDEX_IGNORE_BYTES} bytes`);
    parts.push(Buffer.from(chunk));
  }
  return Buffer.concat(parts).toString('utf8');
}

/**
 * Yields the catalog documents `entries` streams, in directory-walk order, paths relative to the
 * tree's root.
 *
 * @throws NeedsUnpackError (see module comment); FbcLoadError as `walkDocuments` would throw it
 *   (`opts.onError` is not supported: the first decoding error ends the walk).
 */
export async function* walkEntryDocuments(
  entries: AsyncIterable<TreeEntry>,
  opts: Pick<WalkOptions, 'signal' | 'stats' | 'limits'> = {},
): AsyncGenerator<WalkedDocument> {
  const state = newWalkState(opts);
  const files: Array<{ path: string; decoded: boolean }> = [];
  const fileSet = new Set<string>();
  const dirSet = new Set<string>();
  const patterns: IgnorePattern[] = [];
  let matcher = new IgnoreMatcher(patterns);
  let last: string | undefined;
  let failure: FbcLoadError | undefined;

  for await (const entry of entries) {
    opts.signal?.throwIfAborted();
    const { path } = entry;
    if (entry.kind === 'other') throw new NeedsUnpackError(`${path} is ${entry.what ?? 'neither a regular file nor a directory'}`);
    for (const a of ancestors(path)) {
      if (fileSet.has(a)) throw new NeedsUnpackError(`${path} lies under the file ${a}`);
    }
    if (entry.kind === 'dir') {
      if (fileSet.has(path)) throw new NeedsUnpackError(`directory ${path} replaces a file`);
      dirSet.add(path);
      continue;
    }
    if (dirSet.has(path)) throw new NeedsUnpackError(`file ${path} replaces a directory`);
    if (last !== undefined && compareWalkOrder(last, path) >= 0) throw new NeedsUnpackError(`${path} comes after ${last}, not in walk order`);
    last = path;
    fileSet.add(path);

    const slash = path.lastIndexOf('/');
    if (path.slice(slash + 1) === INDEX_IGNORE) {
      patterns.push(...parseIndexIgnore(await readText(path, entry.body), slash < 0 ? [] : path.slice(0, slash).split('/')));
      matcher = new IgnoreMatcher(patterns);
      continue;
    }
    // After a decoding error the rest is only checked: the walk would stop there too.
    const decode = failure === undefined && !matcher.ignores(path);
    files.push({ path, decoded: decode });
    if (!decode) continue;
    if (opts.stats !== undefined) opts.stats.files++;
    try {
      yield* decodeFileDocuments(path, entry.body, { signal: opts.signal, stats: opts.stats }, state);
    } catch (err) {
      if (!(err instanceof FbcLoadError)) throw err;
      failure = err;
    }
  }

  // The walk of the unpacked tree applies all patterns to every file: every file decoded so
  // far must be one it decodes and every file passed over one it ignores.
  for (const f of files) {
    if (f.decoded === matcher.ignores(f.path)) {
      throw new NeedsUnpackError(`an ${INDEX_IGNORE} that comes later in the stream decides differently about ${f.path}`);
    }
    if (failure !== undefined && f.path === failure.file) break;
  }
  if (failure !== undefined) throw failure;
}
