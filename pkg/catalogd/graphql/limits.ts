/**
 * Upstream catalogd's complexity check of a query, made on its syntax before anything runs:
 * selection depth at most 10 (a fragment's selections one level below its spread), at most 50
 * aliases and 500 fields in all, with upstream's messages. Unlike upstream, which enters each
 * fragment once per operation, every spread counts its fragment where it is used, so a fragment
 * spread 25 times counts 25 times (decision 0111): the limits bound what execution does.
 *
 * The expansion itself is bounded: every selection visited (field, inline fragment, spread)
 * costs one step, and a query needing more than 5500 steps is refused with the field-count
 * message. A query within the limits never needs that many (each visited selection lies above
 * one of at most 500 fields, at most 10 deep), so only documents that graphql-js would refuse
 * anyway (spreads of unknown or cyclic fragments, repeated) meet that bound, without
 * exponential work.
 */
import { type DocumentNode, type FragmentDefinitionNode, GraphQLError, Kind, type SelectionSetNode, parse } from 'graphql';

const MAX_DEPTH = 10;
const MAX_ALIASES = 50;
const MAX_FIELDS = 500;
/** Selections visited at most while expanding a document (see the module comment). */
const MAX_STEPS = MAX_FIELDS * (MAX_DEPTH + 1);

/** A parsed query, or why it is refused (upstream's message). */
type CheckedQuery = { ok: true; document: DocumentNode } | { ok: false; message: string };

/** The walk's running totals, over all operations of the document (as upstream). */
interface Walk {
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  /** Fragments being expanded on the current path: spreading one again is a cycle, not followed. */
  readonly expanding: Set<string>;
  aliases: number;
  fields: number;
  steps: number;
}

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
  const state: Walk = { fragments, expanding: new Set(), aliases: 0, fields: 0, steps: 0 };
  for (const def of document.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    const message = walk(def.selectionSet, 1, state);
    if (message !== undefined) return { ok: false, message };
  }
  return { ok: true, document };
}

function walk(set: SelectionSetNode | undefined, depth: number, state: Walk): string | undefined {
  if (set === undefined) return undefined;
  if (depth > MAX_DEPTH) return `query exceeds maximum depth of ${MAX_DEPTH}`;
  for (const sel of set.selections) {
    if (++state.steps > MAX_STEPS) return `query exceeds maximum field count of ${MAX_FIELDS}`;
    let message: string | undefined;
    if (sel.kind === Kind.FIELD) {
      if (++state.fields > MAX_FIELDS) return `query exceeds maximum field count of ${MAX_FIELDS}`;
      if (sel.alias !== undefined && sel.alias.value !== '' && ++state.aliases > MAX_ALIASES)
        return `query exceeds maximum alias count of ${MAX_ALIASES}`;
      message = walk(sel.selectionSet, depth + 1, state);
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      message = walk(sel.selectionSet, depth + 1, state);
    } else {
      const name = sel.name.value;
      const fragment = state.fragments.get(name);
      // Unknown and cyclic spreads are left to graphql-js's validation, which refuses them.
      if (fragment === undefined || state.expanding.has(name)) continue;
      state.expanding.add(name);
      message = walk(fragment.selectionSet, depth + 1, state);
      state.expanding.delete(name);
    }
    if (message !== undefined) return message;
  }
  return undefined;
}
