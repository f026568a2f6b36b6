/**
 * OpenAPI v3 component schemas compiled into the shape the API server's server-side apply
 * types objects with (structured-merge-diff, built by kube-openapi's schemaconv from the same
 * OpenAPI the server publishes). Only what decides which fields exist is kept: declared
 * properties, additionalProperties, array items, list keys and the extensions that open a
 * subtree. Descriptions, formats and value validations are dropped at compile time.
 *
 * The rules follow the server's conversion (decision 0044), not JSON Schema:
 * - `$ref`, or an `allOf` holding exactly one `$ref`, names another component; sibling
 *   keywords of such a reference are ignored (the server ignores them too).
 * - An object schema without `properties` and without `additionalProperties` accepts any
 *   fields; with `properties`, undeclared keys are accepted only when `additionalProperties`
 *   allows them or `x-kubernetes-preserve-unknown-fields` is set on it or on an enclosing
 *   inline schema (named components do not inherit it).
 * - A schema without `type` types objects and arrays as above; an array without `items`
 *   accepts anything. `Quantity` and `RawExtension` accept anything.
 */

/** How the server types the values found at one place of an object. */
export interface ObjectSchema {
  /** The component this schema was compiled from (e.g. `io.k8s.api.apps.v1.Deployment`). */
  readonly name?: string | undefined;
  /** Any value is accepted here whole, unknown fields included: nothing below is pruned. */
  readonly open: boolean;
  /** How object values are typed; absent when an object does not fit here (the server refuses it). */
  readonly object?: ObjectFields | undefined;
  /** How array values are typed; absent when an array does not fit here. */
  readonly list?: ListItems | undefined;
}

/** The fields of an object schema. */
export interface ObjectFields {
  /**
   * The schema of key `name`: the declared property, else the additionalProperties schema;
   * undefined when the server does not know the key (the field is "not declared in schema").
   */
  field(name: string): ObjectSchema | undefined;
  /** The scalar `default` of declared property `name`, if any (list keys may be defaulted). */
  fieldDefault(name: string): string | number | boolean | undefined;
}

/** The items of an array schema. */
export interface ListItems {
  /** Schema of every item (resolved on first use). */
  readonly items: ObjectSchema;
  /**
   * Key fields of an associative list (`x-kubernetes-list-type: map` with
   * `x-kubernetes-list-map-keys`, or a `merge` patch strategy with its merge key); undefined
   * for atomic lists and sets. The server names items of keyed lists by key, others by index.
   */
  readonly keys?: readonly string[] | undefined;
}

/** Compiled components of one OpenAPI document, looked up by component name. */
export interface SchemaTable {
  /** The compiled component `name`, or undefined when the document has none. */
  get(name: string): ObjectSchema | undefined;
  /** Number of components compiled so far (for memory accounting). */
  readonly size: number;
}

/** Accepts any value whole (untyped, deduced, preserved, Quantity, RawExtension). */
export const OPEN_SCHEMA: ObjectSchema = Object.freeze({ open: true });

// Components the server hard-codes as untyped, whatever their OpenAPI says.
const UNTYPED_COMPONENTS = new Set(['io.k8s.apimachinery.pkg.api.resource.Quantity', 'io.k8s.apimachinery.pkg.runtime.RawExtension']);
const REF_PREFIX = '#/components/schemas/';

type Raw = Record<string, unknown>;

