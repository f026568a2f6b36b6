/**
 * The GraphQL schema of one catalog, built from its discovered shape as upstream catalogd builds
 * it: per catalog schema a root field (`olmbundles`) listing objects, with `limit` (default and
 * at most 100) and `offset` arguments, plus `summary`; objects are loaded at query time through
 * `QueryContext.load`. Objects (and arrays in String fields) are answered as Go's JSON text. One
 * deliberate difference: a list field of scalars answers its array (upstream answers its JSON
 * text, which its GraphQL library then rejects as not a list).
 */
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInt,
  GraphQLList,
  type GraphQLFieldConfig,
  type GraphQLFieldResolver,
  GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
} from 'graphql';
import type { JsonValue } from '../../shared/fbc/index.ts';
// The file alone, not the module's index: the query worker loads this module (decision 0111).
import { encodeGoJson } from '../../shared/fbc/canonical-json.ts';
import type { CatalogShape, FieldShape, ScalarType } from './discovery.ts';
import { fieldName, rootFieldName, typeName } from './names.ts';

/** What the resolvers of one query use: the catalog's objects and the query's answer budget. */
export interface QueryContext {
  /** The objects of `schema` from `offset` on, at most `limit`, in catalog order. */
  load(schema: string, offset: number, limit: number): Promise<Array<Record<string, unknown>>>;
  /** Counts `bytes` of answer; false once the budget is spent (the query is aborted, the value left out). */
  spend(bytes: number): boolean;
}

/** A schema whose names cannot be made distinct GraphQL names. */
class SchemaNameCollisionError extends Error {}

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 100;

const SCALARS: Record<ScalarType, GraphQLScalarType> = { String: GraphQLString, Int: GraphQLInt, Float: GraphQLFloat, Boolean: GraphQLBoolean };

type Resolver = GraphQLFieldResolver<unknown, QueryContext>;

/** Builds the schema; throws SchemaNameCollisionError when two catalog schemas map to one type or root field. */
export function buildCatalogSchema(shape: CatalogShape): GraphQLSchema {
  const types = new Map<string, string>();
  const roots = new Map<string, string>();
  for (const schema of shape.keys()) {
    for (const [seen, name, what] of [
      [types, typeName(schema), 'GraphQL type'],
      [roots, rootFieldName(schema), 'field'],
    ] as const) {
      const other = seen.get(name);
      if (other !== undefined)
        throw new SchemaNameCollisionError(
          `schemas ${JSON.stringify(other)} and ${JSON.stringify(schema)} both map to ${what} ${JSON.stringify(name)}`,
        );
      seen.set(name, schema);
    }
  }

  const fields: Record<string, GraphQLFieldConfig<unknown, QueryContext>> = {};
  for (const [schema, info] of shape) {
    const objectType = new GraphQLObjectType<Record<string, unknown>, QueryContext>({
      name: typeName(schema),
      fields: () => Object.fromEntries([...info.fields.values()].map((f) => [f.name, topLevelField(schema, f)])),
    });
    fields[rootFieldName(schema)] = {
      type: new GraphQLList(objectType),
      args: {
        limit: { type: GraphQLInt, defaultValue: DEFAULT_LIMIT, description: 'Maximum number of items to return' },
        offset: { type: GraphQLInt, defaultValue: 0, description: 'Number of items to skip' },
      },
      resolve: (_source, args: { limit?: number | null; offset?: number | null }, ctx) => {
        const limit = typeof args.limit === 'number' && args.limit > 0 && args.limit <= MAX_LIMIT ? args.limit : MAX_LIMIT;
        const offset = typeof args.offset === 'number' && args.offset > 0 ? args.offset : 0;
        return ctx.load(schema, offset, limit);
      },
    };
  }
  fields.summary = summaryField(shape);
  return new GraphQLSchema({ query: new GraphQLObjectType({ name: 'Query', fields }) });
}

function summaryField(shape: CatalogShape): GraphQLFieldConfig<unknown, QueryContext> {
  const schemaSummary = new GraphQLObjectType({
    name: 'SchemaSummary',
    fields: { name: { type: GraphQLString }, totalObjects: { type: GraphQLInt }, totalFields: { type: GraphQLInt } },
  });
  const summary = new GraphQLObjectType({
    name: 'CatalogSummary',
    fields: { totalSchemas: { type: GraphQLInt }, schemas: { type: new GraphQLList(schemaSummary) } },
  });
  return {
    type: summary,
    resolve: () => ({
      totalSchemas: shape.size,
      schemas: [...shape]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([name, info]) => ({ name, totalObjects: info.totalObjects, totalFields: info.fields.size })),
    }),
  };
}

function topLevelField(schema: string, field: FieldShape): GraphQLFieldConfig<Record<string, unknown>, QueryContext> {
  if (field.nested !== undefined && field.nested.size > 0) {
    const nested = field.nested;
    const elementType = new GraphQLObjectType<Record<string, unknown>, QueryContext>({
      name: typeName(schema) + typeName(field.name),
      fields: () => Object.fromEntries([...nested.values()].map((f) => [f.name, { type: scalarType(f), resolve: nestedResolver(f) }])),
    });
    // The elements themselves, so that their fields resolve.
    return { type: new GraphQLList(elementType), resolve: (source) => lookup(source, field.name) };
  }
  return { type: scalarType(field), resolve: valueResolver(field) };
}

function scalarType(field: FieldShape): GraphQLOutputType {
  const scalar = SCALARS[field.type];
  return field.isArray ? new GraphQLList(scalar) : scalar;
}

/** The value of the first key of `source` whose field name is `name`. */
function lookup(source: unknown, name: string): unknown {
  if (source === null || typeof source !== 'object' || Array.isArray(source)) return null;
  for (const [key, value] of Object.entries(source)) if (fieldName(key) === name) return value;
  return null;
}

function valueResolver(field: FieldShape): Resolver {
  return (source, _args, ctx) => answer(lookup(source, field.name), field.isArray, ctx);
}

function nestedResolver(field: FieldShape): Resolver {
  return (source, _args, ctx) => {
    const direct = source !== null && typeof source === 'object' && Object.hasOwn(source, field.name);
    const value = direct ? (source as Record<string, unknown>)[field.name] : lookup(source, field.name);
    return answer(value, field.isArray, ctx);
  };
}

const HTML_ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026' };

/**
 * Go's `json.Marshal`: keys sorted, and `<`, `>`, `&` escaped, which can only occur inside
 * strings, so replacing them in the encoded text is the same as escaping them there.
 */
export function goJson(value: JsonValue): string {
  return encodeGoJson(value).text.replace(/[<>&]/g, (c) => HTML_ESCAPES[c] ?? c);
}

/** A leaf value as upstream answers it (objects and arrays as Go's JSON text), counted against the budget. */
function answer(value: unknown, list: boolean, ctx: QueryContext): unknown {
  if (list && Array.isArray(value)) return value.map((v) => leaf(v, ctx));
  return leaf(value, ctx);
}

function leaf(value: unknown, ctx: QueryContext): unknown {
  if (value === null || value === undefined) return null;
  // Past the budget the query is over: no more encoding for the fields still being completed.
  if (!ctx.spend(0)) return null;
  const answered = typeof value === 'object' ? goJson(value as JsonValue) : value;
  return ctx.spend(typeof answered === 'string' ? answered.length : 8) ? answered : null;
}
