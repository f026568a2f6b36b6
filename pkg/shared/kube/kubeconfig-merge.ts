/**
 * kubectl's reading of a `$KUBECONFIG` list (client-go `ClientConfigLoadingRules`): missing files
 * are skipped and the rest merged, first wins: clusters, users and contexts by name, whole; the
 * first non-empty `current-context`. Relative file references (and an exec `command` with a
 * `/`) are first made absolute against their file's directory, as `ResolveLocalPaths` does, so
 * the merged document can be handed on as YAML.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve as resolvePath } from 'node:path';
import { load } from 'js-yaml';
import { errorMessage, isErrno } from '../errors/index.ts';

type Obj = Record<string, unknown>;

/**
 * Reads and merges `paths` (empty entries are ignored) into one document (clusters, users,
 * contexts, current-context) whose paths are absolute.
 * @throws Error `error loading config file "<path>": <reason>` when a file exists but cannot be
 *   read or parsed, and `none of the kubeconfig files exists: <paths>` when no file exists.
 */
export function mergeKubeConfigFiles(paths: readonly string[]): Obj {
  const missing: string[] = [];
  const docs: Obj[] = [];
  for (const path of paths) {
    if (path === '') continue;
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      if (isErrno(err, 'ENOENT')) {
        missing.push(path);
        continue;
      }
      throw new Error(`error loading config file "${path}": ${errorMessage(err)}`, { cause: err });
    }
    let doc: unknown;
    try {
      doc = load(text);
    } catch (err) {
      throw new Error(`error loading config file "${path}": ${errorMessage(err)}`, { cause: err });
    }
    // An empty file is an empty kubeconfig, as client-go reads it.
    if (doc === undefined || doc === null) doc = {};
    if (!isObj(doc)) throw new Error(`error loading config file "${path}": not a kubeconfig (expected a YAML mapping)`);
    docs.push(absolutePaths(doc, dirname(resolvePath(path))));
  }
  if (docs.length === 0) throw new Error(`none of the kubeconfig files exists: ${missing.join(', ')}`);
  return mergeDocs(docs);
}

/** First wins: by name for the three lists, first non-empty `current-context`. */
function mergeDocs(docs: readonly Obj[]): Obj {
  const out: Obj = { apiVersion: 'v1', kind: 'Config', clusters: [], users: [], contexts: [] };
  for (const list of ['clusters', 'users', 'contexts'] as const) {
    const seen = new Set<string>();
    const merged: Obj[] = [];
    for (const doc of docs) {
      const entries = doc[list];
      if (!Array.isArray(entries)) continue;
      for (const entry of entries) {
        if (!isObj(entry) || typeof entry.name !== 'string' || seen.has(entry.name)) continue;
        seen.add(entry.name);
        merged.push(entry);
      }
    }
    out[list] = merged;
  }
  const current = docs.map((d) => d['current-context']).find((c) => typeof c === 'string' && c !== '');
  if (current !== undefined) out['current-context'] = current;
  return out;
}

// A copy of `doc` whose file references are absolute (relative ones against `base`).
function absolutePaths(doc: Obj, base: string): Obj {
  const abs = (v: unknown): unknown => (typeof v === 'string' && v !== '' && !isAbsolute(v) ? resolvePath(base, v) : v);
  const mapEntries = (list: unknown, field: string, fix: (o: Obj) => Obj): unknown =>
    Array.isArray(list) ? list.map((e) => (isObj(e) && isObj(e[field]) ? { ...e, [field]: fix(e[field]) } : e)) : list;
  const out: Obj = { ...doc };
  out.clusters = mapEntries(doc.clusters, 'cluster', (c) => withField(c, 'certificate-authority', abs));
  out.users = mapEntries(doc.users, 'user', (u) => {
    let user = withField(u, 'client-certificate', abs);
    user = withField(user, 'client-key', abs);
    user = withField(user, 'tokenFile', abs);
    const exec = user.exec;
    if (isObj(exec) && typeof exec.command === 'string' && exec.command.includes('/'))
      user = { ...user, exec: { ...exec, command: abs(exec.command) } };
    return user;
  });
  return out;
}

function withField(o: Obj, field: string, fix: (v: unknown) => unknown): Obj {
  return o[field] === undefined ? o : { ...o, [field]: fix(o[field]) };
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