function isRecord(v: unknown): v is Raw {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The component a schema refers to (`$ref` or a one-element `allOf` of a `$ref`), if it is a reference. */
function refName(raw: Raw): string | undefined {
  let ref = raw['$ref'];
  const allOf = raw['allOf'];
  if (typeof ref !== 'string' && Array.isArray(allOf) && allOf.length === 1 && isRecord(allOf[0])) ref = allOf[0]['$ref'];
  if (typeof ref !== 'string') return undefined;
  return ref.startsWith(REF_PREFIX) ? ref.slice(REF_PREFIX.length) : ref.slice(ref.lastIndexOf('/') + 1);
}

function listKeys(raw: Raw): string[] | undefined {
  const listType = raw['x-kubernetes-list-type'];
  if (listType !== undefined) {
    const keys = raw['x-kubernetes-list-map-keys'];
    if (listType !== 'map' || !Array.isArray(keys)) return undefined;
    return keys.filter((k): k is string => typeof k === 'string');
  }
  const strategy = raw['x-kubernetes-patch-strategy'];
  const key = raw['x-kubernetes-patch-merge-key'];
  if (typeof strategy === 'string' && strategy.split(',').includes('merge') && typeof key === 'string') return [key];
  return undefined;
}

function scalarDefault(v: unknown): string | number | boolean | undefined {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : undefined;
}

/**
 * Compiles the `components.schemas` of an OpenAPI v3 document. Components are compiled on
 * first lookup and memoized; references between them are resolved when first followed, so
 * recursive schemas (JSONSchemaProps) are fine. `components` is read, never modified, and is
 * no longer referenced once every component in use has been compiled: `retain` limits the
 * table to the components reachable from the given names, compiled eagerly, so the document
 * itself can be garbage-collected.
 */
export function compileSchemas(components: Readonly<Record<string, unknown>>, retain?: readonly string[]): SchemaTable {
  const compiled = new Map<string, ObjectSchema>();
  let source: Readonly<Record<string, unknown>> | undefined = components;

  function named(name: string): ObjectSchema | undefined {
    const hit = compiled.get(name);
    if (hit !== undefined) return hit;
    const raw = source?.[name];
    if (!isRecord(raw)) return undefined;
    if (UNTYPED_COMPONENTS.has(name)) {
      compiled.set(name, OPEN_SCHEMA);
      return OPEN_SCHEMA;
    }
    // A component's own preserve-unknown-fields applies to it and its inline parts only.
    const node = compile(raw, false, name);
    compiled.set(name, node);
    return node;
  }

  // References made while retaining, forced before the source is let go.
  const pending: (() => ObjectSchema)[] = [];

  // A lazily resolved, memoized reference: an unknown component accepts anything rather
  // than pruning.
  function reference(name: string): () => ObjectSchema {
    let node: ObjectSchema | undefined;
    const resolve = (): ObjectSchema => (node ??= named(name) ?? OPEN_SCHEMA);
    if (source !== undefined && retain !== undefined) pending.push(resolve);
    return resolve;
  }

  function child(raw: unknown, preserve: boolean): () => ObjectSchema {
    if (!isRecord(raw)) return () => OPEN_SCHEMA;
    const ref = refName(raw);
    if (ref !== undefined) return reference(ref);
    const node = compile(raw, preserve);
    return () => node;
  }

  function compile(raw: Raw, inheritedPreserve: boolean, name?: string): ObjectSchema {
    const preserve = inheritedPreserve || raw['x-kubernetes-preserve-unknown-fields'] === true;
    const type = typeof raw['type'] === 'string' ? raw['type'] : '';
    switch (type) {
      case '':
        return { name, open: false, object: objectFields(raw, preserve), list: listItems(raw, preserve) };
      case 'object':
        return { name, open: false, object: objectFields(raw, preserve) };
      case 'array':
        return { name, open: false, list: listItems(raw, preserve) };
      case 'string':
      case 'integer':
      case 'number':
      case 'boolean':
        return { name, open: false };
      default:
        return OPEN_SCHEMA;
    }
  }

  function objectFields(raw: Raw, preserve: boolean): ObjectFields {
    const props = isRecord(raw['properties']) ? raw['properties'] : {};
    const fields = new Map<string, () => ObjectSchema>();
    const defaults = new Map<string, string | number | boolean>();
    for (const [key, value] of Object.entries(props)) {
      fields.set(key, child(value, preserve));
      const def = isRecord(value) ? scalarDefault(value['default']) : undefined;
      if (def !== undefined) defaults.set(key, def);
    }
    const additional = raw['additionalProperties'];
    let rest: (() => ObjectSchema) | undefined;
    if (additional === undefined) rest = preserve || fields.size === 0 ? () => OPEN_SCHEMA : undefined;
    else if (isRecord(additional)) rest = child(additional, preserve);
    else rest = additional === true ? () => OPEN_SCHEMA : undefined;
    return {
      field: (key) => (fields.get(key) ?? rest)?.(),
      fieldDefault: (key) => defaults.get(key),
    };
  }

  function listItems(raw: Raw, preserve: boolean): ListItems {
    const items = raw['items'] === undefined ? () => OPEN_SCHEMA : child(raw['items'], preserve);
    const keys = listKeys(raw);
    return {
      get items() {
        return items();
      },
      keys,
    };
  }

  if (retain !== undefined) {
    for (const name of retain) named(name);
    // Forcing a reference may compile further components, which add their own references.
    for (let i = 0; i < pending.length; i++) pending[i]?.();
    pending.length = 0;
    source = undefined;
  }

  return {
    get: named,
    get size() {
      return compiled.size;
    },
  };
}
