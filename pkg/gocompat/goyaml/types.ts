/** A decoded JSON value: what Go's YAML-to-JSON conversion or encoding/json produces. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
