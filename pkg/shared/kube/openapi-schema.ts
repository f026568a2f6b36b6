/**
 * OpenAPI v3 component schemas compiled into the shape server-side apply types objects with
 * (structured-merge-diff, via kube-openapi's schemaconv): only what decides which fields exist
 * (properties, additionalProperties, items, list keys, opening extensions) is kept.
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
interface ObjectFields {
  /**
   * The schema of key `name`: the declared property, else the additionalProperties schema;
   * undefined when the server does not know the key (the field is "not declared in schema").
   */
  field(name: string): ObjectSchema | undefined;
  /** The scalar `default` of declared property `name`, if any (list keys may be defaulted). */
  fieldDefault(name: string): string | number | boolean | undefined;
}

/** The items of an array schema. */
interface ListItems {
  /** Schema of every item (resolved on first use). */
  readonly items: ObjectSchema;
  /**
   * Key fields of an associative list (list-type `map` with its map keys, or a `merge` patch
   * strategy with its merge key); undefined for atomic lists and sets.
   */
  readonly keys?: readonly string[] | undefined;
}

/** Compiled components of one OpenAPI document, looked up by component name. */
interface SchemaTable {
  /** The compiled component `name`, or undefined when the document has none. */
  get(name: string): ObjectSchema | undefined;
  /** Number of components compiled so far (for memory accounting). */
  readonly size: number;
}

/** Accepts any value whole (untyped, deduced, preserved, Quantity, RawExtension). */
const OPEN_SCHEMA: ObjectSchema = Object.freeze({ open: true });

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

/** A property not compiled yet: a reference to a component, resolved on first use. */
interface Ref {
  readonly ref: string;
}
type Slot = ObjectSchema | Ref;

/** Scalars of every inline schema share one node. */
const SCALAR: ObjectSchema = Object.freeze({ open: false });

interface Resolver {
  /** The compiled component `name`; OPEN_SCHEMA when the document lacks it (never prune on a guess). */
  resolve(name: string): ObjectSchema;
}

function isRef(slot: Slot): slot is Ref {
  return 'ref' in slot;
}

// Object fields; references are replaced by their node when first followed.
class Fields implements ObjectFields {
  readonly #slots: Map<string, Slot>;
  #rest: Slot | undefined;
  readonly #defaults: Map<string, string | number | boolean> | undefined;
  readonly #resolver: Resolver;

  constructor(slots: Map<string, Slot>, rest: Slot | undefined, defaults: Map<string, string | number | boolean> | undefined, resolver: Resolver) {
    this.#slots = slots;
    this.#rest = rest;
    this.#defaults = defaults;
    this.#resolver = resolver;
  }

  field(name: string): ObjectSchema | undefined {
    const slot = this.#slots.get(name);
    if (slot === undefined) return this.#restSchema();
    if (!isRef(slot)) return slot;
    const node = this.#resolver.resolve(slot.ref);
    this.#slots.set(name, node);
    return node;
  }

  fieldDefault(name: string): string | number | boolean | undefined {
    return this.#defaults?.get(name);
  }

  /** Resolves every reference now. */
  force(): void {
    for (const name of this.#slots.keys()) this.field(name);
    this.#restSchema();
  }

  #restSchema(): ObjectSchema | undefined {
    const rest = this.#rest;
    if (rest === undefined || !isRef(rest)) return rest;
    this.#rest = this.#resolver.resolve(rest.ref);
    return this.#rest;
  }
}

class Items implements ListItems {
  #slot: Slot;
  readonly keys: readonly string[] | undefined;
  readonly #resolver: Resolver;

  constructor(slot: Slot, keys: readonly string[] | undefined, resolver: Resolver) {
    this.#slot = slot;
    this.keys = keys;
    this.#resolver = resolver;
  }

  get items(): ObjectSchema {
    const slot = this.#slot;
    if (!isRef(slot)) return slot;
    this.#slot = this.#resolver.resolve(slot.ref);
    return this.#slot;
  }

  /** Resolves the reference now. */
  force(): void {
    void this.items;
  }
}

/**
 * Compiles the `components.schemas` of an OpenAPI v3 document (read, never modified), each on
 * first lookup; references are resolved when first followed, so recursive schemas are fine.
 * With `retain`, the components reachable from those names are compiled at once and
 * `components` is let go.
 */
export function compileSchemas(components: Readonly<Record<string, unknown>>, retain?: readonly string[]): SchemaTable {
  const compiled = new Map<string, ObjectSchema>();
  let source: Readonly<Record<string, unknown>> | undefined = components;
  // Parts holding references, forced before the source is let go (retain only).
  const unforced: (Fields | Items)[] | undefined = retain === undefined ? undefined : [];

  function named(name: string): ObjectSchema | undefined {
    const hit = compiled.get(name);
    if (hit !== undefined) return hit;
    const raw = source?.[name];
    if (!isRecord(raw)) return undefined;
    // A component's own preserve-unknown-fields applies to it and its inline parts only.
    const node = UNTYPED_COMPONENTS.has(name) ? OPEN_SCHEMA : compile(raw, false, name);
    compiled.set(name, node);
    return node;
  }

  const resolver: Resolver = { resolve: (name) => named(name) ?? OPEN_SCHEMA };

  function slot(raw: unknown, preserve: boolean): Slot {
    if (!isRecord(raw)) return OPEN_SCHEMA;
    const ref = refName(raw);
    return ref === undefined ? compile(raw, preserve) : { ref };
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
        return name === undefined ? SCALAR : { name, open: false };
      default:
        return OPEN_SCHEMA;
    }
  }

  function objectFields(raw: Raw, preserve: boolean): ObjectFields {
    const props = isRecord(raw['properties']) ? raw['properties'] : {};
    const slots = new Map<string, Slot>();
    let defaults: Map<string, string | number | boolean> | undefined;
    for (const [key, value] of Object.entries(props)) {
      slots.set(key, slot(value, preserve));
      const def = isRecord(value) ? scalarDefault(value['default']) : undefined;
      if (def !== undefined) (defaults ??= new Map()).set(key, def);
    }
    const additional = raw['additionalProperties'];
    let rest: Slot | undefined;
    if (additional === undefined) rest = preserve || slots.size === 0 ? OPEN_SCHEMA : undefined;
    else if (isRecord(additional)) rest = slot(additional, preserve);
    else rest = additional === true ? OPEN_SCHEMA : undefined;
    const fields = new Fields(slots, rest, defaults, resolver);
    unforced?.push(fields);
    return fields;
  }

  function listItems(raw: Raw, preserve: boolean): ListItems {
    const items = new Items(raw['items'] === undefined ? OPEN_SCHEMA : slot(raw['items'], preserve), listKeys(raw), resolver);
    unforced?.push(items);
    return items;
  }

  if (retain !== undefined && unforced !== undefined) {
    for (const name of retain) named(name);
    // Forcing a part may compile further components, which add their own parts.
    for (let i = 0; i < unforced.length; i++) unforced[i]?.force();
    unforced.length = 0;
    source = undefined;
  }

  return {
    get: named,
    get size() {
      return compiled.size;
    },
  };
}
