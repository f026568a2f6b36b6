/**
 * The JSON schema of a registry+v1 bundle's `spec.config.inline`, built per bundle the way
 * upstream adjusts its base schema to the CSV's install modes:
 *
 * | supported (true) modes        | `watchNamespace`                                     |
 * |-------------------------------|------------------------------------------------------|
 * | neither Own nor Single        | not allowed (`unknown field "watchNamespace"`)       |
 * | All + Own and/or Single       | optional: `null` or a namespace name                 |
 * | Own and/or Single, no All     | required namespace name                              |
 * | Own without Single            | + must equal the install namespace                   |
 * | Single without Own            | + must differ from the install namespace             |
 *
 * A namespace name is 1-63 characters matching `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`.
 * `deploymentConfig` is only allowed when that feature is enabled.
 */
import { DEPLOYMENT_CONFIG_FIELDS, K8S_TYPES, REQUIRED_ORDER, type FieldType } from './config-k8s-types.ts';
import { goQuote } from '../../gocompat/gotext/index.ts';
import type { FormatCheck, SchemaNode } from './json-schema.ts';

/** Format name upstream registers for the OwnNamespace rule. */
const FORMAT_OWN_NAMESPACE = 'ownNamespaceInstallMode';
/** Format name upstream registers for the SingleNamespace rule. */
const FORMAT_SINGLE_NAMESPACE = 'singleNamespaceInstallMode';
/** Upstream's namespace-name pattern for `watchNamespace`. */
const NAMESPACE_NAME_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

/** Inputs of the schema: supported install mode types, install namespace, feature flag. */
interface ConfigSchemaOptions {
  supportedModes: ReadonlySet<string>;
  installNamespace: string;
  deploymentConfigEnabled: boolean;
}

/** Builds the root schema for `spec.config.inline`. */
export function buildConfigSchema(opts: ConfigSchemaOptions): SchemaNode {
  const properties: Record<string, SchemaNode> = {};
  const required: string[] = [];
  if (opts.deploymentConfigEnabled) properties['deploymentConfig'] = DEPLOYMENT_CONFIG_SCHEMA;

  const own = opts.supportedModes.has('OwnNamespace');
  const single = opts.supportedModes.has('SingleNamespace');
  if (own || single) {
    const name: SchemaNode = {
      types: ['string'],
      minLength: 1,
      maxLength: 63,
      pattern: new RegExp(NAMESPACE_NAME_PATTERN),
      ...(own && !single ? { format: ownNamespaceFormat(opts.installNamespace) } : {}),
      ...(single && !own ? { format: singleNamespaceFormat(opts.installNamespace) } : {}),
    };
    if (opts.supportedModes.has('AllNamespaces')) {
      properties['watchNamespace'] = { anyOf: [{ types: ['null'] }, name] };
    } else {
      properties['watchNamespace'] = name;
      required.push('watchNamespace');
    }
  }
  return { types: ['object'], properties, additionalProperties: false, required };
}

function ownNamespaceFormat(installNamespace: string): FormatCheck {
  return {
    name: FORMAT_OWN_NAMESPACE,
    validate(value) {
      if (installNamespace === '') return undefined;
      if (typeof value !== 'string') return 'value must be a string';
      if (value === installNamespace) return undefined;
      return `invalid value ${goQuote(value)}: must be ${goQuote(installNamespace)} (the namespace where the operator is installed) because this operator only supports OwnNamespace install mode`;
    },
  };
}

function singleNamespaceFormat(installNamespace: string): FormatCheck {
  return {
    name: FORMAT_SINGLE_NAMESPACE,
    validate(value) {
      if (installNamespace === '') return undefined;
      if (typeof value !== 'string') return 'value must be a string';
      if (value !== installNamespace) return undefined;
      return `invalid value ${goQuote(value)}: must be different from ${goQuote(installNamespace)} (the install namespace) because this operator uses SingleNamespace install mode to watch a different namespace`;
    },
  };
}

const definitions = new Map<string, SchemaNode>();

function definition(name: string): SchemaNode {
  const known = definitions.get(name);
  if (known !== undefined) return known;
  let node: SchemaNode;
  if (name === 'Quantity') node = { oneOf: [{ types: ['string'] }, { types: ['number'] }] };
  else if (name === 'Time') node = { types: ['string'], format: DATE_TIME };
  else if (name === 'FieldsV1') node = { types: ['object'] };
  else {
    const fields = K8S_TYPES[name];
    if (fields === undefined) throw new Error(`config schema: unknown type ${name}`);
    node = structSchema(fields, REQUIRED_ORDER[name]);
  }
  definitions.set(name, node);
  return node;
}

function structSchema(fields: Readonly<Record<string, FieldType>>, requiredOrder?: readonly string[]): SchemaNode {
  const properties: Record<string, SchemaNode> = {};
  const required: string[] = [];
  for (const [rawName, type] of Object.entries(fields)) {
    const name = rawName.replace(/^!/, '');
    if (rawName.startsWith('!')) required.push(name);
    properties[name] = fieldSchema(type);
  }
  return { types: ['object'], properties, required: requiredOrder ?? required };
}

/** Compiles one field type of the K8S_TYPES notation into a schema node. */
function fieldSchema(type: FieldType): SchemaNode {
  switch (type) {
    case 'string':
      return { types: ['string'] };
    case 'bool':
      return { types: ['boolean'] };
    case 'int32':
    case 'int64':
      return { types: ['integer'] };
  }
  if (type.startsWith('[]')) return { types: ['array'], items: fieldSchema(type.slice(2)) };
  if (type.startsWith('map<')) return { types: ['object'], additionalProperties: fieldSchema(type.slice(4, -1)) };
  const target = type.slice(1);
  if (type.startsWith('&')) return { allOf: [{ ref: () => definition(target) }] };
  if (type.startsWith('*')) return { ref: () => definition(target) };
  throw new Error(`config schema: bad field type ${type}`);
}

const DEPLOYMENT_CONFIG_SCHEMA: SchemaNode = {
  types: ['object'],
  properties: Object.fromEntries(Object.entries(DEPLOYMENT_CONFIG_FIELDS).map(([k, t]) => [k, fieldSchema(t)])),
  additionalProperties: false,
};

// RFC 3339 date-time, with the library's error texts for the common failures.
const DATE_TIME: FormatCheck = {
  name: 'date-time',
  validate(value) {
    if (typeof value !== 'string') return undefined;
    if (value.length < 20) return 'less than 20 characters long';
    if (value[10] !== 't' && value[10] !== 'T') return '11th character must be t or T';
    const date = value.slice(0, 10);
    const d = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
    const valid = d !== null && !Number.isNaN(Date.parse(`${date}T00:00:00Z`)) && new Date(`${date}T00:00:00Z`).toISOString().startsWith(date);
    if (!valid) return `invalid date element: parsing time ${JSON.stringify(date)} as "2006-01-02": cannot parse ${JSON.stringify(date)} as "2006"`;
    if (!/^([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([zZ]|[+-]([01]\d|2[0-3]):[0-5]\d)$/.test(value.slice(11))) {
      return 'invalid time element: hour/min/sec out of range';
    }
    return undefined;
  },
};
