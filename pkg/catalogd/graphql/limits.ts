/**
 * Upstream catalogd's complexity check of a query, made on its syntax before anything runs:
 * selection depth at most 10 (a fragment's selections one level below its spread, each
 * fragment entered once per operation), at most 50 aliases and 500 fields in all. Its
 * messages are upstream's.
 */
import { type DocumentNode, type FragmentDefinitionNode, GraphQLError, Kind, type SelectionSetNode, parse } from 'graphql';

const MAX_DEPTH = 10;
const MAX_ALIASES = 50;
const MAX_FIELDS = 500;

/** A parsed query, or why it is refused (upstream's message). */
type CheckedQuery = { ok: true; document: DocumentNode } | { ok: false; message: string };

/** Parses `query` and applies the complexity limits. */
export function checkQuery(query: string): CheckedQuery {
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch (err) {
    // A query nested deeper than the parser's stack allows is refused like any other syntax error.
    const message = err instanceof GraphQLError ? err.message : 'Syntax Error: the query is nested too deeply.';
    return { ok: false, message: `query parse error: ${message}` };
  }
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const count = { aliases: 0, fields: 0 };
  for (const def of document.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    const message = walk(def.selectionSet, 1, count, fragments, new Set());
    if (message !== undefined) return { ok: false, message };
  }
  return { ok: true, document };
}

function walk(
  set: SelectionSetNode | undefined,
  depth: number,
  count: { aliases: number; fields: number },
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  visited: Set<string>,
): string | undefined {
  if (set === undefined) return undefined;
  if (depth > MAX_DEPTH) return `query exceeds maximum depth of ${MAX_DEPTH}`;
  for (const sel of set.selections) {
    let message: string | undefined;
    if (sel.kind === Kind.FIELD) {
      if (++count.fields > MAX_FIELDS) return `query exceeds maximum field count of ${MAX_FIELDS}`;
      if (sel.alias !== undefined && sel.alias.value !== '' && ++count.aliases > MAX_ALIASES)
        return `query exceeds maximum alias count of ${MAX_ALIASES}`;
      message = walk(sel.selectionSet, depth + 1, count, fragments, visited);
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      message = walk(sel.selectionSet, depth + 1, count, fragments, visited);
    } else {
      const name = sel.name.value;
      if (visited.has(name)) continue;
      visited.add(name);
      message = walk(fragments.get(name)?.selectionSet, depth + 1, count, fragments, visited);
    }
    if (message !== undefined) return message;
  }
  return undefined;
}
